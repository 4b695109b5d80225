package id128_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/internal/textid/parsetest"
)

// rfcTime is the time of RFC 9562's examples of versions 1, 6 and 7:
// Tuesday, February 22, 2022 2:22:22 PM GMT-05:00.
var rfcTime = time.Date(2022, 2, 22, 19, 22, 22, 0, time.UTC)

func TestParseUUID(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		version int
		variant id128.Variant
		time    time.Time // the zero time for none
		unit    time.Duration
		kind    string
	}{
		// RFC 9562, Appendix A and B.
		{"rfc 9562 version 1", "C232AB00-9414-11EC-B3C8-9F6BDECED846", 1, id128.VariantRFC9562, rfcTime, 100 * time.Nanosecond, "Gregorian time and node"},
		{"rfc 9562 version 3", "5df41881-3aed-3515-88a7-2f4a814cf09e", 3, id128.VariantRFC9562, time.Time{}, 0, "name-based (MD5), no time"},
		{"rfc 9562 version 4", "919108f7-52d1-4320-9bac-f847db4148a8", 4, id128.VariantRFC9562, time.Time{}, 0, "random, no time"},
		{"rfc 9562 version 5", "2ed6657d-e927-568b-95e1-2665a8aea6a2", 5, id128.VariantRFC9562, time.Time{}, 0, "name-based (SHA-1), no time"},
		{"rfc 9562 version 6", "1EC9414C-232A-6B00-B3C8-9F6BDECED846", 6, id128.VariantRFC9562, rfcTime, 100 * time.Nanosecond, "reordered Gregorian time and node"},
		{"rfc 9562 version 7", "017F22E2-79B0-7CC3-98C4-DC0C0C07398F", 7, id128.VariantRFC9562, rfcTime, time.Millisecond, "Unix time in milliseconds"},
		{"rfc 9562 version 8, time-based", "2489E9AD-2EE2-8E00-8EC9-32D5F69181C0", 8, id128.VariantRFC9562, time.Time{}, 0, "custom, no time"},
		{"rfc 9562 version 8, name-based", "5c146b14-3c52-8afd-938a-375d0df1fbf6", 8, id128.VariantRFC9562, time.Time{}, 0, "custom, no time"},
		{"nil", "00000000-0000-0000-0000-000000000000", 0, id128.VariantNCS, time.Time{}, 0, "the nil UUID"},
		{"max", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", 15, id128.VariantFuture, time.Time{}, 0, "the max UUID"},
		// RFC 4122's namespace for DNS names, made in 1998 by version 1.
		{"namespace dns", "6ba7b810-9dad-11d1-80b4-00c04fd430c8", 1, id128.VariantRFC9562, at("1998-02-04T22:13:53.1511824Z"), 100 * time.Nanosecond, "Gregorian time and node"},
		// The version-1 example as DCE Security would write it: user ID
		// 1000 in place of the low 32 bits of the time, domain 0 (person)
		// in place of the low byte of the clock sequence.
		{"version 2", "000003e8-9414-21ec-b300-9f6bdeced846", 2, id128.VariantRFC9562, at("2022-02-22T19:16:56.1899520Z"), (1 << 32) * 100 * time.Nanosecond, "DCE Security, time truncated to 7m9.4967296s"},
		// The largest and smallest Gregorian times.
		{"version 6, largest time", "ffffffff-ffff-6fff-8000-000000000000", 6, id128.VariantRFC9562, at("5236-03-31T21:21:00.6846975Z"), 100 * time.Nanosecond, "reordered Gregorian time and node"},
		{"version 1, epoch", "00000000-0000-1000-8000-000000000000", 1, id128.VariantRFC9562, at("1582-10-15T00:00:00Z"), 100 * time.Nanosecond, "Gregorian time and node"},
		{"version 7, largest time", "ffffffff-ffff-7fff-bfff-ffffffffffff", 7, id128.VariantRFC9562, time.UnixMilli(1<<48 - 1).UTC(), time.Millisecond, "Unix time in milliseconds"},
		{"unassigned version", "017f22e2-79b0-9cc3-98c4-dc0c0c07398f", 9, id128.VariantRFC9562, time.Time{}, 0, "unassigned version 9, no time"},
		{"version 0", "017f22e2-79b0-0cc3-98c4-dc0c0c07398f", 0, id128.VariantRFC9562, time.Time{}, 0, "unassigned version 0, no time"},
		// A Microsoft COM class ID: Word.Document.8.
		{"microsoft", "{00020906-0000-0000-C000-000000000046}", 0, id128.VariantMicrosoft, time.Time{}, 0, "Microsoft variant (reserved), no version, no time"},
		{"ncs", "017f22e2-79b0-7cc3-18c4-dc0c0c07398f", 7, id128.VariantNCS, time.Time{}, 0, "NCS variant (reserved), no version, no time"},
		{"future", "017f22e2-79b0-7cc3-e8c4-dc0c0c07398f", 7, id128.VariantFuture, time.Time{}, 0, "variant reserved for the future, no version, no time"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := id128.ParseUUID(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := u.String(), strings.ToLower(strings.Trim(tc.text, "{}")); got != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
			if got := u.Version(); got != tc.version {
				t.Errorf("Version() = %d, want %d", got, tc.version)
			}
			if got := u.Variant(); got != tc.variant {
				t.Errorf("Variant() = %v, want %v", got, tc.variant)
			}
			got, ok := u.Time()
			if tc.time.IsZero() {
				if ok || !got.IsZero() {
					t.Errorf("Time() = %v, %t, want none", got, ok)
				}
			} else if !ok || !got.Equal(tc.time) || got.Location() != time.UTC {
				t.Errorf("Time() = %v, %t, want %v in UTC", got, ok, tc.time)
			}
			if got := u.TimeUnit(); got != tc.unit {
				t.Errorf("TimeUnit() = %v, want %v", got, tc.unit)
			}
			if got := u.Kind(); got != tc.kind {
				t.Errorf("Kind() = %q, want %q", got, tc.kind)
			}
			if got, want := u.IsNil(), tc.name == "nil"; got != want {
				t.Errorf("IsNil() = %t, want %t", got, want)
			}
			if got, want := u.IsMax(), tc.name == "max"; got != want {
				t.Errorf("IsMax() = %t, want %t", got, want)
			}
			id, err := u.ID()
			if tc.version == 7 && tc.variant == id128.VariantRFC9562 {
				if err != nil || id != id128.MustParse(tc.text) {
					t.Errorf("ID() = %v, %v, want the ID", id, err)
				}
				return
			}
			var ve *id128.VersionError
			if !errors.As(err, &ve) || !id.IsZero() {
				t.Errorf("ID() = %v, %v, want a *VersionError", id, err)
			}
			if _, perr := id128.Parse(tc.text); !errors.As(perr, &ve) || perr.Error() == "" {
				t.Errorf("Parse(%q) = %v, want a *VersionError", tc.text, perr)
			}
		})
	}
}

