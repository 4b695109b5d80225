package id64

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/floeid/floe"
)

// checkDecodeFailure fails unless err is a *floe.ParseError for id64
// wrapping one of floe's decode sentinels.
func checkDecodeFailure(t *testing.T, err error) {
	t.Helper()
	var pe *floe.ParseError
	if !errors.As(err, &pe) || pe.Format != "id64" {
		t.Fatalf("error %v (%T) is not an id64 *floe.ParseError", err, err)
	}
	for _, s := range []error{floe.ErrInvalidLength, floe.ErrInvalidCharacter, floe.ErrOutOfRange, floe.ErrUnsupportedType} {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error %v wraps none of floe's decode sentinels", err)
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
			checkDecodeFailure(t, err)
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
			checkDecodeFailure(t, err)
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
			checkDecodeFailure(t, err)
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
			checkDecodeFailure(t, err)
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
			checkDecodeFailure(t, err)
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
