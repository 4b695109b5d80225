package id80

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/floeid/floe"
)

// decoders are id80's decoders by name, for tables of their errors.
var decoders = map[string]func(in any) error{
	"parse": func(in any) error { _, err := Parse(in.(string)); return err },
	"text":  func(in any) error { return new(ID).UnmarshalText([]byte(in.(string))) },
	"json":  func(in any) error { return new(ID).UnmarshalJSON([]byte(in.(string))) },
	"scan":  func(in any) error { return new(ID).Scan(in) },
	"bytes": func(in any) error { _, err := FromBytes(in.([]byte)); return err },
}

func TestParseError_Messages(t *testing.T) {
	long := strings.Repeat("2", 1000)
	text := []string{"parse", "text", "scan"}
	tests := []struct {
		name     string
		decoders []string
		in       any
		want     string // the error's text; "" for none
	}{
		{"valid", text, "6ncg4s4c27a24223", ""},
		{"empty", text, "",
			`floe: cannot parse "" as id80: invalid length 0, want 16 characters of 2-9 a-x`},
		{"short", text, "abc",
			`floe: cannot parse "abc" as id80: invalid length 3, want 16 characters of 2-9 a-x`},
		{"one long", text, "6ncg4s4c27a242233",
			`floe: cannot parse "6ncg4s4c27a242233" as id80: invalid length 17, want 16 characters of 2-9 a-x`},
		{"long", text, long,
			`floe: cannot parse "` + long[:64] + `" as id80: invalid length 1000, want 16 characters of 2-9 a-x`},
		{"bad byte at the start", text, "!ncg4s4c27a24223",
			`floe: cannot parse "!ncg4s4c27a24223" as id80: invalid character '!' at offset 0, want 2-9 a-x`},
		{"bad byte in the middle", text, "9qad!fh223ht2222",
			`floe: cannot parse "9qad!fh223ht2222" as id80: invalid character '!' at offset 4, want 2-9 a-x`},
		{"bad byte at the end", text, "6ncg4s4c27a2422!",
			`floe: cannot parse "6ncg4s4c27a2422!" as id80: invalid character '!' at offset 15, want 2-9 a-x`},
		{"upper case", text, "6NCG4S4C27A24223",
			`floe: cannot parse "6NCG4S4C27A24223" as id80: invalid character 'N' at offset 1, want 2-9 a-x`},
		{"letter past x", text, "6ncg4s4c27a2y223",
			`floe: cannot parse "6ncg4s4c27a2y223" as id80: invalid character 'y' at offset 12, want 2-9 a-x`},
		{"digit below 2", text, "6ncg4s4c17a24223",
			`floe: cannot parse "6ncg4s4c17a24223" as id80: invalid character '1' at offset 8, want 2-9 a-x`},
		{"non-ascii", text, "6ncg4s4c27a242é",
			`floe: cannot parse "6ncg4s4c27a242é" as id80: invalid character 'é' at offset 14, want 2-9 a-x`},
		{"nul", text, "6ncg4s4c\x0027a2422",
			`floe: cannot parse "6ncg4s4c\x0027a2422" as id80: invalid character '\x00' at offset 8, want 2-9 a-x`},
		{"not utf-8", text, "6ncg4s4c27a2422\xff",
			`floe: cannot parse "6ncg4s4c27a2422\xff" as id80: invalid character '\xff' at offset 15, want 2-9 a-x`},

		{"json string", []string{"json"}, `"6ncg4s4c27a24223"`, ""},
		{"json null", []string{"json"}, `null`, ""},
		{"json bad byte", []string{"json"}, `"6ncg4s4c27a2422!"`,
			`floe: cannot parse "6ncg4s4c27a2422!" as id80: invalid character '!' at offset 15, want 2-9 a-x`},
		{"json escaped bad byte", []string{"json"}, `"6ncg4s4c27a2422\u0021"`,
			`floe: cannot parse "6ncg4s4c27a2422!" as id80: invalid character '!' at offset 15, want 2-9 a-x`},
		{"json short", []string{"json"}, `"6ncg"`,
			`floe: cannot parse "6ncg" as id80: invalid length 4, want 16 characters of 2-9 a-x`},
		{"json number", []string{"json"}, `123`,
			`floe: cannot parse "123" as id80: invalid character '1' at offset 0, want a JSON string or null`},
		{"json empty input", []string{"json"}, ``,
			`floe: cannot parse "" as id80: invalid character: input ends at offset 0, want a JSON string or null`},
		{"json one quote", []string{"json"}, `"`,
			`floe: cannot parse "\"" as id80: invalid character: input ends at offset 1, want a JSON string or null`},
		{"json null in capitals", []string{"json"}, `NULL`,
			`floe: cannot parse "NULL" as id80: invalid character 'N' at offset 0, want a JSON string or null`},
		{"json null cut short", []string{"json"}, `nul`,
			`floe: cannot parse "nul" as id80: invalid character: input ends at offset 3, want a JSON string or null`},
		{"json bad escape", []string{"json"}, `"\x36ncg4s4c27a24223"`,
			`floe: cannot parse "\"\\x36ncg4s4c27a24223\"" as id80: invalid character 'x' at offset 2, want a JSON string or null`},

		{"scan raw bytes", []string{"scan"}, []byte{0x25, 0x54, 0xe1, 0x68, 0x4a, 0x01, 0x50, 0x01, 0x00, 0x01}, ""},
		{"scan int64", []string{"scan"}, int64(1),
			`floe: cannot parse "int64" as id80: unsupported type, want string, []byte or nil`},
		{"scan 11 bytes", []string{"scan"}, make([]byte, 11),
			`floe: cannot parse "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" as id80: invalid length 11, want 16 characters of 2-9 a-x or 10 bytes`},
		{"scan bytes with a bad byte", []string{"scan"}, []byte("6ncg4s4c27a2422!"),
			`floe: cannot parse "6ncg4s4c27a2422!" as id80: invalid character '!' at offset 15, want 2-9 a-x`},

		{"10 bytes", []string{"bytes"}, make([]byte, 10), ""},
		{"9 bytes", []string{"bytes"}, make([]byte, 9),
			`floe: cannot parse "\x00\x00\x00\x00\x00\x00\x00\x00\x00" as id80: invalid length 9, want 10 bytes`},
		{"text as bytes", []string{"bytes"}, []byte("6ncg4s4c27a24223"),
			`floe: cannot parse "6ncg4s4c27a24223" as id80: invalid length 16, want 10 bytes`},
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

// checkFailure fails unless err is a *floe.ParseError for id80 wrapping
// reason, with Input the start of input.
func checkFailure(t *testing.T, err error, reason error, input []byte) *floe.ParseError {
	t.Helper()
	var pe *floe.ParseError
	if !errors.As(err, &pe) || pe.Format != "id80" || !errors.Is(err, reason) {
		t.Fatalf("error %v (%T), want an id80 *floe.ParseError wrapping %v", err, err, reason)
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
	if len(text) != EncodedSize {
		pe := checkFailure(t, err, floe.ErrInvalidLength, text)
		if pe.Length != len(text) || pe.Offset != -1 || pe.Want != lengths {
			t.Fatalf("error %v for %q: %+v, want length %d", err, text, *pe, len(text))
		}
		return
	}
	i := bytes.IndexFunc(text, func(r rune) bool { return r >= utf8.RuneSelf || strings.IndexByte(alphabet, byte(r)) < 0 })
	pe := checkFailure(t, err, floe.ErrInvalidCharacter, text)
	if i < 0 || pe.Offset != i || pe.Char != charAt(text, i) || pe.Length != -1 || pe.Want != "2-9 a-x" {
		t.Fatalf("error %v for %q: %+v, want the character %q at offset %d", err, text, *pe, charAt(text, i), i)
	}
}

// checkJSONSyntaxFailure fails unless err points at the first byte of b
// that no JSON string or null can have there, or at its end when b stops
// short.
func checkJSONSyntaxFailure(t *testing.T, err error, b []byte) {
	t.Helper()
	pe := checkFailure(t, err, floe.ErrInvalidCharacter, b)
	if pe.Offset < 0 || pe.Offset > len(b) || pe.Char != charAt(b, pe.Offset) || pe.Length != -1 || pe.Want != "a JSON string or null" {
		t.Fatalf("error %v for %q: %+v, want the offset where it stops being JSON", err, b, *pe)
	}
	if pe.Offset > 0 && !jsonStart(b[:pe.Offset]) {
		t.Fatalf("error %v for %q: %q before the offset starts no JSON string or null", err, b, b[:pe.Offset])
	}
	if pe.Offset < len(b) && jsonStart(b[:pe.Offset+1]) {
		t.Fatalf("error %v for %q: %q, to the offset, starts a JSON string or null", err, b, b[:pe.Offset+1])
	}
}

// jsonStart reports whether p is the start of null or of a JSON string:
// whether one of the endings that close a string, an escape or a \u escape
// makes it a whole one.
func jsonStart(p []byte) bool {
	if strings.HasPrefix("null", string(p)) {
		return true
	}
	for _, end := range []string{"", `"`, `n"`, `0"`, `00"`, `000"`, `0000"`} {
		q := append(bytes.Clone(p), end...)
		var s string
		if len(q) >= 2 && q[0] == '"' && q[len(q)-1] == '"' && json.Unmarshal(q, &s) == nil {
			return true
		}
	}
	return false
}

// charAt returns the character of s at byte i: a rune, or the one byte
// there when it does not start one; "" at the end of s.
func charAt(s []byte, i int) string {
	if i >= len(s) {
		return ""
	}
	_, n := utf8.DecodeRune(s[i:])
	return string(s[i : i+n])
}
