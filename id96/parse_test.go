package id96

import (
	"errors"
	"testing"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid/parsetest"
)

// parseTests are texts and what Parse makes of them; the fuzz targets start
// from them.
var parseTests = []struct {
	name    string
	text    string
	want    ID
	wantErr error
}{
	{"zero", "................", ID{}, nil},
	{"max", "zzzzzzzzzzzzzzzz", ID{0: 0xff, 1: 0xff, 2: 0xff, 3: 0xff, 4: 0xff, 5: 0xff, 6: 0xff, 7: 0xff, 8: 0xff, 9: 0xff, 10: 0xff, 11: 0xff}, nil},
	{"guid vector", "Njc7pjKhxrcJu..e", newID(3, 13091652260768, 0xdeadbeef, 42), nil},
	{"every character", ".09AZ_az.09AZ_az", ID{0x00, 0x12, 0x8b, 0x92, 0x59, 0xbf, 0x00, 0x12, 0x8b, 0x92, 0x59, 0xbf}, nil},
	{"empty", "", ID{}, floe.ErrInvalidLength},
	{"too short", "Njc7pjKhxrcJu..", ID{}, floe.ErrInvalidLength},
	{"too long", "Njc7pjKhxrcJu..e.", ID{}, floe.ErrInvalidLength},
	{"quoted", `"Njc7pjKhxrcJu..e"`, ID{}, floe.ErrInvalidLength},
	{"64-bit json form", "*Njc7pjKhxrcJu..e", ID{}, floe.ErrInvalidLength},
	{"dash", "Njc7pjKhxrcJu.-e", ID{}, floe.ErrInvalidCharacter},
	{"space", "Njc7pjKhxrcJu.. ", ID{}, floe.ErrInvalidCharacter},
	{"star", "*jc7pjKhxrcJu..e", ID{}, floe.ErrInvalidCharacter},
	{"slash", "/jc7pjKhxrcJu..e", ID{}, floe.ErrInvalidCharacter},
	{"backquote", "`jc7pjKhxrcJu..e", ID{}, floe.ErrInvalidCharacter},
	{"brace", "{jc7pjKhxrcJu..e", ID{}, floe.ErrInvalidCharacter},
	{"nul", "Njc7pjKhxrcJu..\x00", ID{}, floe.ErrInvalidCharacter},
	{"high byte", "Njc7pjKhxrcJu..\xff", ID{}, floe.ErrInvalidCharacter},
	{"non-ascii", "Njc7pjKhxrcJu.é", ID{}, floe.ErrInvalidCharacter},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.text)
			checkParseError(t, err, tt.wantErr, tt.text)
			if got != tt.want {
				t.Errorf("Parse(%q) = %x, want %x", tt.text, got[:], tt.want[:])
			}
			if err == nil {
				if s := got.String(); s != tt.text {
					t.Errorf("String() = %q, want %q", s, tt.text)
				}
			}
		})
	}
}

func TestParse_GuidVectors(t *testing.T) {
	for i, v := range guidVectors {
		t.Run(v.text, func(t *testing.T) {
			got, err := Parse(v.text)
			if want := vectorID(t, i); err != nil || got != want {
				t.Errorf("Parse(%q) = %x, %v, want %x", v.text, got[:], err, want[:])
			}
		})
	}
}

func TestMustParse(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		wantPanic bool
	}{
		{"valid", "Njc7pjKhxrcJu..e", false},
		{"invalid", "Njc7pjKhxrcJu.-e", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if got := recover() != nil; got != tt.wantPanic {
					t.Errorf("MustParse(%q) panicked = %v, want %v", tt.text, got, tt.wantPanic)
				}
			}()
			MustParse(tt.text)
		})
	}
}

// binaryTests are byte strings and what FromBytes makes of them.
var binaryTests = []struct {
	name    string
	data    []byte
	want    ID
	wantErr error
}{
	{"zero", make([]byte, 12), ID{}, nil},
	{"guid vector", []byte{0x62, 0xfa, 0x08, 0xd6, 0xf5, 0x6d, 0xf7, 0x7a, 0x14, 0xe8, 0x00, 0x2a}, newID(3, 13091652260768, 0xdeadbeef, 42), nil},
	{"nil", nil, ID{}, floe.ErrInvalidLength},
	{"64-bit form", make([]byte, 8), ID{}, floe.ErrInvalidLength},
	{"too short", make([]byte, 11), ID{}, floe.ErrInvalidLength},
	{"too long", make([]byte, 13), ID{}, floe.ErrInvalidLength},
	{"text", []byte("Njc7pjKhxrcJu..e"), ID{}, floe.ErrInvalidLength},
}

func TestFromBytes(t *testing.T) {
	for _, tt := range binaryTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromBytes(tt.data)
			checkParseError(t, err, tt.wantErr, string(tt.data))
			if got != tt.want {
				t.Errorf("FromBytes(%x) = %x, want %x", tt.data, got[:], tt.want[:])
			}
		})
	}
}

// checkParseError checks that err is nil when want is, and otherwise a
// *floe.ParseError of id96 for input wrapping want.
func checkParseError(t *testing.T, err, want error, input string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want %v", err, want)
	}
	if want == nil {
		return
	}
	var pe *floe.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error = %#v, want *floe.ParseError", err)
	}
	if len(input) > 64 {
		input = input[:64]
	}
	if pe.Format != "id96" || pe.Input != input {
		t.Errorf("ParseError{Format: %q, Input: %q}, want {%q, %q}", pe.Format, pe.Input, "id96", input)
	}
}

func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.text)
	}
	for _, v := range guidVectors {
		f.Add(v.text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := Parse(s)
		if err != nil {
			if id != (ID{}) {
				t.Fatalf("Parse(%q) = %x, %v", s, id[:], err)
			}
			parsetest.TextFailure(t, err, textForm, []byte(s), "16 characters of . 0-9 A-Z _ a-z")
			return
		}
		if got := id.String(); got != s {
			t.Fatalf("Parse(%q).String() = %q", s, got)
		}
		if back, err := Compose(id.Parts()); err != nil || back != id {
			t.Fatalf("Compose(Parse(%q).Parts()) = %v, %v", s, back, err)
		}
	})
}
