package id128_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/internal/textid/parsetest"
)

// seeds are texts for every fuzz target: each form, each kind of refusal.
var seeds = []string{
	rfcV7, strings.ToUpper(rfcV7), "{" + rfcV7 + "}", "urn:uuid:" + rfcV7,
	strings.ReplaceAll(rfcV7, "-", ""), rfcV1, rfcV4, rfcV6,
	"00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
	"017f22e2-79b0-7cc3-98c4-dc0c0c07398g", "017f22e2_79b0-7cc3-98c4-dc0c0c07398f",
	"(" + rfcV7 + ")", "urn:uuie:" + rfcV7, "", "0",
}

// oracle reads s as RFC 9562 and google/uuid describe it, the slow way:
// the 32 digits of a form Parse accepts, lower-cased, and whether they are
// a version-7 UUID of variant 10.
func oracle(s string) (digits string, v7, ok bool) {
	switch {
	case len(s) == 38 && s[0] == '{' && s[37] == '}':
		s = s[1:37]
	case len(s) == 45 && strings.EqualFold(s[:9], "urn:uuid:"):
		s = s[9:]
	}
	switch len(s) {
	case 36:
		for _, i := range []int{8, 13, 18, 23} {
			if s[i] != '-' {
				return "", false, false
			}
		}
		s = strings.ReplaceAll(s, "-", "")
		if len(s) != 32 {
			return "", false, false
		}
	case 32:
	default:
		return "", false, false
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return "", false, false
	}
	return strings.ToLower(s), b[6]>>4 == 7 && b[8]>>6 == 2, true
}

// checkText fails unless the outcome of decoding s, id and err, is what
// the oracle says.
func checkText(t *testing.T, s string, id id128.ID, err error, reasons ...error) {
	t.Helper()
	digits, v7, ok := oracle(s)
	if err != nil {
		if ok && v7 {
			t.Fatalf("%q refused: %v", s, err)
		}
		if ok {
			reasons = []error{id128.ErrVersion}
		}
		parsetest.Failure(t, err, "id128", s, reasons...)
		return
	}
	if !ok || !v7 {
		t.Fatalf("%q accepted as %v; the oracle says form %v, version 7 %v", s, id, ok, v7)
	}
	if got := strings.ReplaceAll(id.String(), "-", ""); got != digits {
		t.Fatalf("%q read as %v", s, id)
	}
}

var textReasons = []error{floe.ErrInvalidLength, floe.ErrInvalidCharacter}

func FuzzParse(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := id128.Parse(s)
		if err != nil && !id.IsZero() {
			t.Fatalf("Parse(%q) = %v with error %v", s, id, err)
		}
		checkText(t, s, id, err, textReasons...)
	})
}

func FuzzUnmarshalText(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		var id id128.ID
		err := id.UnmarshalText(text)
		if err != nil && !id.IsZero() {
			t.Fatalf("UnmarshalText(%q) changed the ID on error %v", text, err)
		}
		checkText(t, string(text), id, err, textReasons...)
	})
}

func FuzzUnmarshalBinary(f *testing.F) {
	for _, s := range seeds {
		if _, _, ok := oracle(s); ok {
			d, _, _ := oracle(s)
			b, _ := hex.DecodeString(d)
			f.Add(b)
		}
	}
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		var id id128.ID
		err := id.UnmarshalBinary(data)
		if err != nil {
			if !id.IsZero() {
				t.Fatalf("UnmarshalBinary(%x) changed the ID on error %v", data, err)
			}
			if len(data) != id128.Size {
				parsetest.LengthFailure(t, err, "id128", data, len(data), "16 bytes")
				return
			}
			if data[6]>>4 == 7 && data[8]>>6 == 2 {
				t.Fatalf("UnmarshalBinary(%x) refused a version-7 UUID: %v", data, err)
			}
			parsetest.Failure(t, err, "id128", data, id128.ErrVersion)
			return
		}
		if got, _ := id.MarshalBinary(); !bytes.Equal(got, data) {
			t.Fatalf("UnmarshalBinary(%x) re-encodes as %x", data, got)
		}
		if back, err := id128.Parse(id.String()); err != nil || back != id {
			t.Fatalf("text round trip of %x = %v, %v", data, back, err)
		}
	})
}

