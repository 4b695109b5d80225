package id64

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid"
)

// checkDecodeFailure fails unless err is a *floe.ParseError for id64
// wrapping one of floe's decode sentinels, with Input the start of input.
func checkDecodeFailure(t *testing.T, err error, input string) *floe.ParseError {
	t.Helper()
	var pe *floe.ParseError
	if !errors.As(err, &pe) || pe.Format != "id64" {
		t.Fatalf("error %v (%T) is not an id64 *floe.ParseError", err, err)
	}
	if want := input[:min(len(input), 64)]; pe.Input != want {
		t.Fatalf("error %v has Input %q, want %q", err, pe.Input, want)
	}
	for _, s := range []error{floe.ErrInvalidLength, floe.ErrInvalidCharacter, floe.ErrOutOfRange, floe.ErrUnsupportedType} {
		if errors.Is(err, s) {
			return pe
		}
	}
	t.Fatalf("error %v wraps none of floe's decode sentinels", err)
	return nil
}

// checkTextFailure fails unless err is the error for text, which Parse
// refused, as a byte-by-byte reading of text explains it.
func checkTextFailure(t *testing.T, err error, text string) {
	t.Helper()
	checkDigitsFailure(t, checkDecodeFailure(t, err, text), text, 0)
}

// checkDigitsFailure fails unless pe explains why digits, the text of input
// from byte start on, is not the decimal text of an ID: the first byte that
// is not a digit, else the length, else the value.
func checkDigitsFailure(t *testing.T, pe *floe.ParseError, digits string, start int) {
	t.Helper()
	i := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' })
	switch {
	case i >= 0:
		if !errors.Is(pe, floe.ErrInvalidCharacter) || pe.Offset != start+i || pe.Char != charAt(digits, i) || pe.Length != -1 || pe.Want != "0-9" {
			t.Fatalf("error %v for %q: %+v, want the character %q at offset %d", pe, digits, *pe, charAt(digits, i), start+i)
		}
	case len(digits) == 0 || len(digits) > 20:
		if !errors.Is(pe, floe.ErrInvalidLength) || pe.Length != len(digits) || pe.Offset != -1 || pe.Want != "1 to 20 digits" {
			t.Fatalf("error %v for %q: %+v, want length %d", pe, digits, *pe, len(digits))
		}
	default:
		if _, err := strconv.ParseUint(digits, 10, 64); err == nil || !errors.Is(pe, floe.ErrOutOfRange) || pe.Offset != -1 || pe.Length != -1 {
			t.Fatalf("error %v for %q: %+v, want out of range", pe, digits, *pe)
		}
	}
}

// charAt returns the character of s at byte i: a rune, or the one byte
// there when it does not start one; "" at the end of s.
func charAt[T string | []byte](s T, i int) string {
	if i >= len(s) {
		return ""
	}
	_, n := utf8.DecodeRuneInString(string(s[i:]))
	return string(s[i : i+n])
}

// checkJSONFailure fails unless err is the error for b, which UnmarshalJSON
// refused, as a reading of b with encoding/json explains it.
func checkJSONFailure(t *testing.T, err error, b []byte) {
	t.Helper()
	pe := checkDecodeFailure(t, err, string(b))
	switch {
	case len(b) == 0:
		checkDigitsFailure(t, pe, "", 0)
	case b[0] == '"':
		contents, ok := textid.Unquote(b)
		if !ok {
			checkJSONSyntaxFailure(t, pe, b)
			return
		}
		i := bytes.IndexFunc(contents, func(r rune) bool { return r < '0' || r > '9' })
		if i < 0 {
			checkDigitsFailure(t, pe, string(contents), 0)
			return
		}
		if !errors.Is(pe, floe.ErrInvalidCharacter) || pe.Char != charAt(contents, i) || pe.Want != "0-9" {
			t.Fatalf("error %v for %s: %+v, want the character %q", pe, b, *pe, charAt(contents, i))
		}
		// The bytes before Offset are the digits before the character.
		var before string
		if err := json.Unmarshal(append(bytes.Clone(b[:pe.Offset]), '"'), &before); err != nil || before != string(contents[:i]) {
			t.Fatalf("error %v for %s: the JSON before offset %d reads %q, %v; want %q", pe, b, pe.Offset, before, err, contents[:i])
		}
	case b[0] == '-':
		if len(b) > 1 && len(b) <= 21 && strings.Trim(string(b[1:]), "0123456789") == "" {
			if !errors.Is(pe, floe.ErrOutOfRange) {
				t.Fatalf("error %v for %s, want out of range", pe, b)
			}
			return
		}
		checkDigitsFailure(t, pe, string(b[1:]), 1)
	case b[0] == '0' && len(b) > 1:
		want := "0-9"
		if b[1]-'0' <= 9 {
			want = "a JSON number without leading zeros"
		}
		if !errors.Is(pe, floe.ErrInvalidCharacter) || pe.Offset != 1 || pe.Char != charAt(b, 1) || pe.Want != want {
			t.Fatalf("error %v for %s: %+v, want the character after the leading 0", pe, b, *pe)
		}
	case b[0] >= '0' && b[0] <= '9':
		checkDigitsFailure(t, pe, string(b), 0)
	default:
		checkJSONSyntaxFailure(t, pe, b)
	}
}

