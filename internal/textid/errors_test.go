package textid

import (
	"errors"
	"strings"
	"testing"

	"github.com/floeid/floe"
)

func TestCharError(t *testing.T) {
	long := strings.Repeat("2", 100) + "é"
	tests := []struct {
		name   string
		input  string
		offset int
		want   string // Error()
		char   string
	}{
		{"ascii", "22!2", 2, `floe: cannot parse "22!2" as id80: invalid character '!' at offset 2, want 2-9 a-x`, "!"},
		{"first byte", "!", 0, `floe: cannot parse "!" as id80: invalid character '!' at offset 0, want 2-9 a-x`, "!"},
		{"two-byte rune", "2é2", 1, `floe: cannot parse "2é2" as id80: invalid character 'é' at offset 1, want 2-9 a-x`, "é"},
		{"rune cut short", "2\xc3", 1, `floe: cannot parse "2\xc3" as id80: invalid character '\xc3' at offset 1, want 2-9 a-x`, "\xc3"},
		{"nul", "2\x00", 1, `floe: cannot parse "2\x00" as id80: invalid character '\x00' at offset 1, want 2-9 a-x`, "\x00"},
		{"end of input", `"22`, 3, `floe: cannot parse "\"22" as id80: invalid character: input ends at offset 3, want 2-9 a-x`, ""},
		{"beyond the cut", long, 100, `floe: cannot parse "` + long[:64] + `" as id80: invalid character 'é' at offset 100, want 2-9 a-x`, "é"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, e := range []*floe.ParseError{
				CharError("id80", tc.input, tc.offset, "2-9 a-x"),
				CharError("id80", []byte(tc.input), tc.offset, "2-9 a-x"),
			} {
				if got := e.Error(); got != tc.want {
					t.Errorf("Error() = %q, want %q", got, tc.want)
				}
				if e.Offset != tc.offset || e.Char != tc.char || e.Length != -1 || !errors.Is(e, floe.ErrInvalidCharacter) {
					t.Errorf("ParseError = %+v, want Offset %d, Char %q, Length -1", *e, tc.offset, tc.char)
				}
			}
		})
	}
}

func TestLengthError(t *testing.T) {
	long := strings.Repeat("2", 1000)
	tests := []struct {
		name   string
		input  string
		length int
		want   string
	}{
		{"short", "abc", 3, `floe: cannot parse "abc" as id80: invalid length 3, want 16`},
		{"empty", "", 0, `floe: cannot parse "" as id80: invalid length 0, want 16`},
		{"beyond the cut", long, 1000, `floe: cannot parse "` + long[:64] + `" as id80: invalid length 1000, want 16`},
		{"part of the input", `"abc"`, 3, `floe: cannot parse "\"abc\"" as id80: invalid length 3, want 16`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := LengthError("id80", tc.input, tc.length, "16")
			if got := e.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
			if e.Offset != -1 || e.Length != tc.length || !errors.Is(e, floe.ErrInvalidLength) {
				t.Errorf("ParseError = %+v, want Offset -1, Length %d", *e, tc.length)
			}
		})
	}
}

func TestError(t *testing.T) {
	e := Error("id64", "-1", floe.ErrOutOfRange, "0 to 18446744073709551615")
	if got, want := e.Error(), `floe: cannot parse "-1" as id64: value out of range, want 0 to 18446744073709551615`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if e.Offset != -1 || e.Length != -1 || !errors.Is(e, floe.ErrOutOfRange) {
		t.Errorf("ParseError = %+v, want Offset and Length -1", *e)
	}
}

func TestRanges(t *testing.T) {
	tests := []struct {
		name, alphabet, want string
	}{
		{"id80", "23456789abcdefghijklmnopqrstuvwx", "2-9 a-x"},
		{"id96", ".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz", ". 0-9 A-Z _ a-z"},
		{"digits", "0123456789", "0-9"},
		{"one", "a", "a"},
		{"apart", "ace", "a c e"},
		{"pair", "ab", "a-b"},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Ranges(tc.alphabet); got != tc.want {
				t.Errorf("Ranges(%q) = %q, want %q", tc.alphabet, got, tc.want)
			}
		})
	}
}

func TestInString(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		text    string // the text the error is about, from start on
		start   int
		offset  int // in text
		want    int // offset in json
		wantErr string
	}{
		{"plain", `"12x"`, "12x", 0, 2, 3, `floe: cannot parse "\"12x\"" as id64: invalid character 'x' at offset 3, want 0-9`},
		{"escaped", `"1\u0032x"`, "12x", 0, 2, 8, `floe: cannot parse "\"1\\u0032x\"" as id64: invalid character 'x' at offset 8, want 0-9`},
		{"escaped character", `"12\u0078"`, "12x", 0, 2, 3, `floe: cannot parse "\"12\\u0078\"" as id64: invalid character 'x' at offset 3, want 0-9`},
		{"after a star", `"*12x"`, "12x", 1, 2, 4, `floe: cannot parse "\"*12x\"" as id64: invalid character 'x' at offset 4, want 0-9`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := InString(CharError("id64", tc.text, tc.offset, "0-9"), []byte(tc.json), tc.start)
			if e.Offset != tc.want || e.Input != tc.json || e.Error() != tc.wantErr {
				t.Errorf("InString = %+v (%q), want Offset %d, Input %q: %q", *e, e.Error(), tc.want, tc.json, tc.wantErr)
			}
		})
	}
	e := InString(LengthError("id64", "", 0, "1 to 20 digits"), []byte(`""`), 0)
	if e.Offset != -1 || e.Length != 0 || e.Input != `""` {
		t.Errorf("InString of a length error = %+v, want Offset -1, Length 0, Input \"\"", *e)
	}
}
