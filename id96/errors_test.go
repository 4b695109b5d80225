package id96

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/floeid/floe"
)

// decoders are id96's decoders by name, for tables of their errors.
var decoders = map[string]func(in any) error{
	"parse": func(in any) error { _, err := Parse(in.(string)); return err },
	"text":  func(in any) error { return new(ID).UnmarshalText([]byte(in.(string))) },
	"json":  func(in any) error { return new(ID).UnmarshalJSON([]byte(in.(string))) },
	"scan":  func(in any) error { return new(ID).Scan(in) },
	"bytes": func(in any) error { _, err := FromBytes(in.([]byte)); return err },
}

func TestParseError_Messages(t *testing.T) {
	long := strings.Repeat(".", 1000)
	text := []string{"parse", "text", "scan"}
	tests := []struct {
		name     string
		decoders []string
		in       any
		want     string // the error's text; "" for none
	}{
		{"valid", text, "Njc7pjKhxrcJu..e", ""},
		{"empty", text, "",
			`floe: cannot parse "" as id96: invalid length 0, want 16 characters of . 0-9 A-Z _ a-z`},
		{"64-bit json form", text, "*Njc7pjKhxrcJu..e",
			`floe: cannot parse "*Njc7pjKhxrcJu..e" as id96: invalid length 17, want 16 characters of . 0-9 A-Z _ a-z`},
		{"long", text, long,
			`floe: cannot parse "` + long[:64] + `" as id96: invalid length 1000, want 16 characters of . 0-9 A-Z _ a-z`},
		{"bad byte at the start", text, "-jc7pjKhxrcJu..e",
			`floe: cannot parse "-jc7pjKhxrcJu..e" as id96: invalid character '-' at offset 0, want . 0-9 A-Z _ a-z`},
		{"bad byte in the middle", text, "Njc7pjK-xrcJu..e",
			`floe: cannot parse "Njc7pjK-xrcJu..e" as id96: invalid character '-' at offset 7, want . 0-9 A-Z _ a-z`},
		{"bad byte at the end", text, "Njc7pjKhxrcJu..!",
			`floe: cannot parse "Njc7pjKhxrcJu..!" as id96: invalid character '!' at offset 15, want . 0-9 A-Z _ a-z`},
		{"non-ascii", text, "Njc7pjKhxrcJu.é",
			`floe: cannot parse "Njc7pjKhxrcJu.é" as id96: invalid character 'é' at offset 14, want . 0-9 A-Z _ a-z`},
		{"nul", text, "Njc7pjKhxrcJu..\x00",
			`floe: cannot parse "Njc7pjKhxrcJu..\x00" as id96: invalid character '\x00' at offset 15, want . 0-9 A-Z _ a-z`},
		{"not utf-8", text, "\xffjc7pjKhxrcJu..e",
			`floe: cannot parse "\xffjc7pjKhxrcJu..e" as id96: invalid character '\xff' at offset 0, want . 0-9 A-Z _ a-z`},

		{"json string", []string{"json"}, `"Njc7pjKhxrcJu..e"`, ""},
		{"json 64-bit form", []string{"json"}, `"*Njc7o85Xgw7Ju..e"`, ""},
		{"json bad byte", []string{"json"}, `"Njc7pjKhxrcJu.-e"`,
			`floe: cannot parse "\"Njc7pjKhxrcJu.-e\"" as id96: invalid character '-' at offset 15, want . 0-9 A-Z _ a-z`},
		{"json 64-bit form with a bad byte", []string{"json"}, `"*Njc7pjKhxrcJu.-e"`,
			`floe: cannot parse "\"*Njc7pjKhxrcJu.-e\"" as id96: invalid character '-' at offset 16, want . 0-9 A-Z _ a-z`},
		{"json bad byte after an escape", []string{"json"}, `"Njc7pjKhxrcJu\u002e-e"`,
			`floe: cannot parse "\"Njc7pjKhxrcJu\\u002e-e\"" as id96: invalid character '-' at offset 20, want . 0-9 A-Z _ a-z`},
		{"json escaped bad byte", []string{"json"}, `"Njc7pjKhxrcJu.\u002de"`,
			`floe: cannot parse "\"Njc7pjKhxrcJu.\\u002de\"" as id96: invalid character '-' at offset 15, want . 0-9 A-Z _ a-z`},
		{"json empty string", []string{"json"}, `""`,
			`floe: cannot parse "\"\"" as id96: invalid length 0, want 16 characters of . 0-9 A-Z _ a-z`},
		{"json star only", []string{"json"}, `"*"`,
			`floe: cannot parse "\"*\"" as id96: invalid length 0, want 16 characters of . 0-9 A-Z _ a-z after the *`},
		{"json two stars", []string{"json"}, `"**Njc7o85Xgw7Ju..e"`,
			`floe: cannot parse "\"**Njc7o85Xgw7Ju..e\"" as id96: invalid length 17, want 16 characters of . 0-9 A-Z _ a-z after the *`},
		{"json number", []string{"json"}, `12345`,
			`floe: cannot parse "12345" as id96: unsupported type, want a JSON string or null`},

		{"scan raw bytes", []string{"scan"}, make([]byte, 12), ""},
		{"scan int64", []string{"scan"}, int64(42),
			`floe: cannot parse "int64" as id96: unsupported type, want string, []byte or nil`},
		{"scan 8 bytes", []string{"scan"}, make([]byte, 8),
			`floe: cannot parse "\x00\x00\x00\x00\x00\x00\x00\x00" as id96: invalid length 8, want 16 characters of . 0-9 A-Z _ a-z or 12 bytes`},
		{"scan 12-character string", []string{"scan"}, "Njc7pjKhxrcJ",
			`floe: cannot parse "Njc7pjKhxrcJ" as id96: invalid length 12, want 16 characters of . 0-9 A-Z _ a-z`},
		{"scan bytes with a bad byte", []string{"scan"}, []byte("Njc7pjKhxrcJu.-e"),
			`floe: cannot parse "Njc7pjKhxrcJu.-e" as id96: invalid character '-' at offset 14, want . 0-9 A-Z _ a-z`},

		{"12 bytes", []string{"bytes"}, make([]byte, 12), ""},
		{"11 bytes", []string{"bytes"}, make([]byte, 11),
			`floe: cannot parse "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" as id96: invalid length 11, want 12 bytes`},
	}
	for _, tc := range tests {
		for _, name := range tc.decoders {
			t.Run(tc.name+" "+name, func(t *testing.T) {
				got := ""
				if err := decoders[name](tc.in); err != nil {
					got = err.Error()
				}
				if got != tc.want {
					t.Errorf("error %q, want %q", got, tc.want)
				}
			})
		}
	}
}