// checkJSONSyntaxFailure fails unless pe points at the first byte of b that
// no JSON string or null can have there, or at its end when b stops short.
func checkJSONSyntaxFailure(t *testing.T, pe *floe.ParseError, b []byte) {
	t.Helper()
	if !errors.Is(pe, floe.ErrInvalidCharacter) || pe.Offset < 0 || pe.Offset > len(b) || pe.Char != charAt(b, pe.Offset) || pe.Want != "a JSON string, number or null" {
		t.Fatalf("error %v for %q: %+v, want the offset where it stops being JSON", pe, b, *pe)
	}
	if pe.Offset > 0 && !jsonStart(b[:pe.Offset]) {
		t.Fatalf("error %v for %q: %q before the offset starts no JSON string or null", pe, b, b[:pe.Offset])
	}
	if pe.Offset < len(b) && jsonStart(b[:pe.Offset+1]) {
		t.Fatalf("error %v for %q: %q, to the offset, starts a JSON string or null", pe, b, b[:pe.Offset+1])
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

// checkCanonicalDecimal fails unless id is what the accepted decimal text s
// says: s is 1..20 digits and, without leading zeros, is String.
func checkCanonicalDecimal(t *testing.T, s string, id ID) {
	t.Helper()
	if len(s) == 0 || len(s) > 20 {
		t.Fatalf("accepted %q of length %d", s, len(s))
	}
	canonical := strings.TrimLeft(s, "0")
	if canonical == "" {
		canonical = "0"
	}
	if got := id.String(); got != canonical {
		t.Fatalf("%q decoded to %s, want %s", s, got, canonical)
	}
	if got, err := Parse(id.PaddedString()); err != nil || got != id {
		t.Fatalf("Parse(PaddedString()) = %d, %v; want %d", got, err, id)
	}
}

func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.in)
	}
	for _, g := range goldenDecimal {
		f.Add(g.text)
		f.Add(g.padded)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := Parse(s)
		if err != nil {
			checkTextFailure(t, err, s)
			return
		}
		checkCanonicalDecimal(t, s, id)
		text, _ := id.MarshalText()
		if again, err := Parse(string(text)); err != nil || again != id {
			t.Fatalf("Parse(MarshalText()) = %d, %v; want %d", again, err, id)
		}
	})
}

func FuzzUnmarshalText(f *testing.F) {
	for _, tt := range parseTests {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var id ID
		err := id.UnmarshalText(b)
		parsed, perr := Parse(string(b))
		if (err == nil) != (perr == nil) || parsed != id {
			t.Fatalf("UnmarshalText and Parse disagree on %q: %d, %v vs %d, %v", b, id, err, parsed, perr)
		}
		if err != nil {
			checkTextFailure(t, err, string(b))
			if err.Error() != perr.Error() {
				t.Fatalf("UnmarshalText and Parse disagree on %q: %v vs %v", b, err, perr)
			}
			return
		}
		checkCanonicalDecimal(t, string(b), id)
	})
}

func FuzzUnmarshalBinary(f *testing.F) {
	for _, tt := range binaryTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var id ID
		err := id.UnmarshalBinary(b)
		if err != nil {
			if len(b) == 8 {
				t.Fatalf("UnmarshalBinary(%x) = %v", b, err)
			}
			pe := checkDecodeFailure(t, err, string(b))
			if !errors.Is(err, floe.ErrInvalidLength) || pe.Length != len(b) || pe.Offset != -1 || pe.Want != "8 bytes" {
				t.Fatalf("UnmarshalBinary(%x) = %v: %+v, want length %d", b, err, *pe, len(b))
			}
			return
		}
		if got := id.Bytes(); !bytes.Equal(got, b) {
			t.Fatalf("Bytes() = %x, want %x", got, b)
		}
		if got, err := FromBytes(b); err != nil || got != id {
			t.Fatalf("FromBytes(%x) = %d, %v; want %d", b, got, err, id)
		}
	})
}