// at returns the time of the RFC 3339 text s.
func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParseUUID_Forms(t *testing.T) {
	want := id128.UUID(id128.MustParse(rfcV7))
	v1 := rfcV1
	for _, s := range []string{
		rfcV7, strings.ToUpper(rfcV7), "{" + rfcV7 + "}", "urn:uuid:" + rfcV7,
		"URN:UUID:" + strings.ToUpper(rfcV7), strings.ReplaceAll(rfcV7, "-", ""),
	} {
		if got, err := id128.ParseUUID(s); err != nil || got != want {
			t.Errorf("ParseUUID(%q) = %v, %v, want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"{" + v1 + "}", "urn:uuid:" + v1, strings.ReplaceAll(v1, "-", "")} {
		if got, err := id128.ParseUUID(s); err != nil || got.String() != v1 {
			t.Errorf("ParseUUID(%q) = %v, %v, want %v", s, got, err, v1)
		}
	}
}

func TestParseUUID_Errors(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string
	}{
		{"empty", "", `floe: cannot parse "" as uuid: invalid length 0, want 36 characters (8-4-4-4-12 hexadecimal digits), 38 in braces, 45 after urn:uuid: or 32 digits`},
		{"bad digit", "c232ab00-9414-11ec-b3c8-9f6bdeced84g", `floe: cannot parse "c232ab00-9414-11ec-b3c8-9f6bdeced84g" as uuid: invalid character 'g' at offset 35, want 0-9 a-f A-F`},
		{"no dash", "c232ab00-9414-11ec_b3c8-9f6bdeced846", `floe: cannot parse "c232ab00-9414-11ec_b3c8-9f6bdeced846" as uuid: invalid character '_' at offset 18, want -`},
		{"bad urn", "urn:uuie:" + rfcV1, `floe: cannot parse "urn:uuie:` + rfcV1 + `" as uuid: invalid character 'e' at offset 7, want urn:uuid:`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := id128.ParseUUID(tc.text)
			if err == nil || err.Error() != tc.want || !u.IsNil() {
				t.Fatalf("ParseUUID(%q) = %v, %v, want error %q", tc.text, u, err, tc.want)
			}
			parsetest.Failure(t, err, "uuid", tc.text, floe.ErrInvalidLength, floe.ErrInvalidCharacter)
		})
	}
}

func TestParseUUID_Allocs(t *testing.T) {
	var sink time.Time
	got := testing.AllocsPerRun(100, func() {
		u, _ := id128.ParseUUID(rfcV1)
		sink, _ = u.Time()
		_ = u.Kind()
	})
	if got != 0 {
		t.Errorf("ParseUUID, Time and Kind: %v allocations, want 0", got)
	}
	_ = sink
}

func BenchmarkParseUUID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		u, err := id128.ParseUUID(rfcV6)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := u.Time(); !ok {
			b.Fatal("no time")
		}
	}
}
