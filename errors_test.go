package floe_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/floeid/floe"
)

// parseError returns a *floe.ParseError made by NewParseError with the
// fields a format's decoder sets.
func parseError(input string, reason error, offset int, char string, length int, want string) *floe.ParseError {
	e := floe.NewParseError("id80", []byte(input), reason)
	e.Offset, e.Char, e.Length, e.Want = offset, char, length, want
	return e
}

func TestParseError(t *testing.T) {
	long := strings.Repeat("2", 100) + "!"
	tests := []struct {
		name   string
		err    *floe.ParseError
		is     error
		reason string
	}{
		{"character", parseError("9qad!fh223ht2222", floe.ErrInvalidCharacter, 4, "!", -1, "2-9 a-x"), floe.ErrInvalidCharacter,
			"invalid character '!' at offset 4, want 2-9 a-x"},
		{"character at the start", parseError("!qadfh223ht2222", floe.ErrInvalidCharacter, 0, "!", -1, "2-9 a-x"), floe.ErrInvalidCharacter,
			"invalid character '!' at offset 0, want 2-9 a-x"},
		{"non-ascii", parseError("9qadéh223ht2222", floe.ErrInvalidCharacter, 4, "é", -1, "2-9 a-x"), floe.ErrInvalidCharacter,
			"invalid character 'é' at offset 4, want 2-9 a-x"},
		{"nul", parseError("9qad\x00fh223ht2222", floe.ErrInvalidCharacter, 4, "\x00", -1, "2-9 a-x"), floe.ErrInvalidCharacter,
			`invalid character '\x00' at offset 4, want 2-9 a-x`},
		{"not utf-8", parseError("9qad\xfffh223ht2222", floe.ErrInvalidCharacter, 4, "\xff", -1, "2-9 a-x"), floe.ErrInvalidCharacter,
			`invalid character '\xff' at offset 4, want 2-9 a-x`},
		{"single quote", parseError("9qad'fh223ht2222", floe.ErrInvalidCharacter, 4, "'", -1, "2-9 a-x"), floe.ErrInvalidCharacter,
			`invalid character '\'' at offset 4, want 2-9 a-x`},
		{"replacement character", parseError("9qad\ufffdh223ht222", floe.ErrInvalidCharacter, 4, "\ufffd", -1, "2-9 a-x"), floe.ErrInvalidCharacter,
			"invalid character '\ufffd' at offset 4, want 2-9 a-x"},
		{"input ends", parseError(`"9qa`, floe.ErrInvalidCharacter, 4, "", -1, "a JSON string or null"), floe.ErrInvalidCharacter,
			"invalid character: input ends at offset 4, want a JSON string or null"},
		{"offset beyond the cut", parseError(long, floe.ErrInvalidCharacter, 100, "!", -1, "0-9"), floe.ErrInvalidCharacter,
			"invalid character '!' at offset 100, want 0-9"},
		{"length", parseError("abc", floe.ErrInvalidLength, -1, "", 3, "16"), floe.ErrInvalidLength,
			"invalid length 3, want 16"},
		{"length beyond the cut", floe.NewParseError("id80", []byte(long), floe.ErrInvalidLength), floe.ErrInvalidLength,
			"invalid length 101"},
		{"range", parseError("18446744073709551616", floe.ErrOutOfRange, -1, "", -1, "0 to 18446744073709551615"), floe.ErrOutOfRange,
			"value out of range, want 0 to 18446744073709551615"},
		{"type", parseError("float64", floe.ErrUnsupportedType, -1, "", -1, "string, []byte or nil"), floe.ErrUnsupportedType,
			"unsupported type, want string, []byte or nil"},
		{"character without details", floe.NewParseError("id80", []byte("zz!"), floe.ErrInvalidCharacter), floe.ErrInvalidCharacter,
			"invalid character"},
		{"built without an offset", &floe.ParseError{Format: "id80", Input: "zz!", Err: floe.ErrInvalidCharacter}, floe.ErrInvalidCharacter,
			"invalid character"},
		{"empty input ends at once", &floe.ParseError{Format: "id80", Input: "", Err: floe.ErrInvalidCharacter}, floe.ErrInvalidCharacter,
			"invalid character: input ends at offset 0"},
		{"input cut, ends beyond the cut", parseError(`"`+long, floe.ErrInvalidCharacter, 102, "", -1, "a JSON string or null"), floe.ErrInvalidCharacter,
			"invalid character: input ends at offset 102, want a JSON string or null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Reason(); got != tc.reason {
				t.Errorf("Reason() = %q, want %q", got, tc.reason)
			}
			input := tc.err.Input
			if want := fmt.Sprintf("floe: cannot parse %q as id80: %s", input, tc.reason); tc.err.Error() != want {
				t.Errorf("Error() = %q, want %q", tc.err.Error(), want)
			}
			if !errors.Is(tc.err, tc.is) {
				t.Errorf("%v is not %v", tc.err, tc.is)
			}
			if len(input) > 64 {
				t.Errorf("Input keeps %d bytes, want at most 64", len(input))
			}
		})
	}
}

func TestNewParseError(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		reason error
		length int
	}{
		{"length", "zz", floe.ErrInvalidLength, 2},
		{"empty", "", floe.ErrInvalidLength, 0},
		{"long", strings.Repeat("z", 1000), floe.ErrInvalidLength, 1000},
		{"character", "z!", floe.ErrInvalidCharacter, -1},
		{"range", "-1", floe.ErrOutOfRange, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := floe.NewParseError("id64", []byte(tc.input), tc.reason)
			want := tc.input[:min(len(tc.input), 64)]
			if e.Format != "id64" || e.Input != want || e.Err != tc.reason || e.Offset != -1 || e.Char != "" || e.Length != tc.length || e.Want != "" {
				t.Errorf("NewParseError = %+v, want {id64 %q %v -1 \"\" %d \"\"}", *e, want, tc.reason, tc.length)
			}
		})
	}
}
