package id80

import (
	"errors"
	"strings"
	"testing"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid/parsetest"
)

// parseTests are the text inputs shared by the Parse, UnmarshalText,
// UnmarshalJSON and Scan tests and by the fuzz seeds.
var parseTests = []struct {
	name    string
	in      string
	want    string // hex, when valid
	wantErr error
}{
	{name: "zero", in: "2222222222222222", want: "00000000000000000000"},
	{name: "max", in: "xxxxxxxxxxxxxxxx", want: "ffffffffffffffffffff"},
	{name: "written by sno", in: "6ncg4s4c27a24223", want: "2554e1684a0150010001"},
	{name: "tick-tock set", in: "26jmcrubnh8ww2b5", want: "0123456789abcdef0123"},
	{name: "empty", in: "", wantErr: floe.ErrInvalidLength},
	{name: "one short", in: "6ncg4s4c27a2422", wantErr: floe.ErrInvalidLength},
	{name: "one long", in: "6ncg4s4c27a242233", wantErr: floe.ErrInvalidLength},
	{name: "raw bytes length", in: "6ncg4s4c27", wantErr: floe.ErrInvalidLength},
	{name: "very long", in: strings.Repeat("2", 1000), wantErr: floe.ErrInvalidLength},
	{name: "upper case", in: "6NCG4S4C27A24223", wantErr: floe.ErrInvalidCharacter},
	{name: "zero digit", in: "6ncg4s4c27a24220", wantErr: floe.ErrInvalidCharacter},
	{name: "one digit", in: "1ncg4s4c27a24223", wantErr: floe.ErrInvalidCharacter},
	{name: "letter y", in: "6ncg4s4c27a2y223", wantErr: floe.ErrInvalidCharacter},
	{name: "letter z", in: "6ncg4s4cz7a24223", wantErr: floe.ErrInvalidCharacter},
	{name: "colon after nine", in: "6ncg4s4:27a24223", wantErr: floe.ErrInvalidCharacter},
	{name: "backquote before a", in: "6ncg4s4c27`24223", wantErr: floe.ErrInvalidCharacter},
	{name: "space", in: "6ncg4s4c27a2422 ", wantErr: floe.ErrInvalidCharacter},
	{name: "nul", in: "6ncg4s4c\x0027a2422", wantErr: floe.ErrInvalidCharacter},
	{name: "high byte", in: "6ncg4s4c27a2422\xff", wantErr: floe.ErrInvalidCharacter},
	{name: "utf-8 in sixteen bytes", in: "6ncg4s4c27a242é", wantErr: floe.ErrInvalidCharacter},
	{name: "quoted", in: `"6ncg4s4c27a242"`, wantErr: floe.ErrInvalidCharacter},
}

// checkParseError fails unless err is a *floe.ParseError for id80 wrapping
// want.
func checkParseError(t *testing.T, err, want error) {
	t.Helper()
	var pe *floe.ParseError
	if !errors.Is(err, want) || !errors.As(err, &pe) || pe.Format != "id80" {
		t.Fatalf("error = %v, want a *floe.ParseError for id80 wrapping %v", err, want)
	}
	if len(pe.Input) > 64 {
		t.Errorf("ParseError.Input has %d bytes, want at most 64", len(pe.Input))
	}
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if tt.wantErr != nil {
				checkParseError(t, err, tt.wantErr)
				if got != (ID{}) {
					t.Errorf("Parse() = %x on error, want the zero ID", got[:])
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q) error = %v", tt.in, err)
			}
			if want := idFromHex(t, tt.want); got != want {
				t.Errorf("Parse(%q) = %x, want %x", tt.in, got[:], want[:])
			}
			if s := got.String(); s != tt.in {
				t.Errorf("String() = %q, want %q", s, tt.in)
			}
		})
	}
}

func TestMustParse(t *testing.T) {
	if got, want := MustParse("6ncg4s4c27a24223"), idFromHex(t, "2554e1684a0150010001"); got != want {
		t.Errorf("MustParse() = %x, want %x", got[:], want[:])
	}
	defer func() {
		err, _ := recover().(error)
		checkParseError(t, err, floe.ErrInvalidCharacter)
	}()
	MustParse("6ncg4s4c27a2422!")
	t.Error("MustParse did not panic")
}

func TestFromBytes(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		wantErr error
	}{
		{name: "ten bytes", in: []byte{0x25, 0x54, 0xe1, 0x68, 0x4a, 0x01, 0x50, 0x01, 0x00, 0x01}},
		{name: "zero", in: make([]byte, 10)},
		{name: "nil", in: nil, wantErr: floe.ErrInvalidLength},
		{name: "nine", in: make([]byte, 9), wantErr: floe.ErrInvalidLength},
		{name: "eleven", in: make([]byte, 11), wantErr: floe.ErrInvalidLength},
		{name: "text", in: []byte("6ncg4s4c27a24223"), wantErr: floe.ErrInvalidLength},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromBytes(tt.in)
			if tt.wantErr != nil {
				checkParseError(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("FromBytes() error = %v", err)
			}
			if string(got[:]) != string(tt.in) {
				t.Errorf("FromBytes() = %x, want %x", got[:], tt.in)
			}
			tt.in[0]++
			if string(got[:]) == string(tt.in) {
				t.Error("FromBytes() shares memory with its input")
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.in)
	}
	for _, v := range goldenVectors {
		f.Add(v.text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := Parse(s)
		if valid := referenceValid(s); valid != (err == nil) {
			t.Fatalf("Parse(%q) error = %v, want valid = %v", s, err, valid)
		}
		if err != nil {
			parsetest.TextFailure(t, err, textForm, []byte(s), "16 characters of 2-9 a-x")
			return
		}
		if got := id.String(); got != s {
			t.Fatalf("Parse(%q).String() = %q", s, got)
		}
		if got := referenceEncode(id); got != s {
			t.Fatalf("reference encoding of Parse(%q) = %q", s, got)
		}
	})
}

// referenceValid reports whether s is 16 characters of the alphabet, one
// character at a time.
func referenceValid(s string) bool {
	if len(s) != EncodedSize {
		return false
	}
	for i := range len(s) {
		if strings.IndexByte(alphabet, s[i]) < 0 {
			return false
		}
	}
	return true
}