func FuzzUnmarshalJSON(f *testing.F) {
	for _, tt := range jsonTests {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		id := ID(77)
		err := id.UnmarshalJSON(b)
		if err != nil {
			checkJSONFailure(t, err, b)
			if id != 77 {
				t.Fatalf("failed UnmarshalJSON(%s) changed the ID to %d", b, id)
			}
			return
		}
		if string(b) == "null" {
			if id != 77 {
				t.Fatalf("null changed the ID to %d", id)
			}
			return
		}
		switch {
		case b[0] != '"':
			if got := id.String(); got != string(b) {
				t.Fatalf("number %s decoded to %s", b, got)
			}
		case !bytes.Contains(b, []byte{'\\'}):
			checkCanonicalDecimal(t, string(b[1:len(b)-1]), id)
		}
		out, err := id.MarshalJSON()
		if err != nil || string(out) != `"`+id.String()+`"` {
			t.Fatalf("MarshalJSON() = %s, %v", out, err)
		}
		// encoding/json agrees on valid JSON.
		if json.Valid(b) {
			var viaJSON ID
			if err := json.Unmarshal(b, &viaJSON); err != nil || viaJSON != id {
				t.Fatalf("json.Unmarshal(%s) = %d, %v; want %d", b, viaJSON, err, id)
			}
		}
	})
}

// scanKinds are the database value types FuzzScan builds from its inputs.
const (
	scanNil = iota
	scanInt64
	scanUint64
	scanString
	scanBytes
	scanFloat64
	scanKinds
)

func FuzzScan(f *testing.F) {
	for _, tt := range scanTests {
		switch v := tt.src.(type) {
		case nil:
			f.Add(uint8(scanNil), int64(0), uint64(0), "")
		case int64:
			f.Add(uint8(scanInt64), v, uint64(0), "")
		case uint64:
			f.Add(uint8(scanUint64), int64(0), v, "")
		case string:
			f.Add(uint8(scanString), int64(0), uint64(0), v)
		case []byte:
			f.Add(uint8(scanBytes), int64(0), uint64(0), string(v))
		default:
			f.Add(uint8(scanFloat64), int64(1), uint64(0), "")
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, i int64, u uint64, s string) {
		var src any
		switch kind % scanKinds {
		case scanInt64:
			src = i
		case scanUint64:
			src = u
		case scanString:
			src = s
		case scanBytes:
			src = []byte(s)
		case scanFloat64:
			src = float64(i)
		}
		id := ID(77)
		err := id.Scan(src)
		if err != nil {
			switch kind % scanKinds {
			case scanString, scanBytes:
				checkTextFailure(t, err, s)
			case scanInt64:
				pe := checkDecodeFailure(t, err, strconv.FormatInt(i, 10))
				if i >= 0 || !errors.Is(err, floe.ErrOutOfRange) || pe.Want != "0 to 18446744073709551615" {
					t.Fatalf("Scan(int64 %d) = %v", i, err)
				}
			case scanFloat64:
				pe := checkDecodeFailure(t, err, "float64")
				if !errors.Is(err, floe.ErrUnsupportedType) || pe.Want != "int64, uint64, string, []byte or nil" {
					t.Fatalf("Scan(float64) = %v", err)
				}
			default:
				t.Fatalf("Scan(%#v) = %v", src, err)
			}
			if id != 77 {
				t.Fatalf("failed Scan(%#v) changed the ID to %d", src, id)
			}
			return
		}
		switch kind % scanKinds {
		case scanNil:
			if id != 0 {
				t.Fatalf("Scan(nil) gave %d", id)
			}
		case scanInt64:
			if i < 0 || uint64(id) != uint64(i) {
				t.Fatalf("Scan(int64 %d) gave %d", i, id)
			}
		case scanUint64:
			if uint64(id) != u {
				t.Fatalf("Scan(uint64 %d) gave %d", u, id)
			}
		case scanString, scanBytes:
			checkCanonicalDecimal(t, s, id)
		case scanFloat64:
			t.Fatalf("Scan(float64) succeeded")
		}
		v, err := id.Value()
		if err != nil {
			t.Fatal(err)
		}
		var back ID
		if err := back.Scan(v); err != nil || back != id {
			t.Fatalf("Scan(Value()) = %d, %v; want %d", back, err, id)
		}
	})
}
