package id128_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/internal/textid/parsetest"
)

// RFC 9562's examples (Appendix A): a version-7 UUID, and the same time as
// versions 1, 6 and 4.
const (
	rfcV7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"
	rfcV1 = "c232ab00-9414-11ec-b3c8-9f6bdeced846"
	rfcV6 = "1ec9414c-232a-6b00-b3c8-9f6bdeced846"
	rfcV4 = "919108f7-52d1-4320-9bac-f847db4148a8"
)

func TestID_Fields(t *testing.T) {
	id := id128.MustParse(rfcV7)
	want := id128.Parts{
		Time:    time.Date(2022, 2, 22, 19, 22, 22, 0, time.UTC),
		Tick:    0x017f22e279b0,
		Counter: 0xcc3<<6 | 0x18,
		Worker:  0xc4dc,
		Random:  0x0c0c07398f,
	}
	if got := id.Parts(); got != want {
		t.Errorf("Parts() = %+v, want %+v", got, want)
	}
	if got := id.String(); got != rfcV7 {
		t.Errorf("String() = %q, want %q", got, rfcV7)
	}
	if !id.Time().Equal(want.Time) {
		t.Errorf("Time() = %v", id.Time())
	}
}

func TestParse_Forms(t *testing.T) {
	want := id128.MustParse(rfcV7)
	for _, s := range []string{
		rfcV7,
		strings.ToUpper(rfcV7),
		"{" + rfcV7 + "}",
		"urn:uuid:" + rfcV7,
		"URN:UUID:" + strings.ToUpper(rfcV7),
		strings.ReplaceAll(rfcV7, "-", ""),
	} {
		got, err := id128.Parse(s)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", s, got, err, want)
		}
		var id id128.ID
		if err := id.UnmarshalText([]byte(s)); err != nil || id != want {
			t.Errorf("UnmarshalText(%q) = %v, %v", s, id, err)
		}
		if err := id.UnmarshalJSON([]byte(`"` + s + `"`)); err != nil || id != want {
			t.Errorf("UnmarshalJSON(%q) = %v, %v", s, id, err)
		}
		if err := id.Scan(s); err != nil || id != want {
			t.Errorf("Scan(%q) = %v, %v", s, id, err)
		}
	}
}

func TestParse_Version(t *testing.T) {
	tests := []struct {
		name, in string
		want     id128.VersionError
	}{
		{"version 1", rfcV1, id128.VersionError{Version: 1, Variant: id128.VariantRFC9562}},
		{"version 6", rfcV6, id128.VersionError{Version: 6, Variant: id128.VariantRFC9562}},
		{"version 4", rfcV4, id128.VersionError{Version: 4, Variant: id128.VariantRFC9562}},
		{"NCS variant", "017f22e2-79b0-7cc3-18c4-dc0c0c07398f", id128.VersionError{Version: 7, Variant: id128.VariantNCS}},
		{"Microsoft variant", "017f22e2-79b0-7cc3-c8c4-dc0c0c07398f", id128.VersionError{Version: 7, Variant: id128.VariantMicrosoft}},
		{"future variant", "017f22e2-79b0-7cc3-e8c4-dc0c0c07398f", id128.VersionError{Version: 7, Variant: id128.VariantFuture}},
		{"nil", "00000000-0000-0000-0000-000000000000", id128.VersionError{Variant: id128.VariantNCS, Nil: true}},
		{"max", "ffffffff-ffff-ffff-ffff-ffffffffffff", id128.VersionError{Version: 15, Variant: id128.VariantFuture, Max: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := id128.Parse(tc.in)
			var ve *id128.VersionError
			if !errors.As(err, &ve) || *ve != tc.want {
				t.Fatalf("Parse(%q) = %v, want %+v", tc.in, err, tc.want)
			}
			if !errors.Is(err, id128.ErrVersion) || !errors.Is(err, floe.ErrOutOfRange) {
				t.Errorf("%v does not match ErrVersion and floe.ErrOutOfRange", err)
			}
			parsetest.Failure(t, err, "id128", tc.in, id128.ErrVersion)
		})
	}
}

