package id64

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid"
	"github.com/floeid/floe/internal/textid/parsetest"
)

// checkDecodeFailure fails unless err is a *floe.ParseError for id64
// wrapping one of floe's decode sentinels, with Input the start of input.
func checkDecodeFailure(t *testing.T, err error, input string) *floe.ParseError {
	t.Helper()
	return parsetest.Failure(t, err, "id64", input, floe.ErrInvalidLength, floe.ErrInvalidCharacter, floe.ErrOutOfRange, floe.ErrUnsupportedType)
}

// checkTextFailure fails unless err is the error for text, which Parse
// refused, as a byte-by-byte reading of text explains it.
func checkTextFailure(t *testing.T, err error, text string) {
	t.Helper()
	checkDigitsFailure(t, err, text, text, 0)
}

// checkScanTextFailure fails unless err, Scan's error for the text s,
// explains why s is neither the decimal text of an ID nor a negative
// decimal of 64 bits.
func checkScanTextFailure(t *testing.T, err error, s string) {
	t.Helper()
	neg, ok := strings.CutPrefix(s, "-")
	if !ok {
		checkTextFailure(t, err, s)
		return
	}
	if strings.IndexFunc(neg, func(r rune) bool { return r < '0' || r > '9' }) >= 0 || len(neg) == 0 || len(neg) > 20 {
		checkDigitsFailure(t, err, s, neg, 1)
		return
	}
	pe := parsetest.Failure(t, err, "id64", s, floe.ErrOutOfRange)
	if _, err := strconv.ParseInt(s, 10, 64); err == nil || pe.Want != "-9223372036854775808 to -1 (a signed 64-bit integer)" {
		t.Fatalf("error %v for %q: %+v, want out of range", pe, s, *pe)
	}
}

// checkDigitsFailure fails unless err, the error for input, explains why
// digits is not the decimal text of an ID: the first byte that is not a
// digit, else the length, else the value. digits is the text of input from
// byte start on, or the contents of a JSON string with no such byte.
func checkDigitsFailure(t *testing.T, err error, input, digits string, start int) {
	t.Helper()
	i := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' })
	switch {
	case i >= 0:
		parsetest.CharFailure(t, err, "id64", input, start+i, parsetest.CharAt(digits, i), "0-9")
	case len(digits) == 0 || len(digits) > 20:
		parsetest.LengthFailure(t, err, "id64", input, len(digits), "1 to 20 digits")
	default:
		pe := parsetest.Failure(t, err, "id64", input, floe.ErrOutOfRange)
		if _, err := strconv.ParseUint(digits, 10, 64); err == nil || pe.Offset != -1 || pe.Length != -1 {
			t.Fatalf("error %v for %q: %+v, want out of range", pe, digits, *pe)
		}
	}
}

// checkJSONFailure fails unless err is the error for b, which UnmarshalJSON
// refused, as a reading of b with encoding/json explains it.
func checkJSONFailure(t *testing.T, err error, b []byte) {
	t.Helper()
	pe := checkDecodeFailure(t, err, string(b))
	switch {
	case len(b) == 0:
		checkDigitsFailure(t, err, "", "", 0)
	case b[0] == '"':
		contents, ok := textid.Unquote(b)
		if !ok {
			parsetest.JSONSyntaxFailure(t, err, "id64", b, "a JSON string, number or null")
			return
		}
		i := bytes.IndexFunc(contents, func(r rune) bool { return r < '0' || r > '9' })
		if i < 0 {
			checkDigitsFailure(t, err, string(b), string(contents), 0)
			return
		}
		if !errors.Is(pe, floe.ErrInvalidCharacter) || pe.Char != parsetest.CharAt(contents, i) || pe.Want != "0-9" {
			t.Fatalf("error %v for %s: %+v, want the character %q", pe, b, *pe, parsetest.CharAt(contents, i))
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
		checkDigitsFailure(t, err, string(b), string(b[1:]), 1)
	case b[0] == '0' && len(b) > 1:
		want := "0-9"
		if b[1]-'0' <= 9 {
			want = "a JSON number without leading zeros"
		}
		parsetest.CharFailure(t, err, "id64", b, 1, parsetest.CharAt(b, 1), want)
	case b[0] >= '0' && b[0] <= '9':
		checkDigitsFailure(t, err, string(b), string(b), 0)
	default:
		parsetest.JSONSyntaxFailure(t, err, "id64", b, "a JSON string, number or null")
	}
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
			parsetest.LengthFailure(t, err, "id64", b, len(b), "8 bytes")
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
				checkScanTextFailure(t, err, s)
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
			if uint64(id) != uint64(i) {
				t.Fatalf("Scan(int64 %d) gave %d", i, id)
			}
		case scanUint64:
			if uint64(id) != u {
				t.Fatalf("Scan(uint64 %d) gave %d", u, id)
			}
		case scanString, scanBytes:
			if neg, ok := strings.CutPrefix(s, "-"); ok {
				v, err := strconv.ParseInt(s, 10, 64)
				if err != nil || uint64(id) != uint64(v) || len(neg) > 20 {
					t.Fatalf("Scan(%q) gave %d, want the two's complement of %d (%v)", s, id, v, err)
				}
				break
			}
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