func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(`"` + s + `"`))
	}
	f.Add([]byte(`"\u0030` + rfcV7[1:] + `"`))
	f.Add([]byte("null"))
	f.Add([]byte("12"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var id id128.ID
		err := id.UnmarshalJSON(data)
		if string(data) == "null" {
			if err != nil || !id.IsZero() {
				t.Fatalf("null = %v, %v", id, err)
			}
			return
		}
		if err != nil && !id.IsZero() {
			t.Fatalf("UnmarshalJSON(%q) changed the ID on error %v", data, err)
		}
		var s string
		if json.Unmarshal(data, &s) != nil {
			if err == nil {
				t.Fatalf("UnmarshalJSON accepted %q, which is not a JSON string", data)
			}
			// textid.Unquote takes a quoted run without escapes as it is,
			// even one that is no valid JSON (a bare " or a control
			// character inside), so the error may name the text instead.
			parsetest.Failure(t, err, "id128", data, textReasons...)
			return
		}
		if err != nil {
			// The error is about data, the JSON, not the string in it.
			_, v7, ok := oracle(s)
			if ok && v7 {
				t.Fatalf("%q refused: %v", data, err)
			}
			reasons := textReasons
			if ok {
				reasons = []error{id128.ErrVersion}
			}
			parsetest.Failure(t, err, "id128", data, reasons...)
			return
		}
		checkText(t, s, id, nil)
	})
}

func FuzzScan(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, raw bool) {
		var id id128.ID
		var src any = s
		if raw {
			src = []byte(s)
		}
		err := id.Scan(src)
		if err != nil && !id.IsZero() {
			t.Fatalf("Scan(%q) changed the ID on error %v", s, err)
		}
		if raw && len(s) == id128.Size {
			var want id128.ID
			if werr := want.UnmarshalBinary([]byte(s)); (werr == nil) != (err == nil) || want != id {
				t.Fatalf("Scan of 16 bytes %x = %v, %v; UnmarshalBinary gives %v, %v", s, id, err, want, werr)
			}
			return
		}
		checkText(t, s, id, err, textReasons...)
	})
}

func FuzzParseUUID(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Add("000003e8-9414-21ec-b300-9f6bdeced846")   // version 2
	f.Add("{00020906-0000-0000-C000-000000000046}") // Microsoft's variant
	f.Add("ffffffff-ffff-6fff-8000-000000000000")   // the last Gregorian time
	f.Fuzz(func(t *testing.T, s string) {
		u, err := id128.ParseUUID(s)
		digits, v7, ok := oracle(s)
		if err != nil {
			if ok || !u.IsNil() {
				t.Fatalf("ParseUUID(%q) = %v, %v; the oracle reads %s", s, u, err, digits)
			}
			parsetest.Failure(t, err, "uuid", s, textReasons...)
			return
		}
		if !ok || strings.ReplaceAll(u.String(), "-", "") != digits {
			t.Fatalf("ParseUUID(%q) = %v; the oracle reads %q (%t)", s, u, digits, ok)
		}
		if back, err := id128.ParseUUID(u.String()); err != nil || back != u {
			t.Fatalf("round trip of %v = %v, %v", u, back, err)
		}
		if u.Version() != int(u[6]>>4) || u.Kind() == "" {
			t.Fatalf("%v: version %d, kind %q", u, u.Version(), u.Kind())
		}
		v := u.Version()
		timed := u.Variant() == id128.VariantRFC9562 && (v == 1 || v == 2 || v == 6 || v == 7)
		tm, has := u.Time()
		if has != timed || has != (u.TimeUnit() > 0) {
			t.Fatalf("%v (version %d, variant %v): Time() = %v, %t; TimeUnit() = %v", u, u.Version(), u.Variant(), tm, has, u.TimeUnit())
		}
		if has && (tm.Location() != time.UTC || tm.Before(time.Date(1582, 10, 15, 0, 0, 0, 0, time.UTC)) || !tm.Before(time.UnixMilli(1<<48).UTC())) {
			t.Fatalf("%v: time %v out of the range of every version", u, tm)
		}
		id, err := u.ID()
		pid, perr := id128.Parse(s)
		if (err == nil) != v7 || (perr == nil) != v7 || id != pid {
			t.Fatalf("%v: ID() = %v, %v; Parse = %v, %v; the oracle says version 7 %t", u, id, err, pid, perr, v7)
		}
		if v7 && !id.Time().Equal(tm) {
			t.Fatalf("%v: Time() = %v, the ID's %v", u, tm, id.Time())
		}
	})
}