// checkFailure fails unless err is a *floe.ParseError for id96 wrapping
// reason, with Input the start of input.
func checkFailure(t *testing.T, err error, reason error, input []byte) *floe.ParseError {
	t.Helper()
	var pe *floe.ParseError
	if !errors.As(err, &pe) || pe.Format != "id96" || !errors.Is(err, reason) {
		t.Fatalf("error %v (%T), want an id96 *floe.ParseError wrapping %v", err, err, reason)
	}
	if want := string(input[:min(len(input), 64)]); pe.Input != want {
		t.Fatalf("error %v has Input %q, want %q", err, pe.Input, want)
	}
	return pe
}

// checkTextFailure fails unless err explains, as a reading of text one byte
// at a time does, why text is not the text of an ID: its length, which is
// not one of lengths, or the first byte outside the alphabet.
func checkTextFailure(t *testing.T, err error, text []byte, lengths string) {
	t.Helper()
	if len(text) != EncodedLen {
		pe := checkFailure(t, err, floe.ErrInvalidLength, text)
		if pe.Length != len(text) || pe.Offset != -1 || pe.Want != lengths {
			t.Fatalf("error %v for %q: %+v, want length %d", err, text, *pe, len(text))
		}
		return
	}
	i := firstOutside(text)
	pe := checkFailure(t, err, floe.ErrInvalidCharacter, text)
	if i < 0 || pe.Offset != i || pe.Char != charAt(text, i) || pe.Length != -1 || pe.Want != ". 0-9 A-Z _ a-z" {
		t.Fatalf("error %v for %q: %+v, want the character %q at offset %d", err, text, *pe, charAt(text, i), i)
	}
}

// firstOutside returns the offset of the first byte of s outside the
// alphabet, or -1.
func firstOutside(s []byte) int {
	return bytes.IndexFunc(s, func(r rune) bool { return r >= utf8.RuneSelf || strings.IndexByte(alphabet, byte(r)) < 0 })
}

// charAt returns the character of s at byte i: a rune, or the one byte
// there when it does not start one; "" at the end of s.
func charAt(s []byte, i int) string {
	if i < 0 || i >= len(s) {
		return ""
	}
	_, n := utf8.DecodeRune(s[i:])
	return string(s[i : i+n])
}
