package id80

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid/parsetest"
)

var (
	_ driver.Valuer = ID{}
	_ sql.Scanner   = (*ID)(nil)
)

func TestID_Value(t *testing.T) {
	tests := []struct {
		name string
		id   string
	}{
		{"zero", "2222222222222222"},
		{"written by sno", "6ncg4s4c27a24223"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := MustParse(tt.id)
			v, err := id.Value()
			if b, ok := v.([]byte); err != nil || !ok || !bytes.Equal(b, id[:]) {
				t.Errorf("Value() = %#v, %v, want the bytes %x", v, err, id[:])
			}
			if !driver.IsValue(v) {
				t.Errorf("Value() = %T, not a driver.Value", v)
			}
		})
	}
}

// scanTests are the database values shared by TestID_Scan and FuzzScan.
var scanTests = []struct {
	name    string
	in      any
	want    string // text
	wantErr error
}{
	{name: "text string", in: "6ncg4s4c27a24223", want: "6ncg4s4c27a24223"},
	{name: "text bytes", in: []byte("6ncg4s4c27a24223"), want: "6ncg4s4c27a24223"},
	{name: "raw bytes as sno writes them", in: []byte{0x25, 0x54, 0xe1, 0x68, 0x4a, 0x01, 0x50, 0x01, 0x00, 0x01}, want: "6ncg4s4c27a24223"},
	{name: "raw zero bytes", in: make([]byte, 10), want: "2222222222222222"},
	{name: "null", in: nil, want: "2222222222222222"},
	{name: "ten character string", in: "6ncg4s4c27", wantErr: floe.ErrInvalidLength},
	{name: "empty string, as sno", in: "", want: "2222222222222222"},
	{name: "empty bytes, as sno", in: []byte{}, want: "2222222222222222"},
	{name: "one character string", in: "6", wantErr: floe.ErrInvalidLength},
	{name: "one byte", in: []byte{0x25}, wantErr: floe.ErrInvalidLength},
	{name: "eleven bytes", in: make([]byte, 11), wantErr: floe.ErrInvalidLength},
	{name: "bad character", in: "6ncg4s4c27a2422z", wantErr: floe.ErrInvalidCharacter},
	{name: "upper case bytes", in: []byte("6NCG4S4C27A24223"), wantErr: floe.ErrInvalidCharacter},
	{name: "int64", in: int64(1), wantErr: floe.ErrUnsupportedType},
	{name: "time", in: time.Unix(0, 0), wantErr: floe.ErrUnsupportedType},
	{name: "bool", in: true, wantErr: floe.ErrUnsupportedType},
}

func TestID_Scan(t *testing.T) {
	for _, tt := range scanTests {
		t.Run(tt.name, func(t *testing.T) {
			id := MustParse("xxxxxxxxxxxxxxxx")
			before := id
			err := id.Scan(tt.in)
			if tt.wantErr != nil {
				checkParseError(t, err, tt.wantErr)
				if id != before {
					t.Errorf("Scan() changed the ID on error to %v", id)
				}
				return
			}
			if err != nil {
				t.Fatalf("Scan(%#v) error = %v", tt.in, err)
			}
			if want := MustParse(tt.want); id != want {
				t.Errorf("Scan(%#v) = %v, want %v", tt.in, id, want)
			}
		})
	}
}

func TestID_ScanDoesNotAlias(t *testing.T) {
	raw := []byte{0x25, 0x54, 0xe1, 0x68, 0x4a, 0x01, 0x50, 0x01, 0x00, 0x01}
	var id ID
	if err := id.Scan(raw); err != nil {
		t.Fatal(err)
	}
	raw[0] = 0 // drivers reuse their buffers
	if id != MustParse("6ncg4s4c27a24223") {
		t.Errorf("Scan() kept a reference to its input: %v", id)
	}
}

func TestID_ValueScanRoundTrip(t *testing.T) {
	for _, v := range goldenVectors {
		id := idFromHex(t, v.hex)
		val, err := id.Value()
		if err != nil {
			t.Fatal(err)
		}
		var got ID
		if err := got.Scan(val); err != nil || got != id {
			t.Fatalf("Scan(Value()) of %v = %v, %v", id, got, err)
		}
	}
}

func FuzzScan(f *testing.F) {
	for _, tt := range scanTests {
		switch v := tt.in.(type) {
		case string:
			f.Add(false, []byte(v))
		case []byte:
			f.Add(true, v)
		}
	}
	f.Fuzz(func(t *testing.T, asBytes bool, b []byte) {
		var in any = string(b)
		if asBytes {
			in = bytes.Clone(b)
		}
		var id ID
		if err := id.Scan(in); err != nil {
			lengths := "16 characters of 2-9 a-x"
			if asBytes {
				lengths += " or 10 bytes"
			}
			parsetest.TextFailure(t, err, textForm, b, lengths)
			return
		}
		switch {
		case len(b) == 0:
			if !id.IsZero() {
				t.Fatalf("Scan(empty) = %v, want the zero ID", id)
			}
		case asBytes && len(b) == Size:
			if !bytes.Equal(id[:], b) {
				t.Fatalf("Scan(%x) = %x", b, id[:])
			}
		default:
			if got := id.String(); got != string(b) {
				t.Fatalf("Scan(%q) re-encodes to %q", b, got)
			}
		}
	})
}