func TestDecoders_Messages(t *testing.T) {
	const (
		wantV   = ", want version 7, variant 10 (RFC 9562)"
		lengths = "36 characters (8-4-4-4-12 hexadecimal digits), 38 in braces, 45 after urn:uuid: or 32 digits"
	)
	all := []string{"parse", "text", "json", "scan"}
	text := []string{"parse", "text", "scan"}
	v1 := id128.ID(must(t, rfcV1))
	parsetest.RunMessages(t, parsetest.NewDecoders(id128.Parse, id128.FromBytes), cases([]msgCase{
		{"canonical", all[:2], rfcV7, ""},
		{"version 1", text, rfcV1, `floe: cannot parse "` + rfcV1 + `" as id128: UUID version 1` + wantV},
		{"version 1 json", []string{"json"}, `"` + rfcV1 + `"`, `floe: cannot parse "\"` + rfcV1 + `\"" as id128: UUID version 1` + wantV},
		{"nil", text, "00000000000000000000000000000000", `floe: cannot parse "00000000000000000000000000000000" as id128: the nil UUID` + wantV},
		{"variant", text, "017f22e2-79b0-7cc3-c8c4-dc0c0c07398f", `floe: cannot parse "017f22e2-79b0-7cc3-c8c4-dc0c0c07398f" as id128: UUID of variant 110 (Microsoft)` + wantV},
		{"short", text, "017f22e2", `floe: cannot parse "017f22e2" as id128: invalid length 8, want ` + lengths},
		{"short json", []string{"json"}, `"017f22e2"`, `floe: cannot parse "\"017f22e2\"" as id128: invalid length 8, want ` + lengths},
		{"short bytes", []string{"scan"}, []byte("017f22e2"), `floe: cannot parse "017f22e2" as id128: invalid length 8, want ` + lengths + ", or 16 bytes"},
		{"bad digit", text, "017f22e2-79b0-7cc3-98c4-dc0c0c07398g", `floe: cannot parse "017f22e2-79b0-7cc3-98c4-dc0c0c07398g" as id128: invalid character 'g' at offset 35, want 0-9 a-f A-F`},
		{"bad digit json", []string{"json"}, `"017f22e2-79b0-7cc3-98c4-dc0c0c07398g"`, `floe: cannot parse "\"017f22e2-79b0-7cc3-98c4-dc0c0c07398g\"" as id128: invalid character 'g' at offset 36, want 0-9 a-f A-F`},
		{"no dash", text, "017f22e2-79b0-7cc3_98c4-dc0c0c07398f", `floe: cannot parse "017f22e2-79b0-7cc3_98c4-dc0c0c07398f" as id128: invalid character '_' at offset 18, want -`},
		{"no brace", text, "(" + rfcV7 + "}", `floe: cannot parse "(` + rfcV7 + `}" as id128: invalid character '(' at offset 0, want {`},
		{"no closing brace", text, "{" + rfcV7 + ")", `floe: cannot parse "{` + rfcV7 + `)" as id128: invalid character ')' at offset 37, want }`},
		{"bad urn", text, "urn:uuie:" + rfcV7, `floe: cannot parse "urn:uuie:` + rfcV7 + `" as id128: invalid character 'e' at offset 7, want urn:uuid:`},
		{"json number", []string{"json"}, `12`, `floe: cannot parse "12" as id128: invalid character '1' at offset 0, want a JSON string or null`},
		{"scan int", []string{"scan"}, 12, `floe: cannot parse "int" as id128: unsupported type, want string, []byte or nil`},
		{"bytes", []string{"bytes", "scan"}, must(t, rfcV7), ""},
		{"bytes of version 1", []string{"bytes", "scan"}, v1[:], "floe: cannot parse " + strconv.Quote(string(v1[:])) + " as id128: UUID version 1" + wantV},
		{"bytes short", []string{"bytes"}, []byte{1, 2}, `floe: cannot parse "\x01\x02" as id128: invalid length 2, want 16 bytes`},
	}))
}

