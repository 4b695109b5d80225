package id96

import (
	"bytes"
	"errors"
	"testing"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid/parsetest"
)

func TestID_Value(t *testing.T) {
	for i, v := range guidVectors {
		t.Run(v.text, func(t *testing.T) {
			got, err := vectorID(t, i).Value()
			if err != nil || got != v.text {
				t.Errorf("Value() = %#v, %v, want %q", got, err, v.text)
			}
		})
	}
}

// scanTests are database values and what Scan makes of them; the fuzz
// target starts from them.
var scanTests = []struct {
	name    string
	src     any
	want    ID
	wantErr error
}{
	{"nil", nil, ID{}, nil},
	{"text string", "Njc7pjKhxrcJu..e", newID(3, 13091652260768, 0xdeadbeef, 42), nil},
	{"text bytes", []byte("Njc7pjKhxrcJu..e"), newID(3, 13091652260768, 0xdeadbeef, 42), nil},
	{"raw bytes", []byte{0x62, 0xfa, 0x08, 0xd6, 0xf5, 0x6d, 0xf7, 0x7a, 0x14, 0xe8, 0x00, 0x2a}, newID(3, 13091652260768, 0xdeadbeef, 42), nil},
	{"zero raw bytes", make([]byte, 12), ID{}, nil},
	{"12-character string", "Njc7pjKhxrcJ", ID{}, floe.ErrInvalidLength},
	{"empty string", "", ID{}, floe.ErrInvalidLength},
	{"8 bytes", make([]byte, 8), ID{}, floe.ErrInvalidLength},
	{"bad character", "Njc7pjKhxrcJu.-e", ID{}, floe.ErrInvalidCharacter},
	{"int64", int64(42), ID{}, floe.ErrUnsupportedType},
	{"float64", 4.2, ID{}, floe.ErrUnsupportedType},
	{"bool", true, ID{}, floe.ErrUnsupportedType},
}

func TestID_Scan(t *testing.T) {
	for _, tt := range scanTests {
		t.Run(tt.name, func(t *testing.T) {
			got := newID(7, 7, 7, 7) // Scan(nil) must reset it
			if tt.wantErr != nil {
				got = ID{}
			}
			err := got.Scan(tt.src)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Scan(%#v) error = %v, want %v", tt.src, err, tt.wantErr)
			}
			var pe *floe.ParseError
			if err != nil && (!errors.As(err, &pe) || pe.Format != "id96") {
				t.Errorf("Scan(%#v) error = %#v, want *floe.ParseError of id96", tt.src, err)
			}
			if got != tt.want {
				t.Errorf("Scan(%#v) = %x, want %x", tt.src, got[:], tt.want[:])
			}
		})
	}
}

func TestID_ScanCopies(t *testing.T) {
	src := MustParse("Njc7pjKhxrcJu..e").Bytes()
	var id ID
	if err := id.Scan(src); err != nil {
		t.Fatal(err)
	}
	want := id
	src[0] = 0
	if id != want {
		t.Error("Scan kept a reference to the driver's buffer")
	}
}

func FuzzScan(f *testing.F) {
	for _, tt := range scanTests {
		switch v := tt.src.(type) {
		case string:
			f.Add([]byte(v), true)
		case []byte:
			f.Add(v, false)
		}
	}
	for _, v := range guidVectors {
		f.Add([]byte(v.text), true)
		f.Add(MustParse(v.text).Bytes(), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, asString bool) {
		var src any = data
		if asString {
			src = string(data)
		}
		var id ID
		if err := id.Scan(src); err != nil {
			if id != (ID{}) {
				t.Fatalf("Scan(%#v) = %x, %v", src, id[:], err)
			}
			lengths := "16 characters of . 0-9 A-Z _ a-z"
			if !asString {
				lengths += " or 12 bytes"
			}
			parsetest.TextFailure(t, err, textForm, data, lengths)
			return
		}
		var again []byte
		if !asString && len(data) == Size {
			again = id.Bytes()
		} else {
			again = []byte(id.String())
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("Scan(%#v) re-encodes as %q", src, again)
		}
	})
}