// msgCase is a parsetest.Case, written short.
type msgCase struct {
	name     string
	decoders []string
	in       any
	want     string
}

func cases(cs []msgCase) []parsetest.Case {
	out := make([]parsetest.Case, len(cs))
	for i, c := range cs {
		out[i] = parsetest.Case{Name: c.name, Decoders: c.decoders, In: c.in, Want: c.want}
	}
	return out
}

// must returns the 16 bytes of the UUID text s, of any version.
func must(t *testing.T, s string) []byte {
	t.Helper()
	var b []byte
	for i := 0; i < len(s); i += 2 {
		if s[i] == '-' {
			i--
			continue
		}
		var v byte
		for _, c := range s[i : i+2] {
			v = v<<4 | byte(strings.IndexRune("0123456789abcdef", c))
		}
		b = append(b, v)
	}
	if len(b) != 16 {
		t.Fatalf("must(%q): %d bytes", s, len(b))
	}
	return b
}

func TestMarshal_RoundTrip(t *testing.T) {
	id := id128.MustParse(rfcV7)
	if b, _ := id.MarshalText(); string(b) != rfcV7 {
		t.Errorf("MarshalText() = %q", b)
	}
	if b, _ := id.AppendText([]byte("x")); string(b) != "x"+rfcV7 {
		t.Errorf("AppendText() = %q", b)
	}
	if b, _ := id.MarshalJSON(); string(b) != `"`+rfcV7+`"` {
		t.Errorf("MarshalJSON() = %s", b)
	}
	b, _ := id.MarshalBinary()
	var back id128.ID
	if err := back.UnmarshalBinary(b); err != nil || back != id {
		t.Errorf("binary round trip = %v, %v", back, err)
	}
	if b, _ := id.AppendBinary([]byte{9}); len(b) != 17 || b[0] != 9 || id128.ID(b[1:]) != id {
		t.Errorf("AppendBinary() = %x", b)
	}
	v, _ := id.Value()
	if v != rfcV7 {
		t.Errorf("Value() = %v", v)
	}
	for _, src := range []any{rfcV7, []byte(rfcV7), id.Bytes()} {
		back = id128.ID{}
		if err := back.Scan(src); err != nil || back != id {
			t.Errorf("Scan(%q) = %v, %v", src, back, err)
		}
	}
	if err := back.Scan(nil); err != nil || !back.IsZero() {
		t.Errorf("Scan(nil) = %v, %v", back, err)
	}
	// In a struct, through encoding/json; null leaves the ID unchanged.
	var s struct{ ID id128.ID }
	js, _ := json.Marshal(struct{ ID id128.ID }{id})
	if err := json.Unmarshal(js, &s); err != nil || s.ID != id {
		t.Errorf("json round trip of %s = %v, %v", js, s.ID, err)
	}
	if err := json.Unmarshal([]byte(`{"ID":null}`), &s); err != nil || s.ID != id {
		t.Errorf("null = %v, %v", s.ID, err)
	}
}

func TestID_Compare(t *testing.T) {
	a := id128.MustParse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f")
	b := id128.MustParse("017f22e2-79b0-7cc3-98c4-dc0c0c073990")
	c := id128.MustParse("017f22e2-79b1-7000-8000-000000000000")
	tests := []struct {
		x, y id128.ID
		want int
	}{{a, b, -1}, {b, a, 1}, {a, a, 0}, {b, c, -1}, {c, a, 1}}
	for _, tc := range tests {
		if got := tc.x.Compare(tc.y); got != tc.want {
			t.Errorf("%v.Compare(%v) = %d, want %d", tc.x, tc.y, got, tc.want)
		}
		if got := strings.Compare(tc.x.String(), tc.y.String()); got != tc.want {
			t.Errorf("text of %v and %v compare %d, want %d", tc.x, tc.y, got, tc.want)
		}
	}
	if a.IsZero() || !(id128.ID{}).IsZero() {
		t.Error("IsZero")
	}
}
