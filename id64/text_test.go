package id64

import (
	"errors"
	"testing"

	"github.com/floeid/floe"
)

// goldenDecimal pairs IDs with their decimal and padded forms.
var goldenDecimal = []struct {
	name   string
	id     ID
	text   string
	padded string
}{
	{"zero", 0, "0", "00000000000000000000"},
	{"one", 1, "1", "00000000000000000001"},
	{"nine", 9, "9", "00000000000000000009"},
	{"ten", 10, "10", "00000000000000000010"},
	{"2^53", 1 << 53, "9007199254740992", "00009007199254740992"},
	{"2^53+1", 1<<53 + 1, "9007199254740993", "00009007199254740993"},
	{"twitter id", 1541815603606036480, "1541815603606036480", "01541815603606036480"},
	{"discord docs", 175928847299117063, "175928847299117063", "00175928847299117063"},
	{"icicle spec", 5980618838099710408, "5980618838099710408", "05980618838099710408"},
	{"10^18", 1e18, "1000000000000000000", "01000000000000000000"},
	{"2^63-1", 1<<63 - 1, "9223372036854775807", "09223372036854775807"},
	{"2^63", 1 << 63, "9223372036854775808", "09223372036854775808"},
	{"10^19", 1e19, "10000000000000000000", "10000000000000000000"},
	{"2^64-1", 1<<64 - 1, "18446744073709551615", "18446744073709551615"},
}

// parseTests are decimal inputs and what Parse makes of them; they also seed
// the fuzz targets.
var parseTests = []struct {
	name string
	in   string
	want ID
	err  error
}{
	{"zero", "0", 0, nil},
	{"one", "1", 1, nil},
	{"twitter id", "1541815603606036480", 1541815603606036480, nil},
	{"largest", "18446744073709551615", 1<<64 - 1, nil},
	{"leading zero", "01", 1, nil},
	{"all zeros", "00000000000000000000", 0, nil},
	{"padded", "01541815603606036480", 1541815603606036480, nil},
	{"padded one", "00000000000000000001", 1, nil},
	{"empty", "", 0, floe.ErrInvalidLength},
	{"21 digits", "000000000000000000001", 0, floe.ErrInvalidLength},
	{"one past largest", "18446744073709551616", 0, floe.ErrOutOfRange},
	{"20 nines", "99999999999999999999", 0, floe.ErrOutOfRange},
	{"plus sign", "+1", 0, floe.ErrInvalidCharacter},
	{"minus sign", "-1", 0, floe.ErrInvalidCharacter},
	{"leading space", " 1", 0, floe.ErrInvalidCharacter},
	{"trailing space", "1 ", 0, floe.ErrInvalidCharacter},
	{"trailing newline", "1\n", 0, floe.ErrInvalidCharacter},
	{"hex", "0x1f", 0, floe.ErrInvalidCharacter},
	{"underscore", "1_000", 0, floe.ErrInvalidCharacter},
	{"fraction", "1.0", 0, floe.ErrInvalidCharacter},
	{"exponent", "1e3", 0, floe.ErrInvalidCharacter},
	{"letters", "abc", 0, floe.ErrInvalidCharacter},
	{"long garbage", "123456789012345678901234567890x", 0, floe.ErrInvalidCharacter},
	{"nul byte", "1\x00", 0, floe.ErrInvalidCharacter},
	{"arabic-indic digit", "١", 0, floe.ErrInvalidCharacter},
	{"fullwidth digit", "１", 0, floe.ErrInvalidCharacter},
	{"quoted", `"1"`, 0, floe.ErrInvalidCharacter},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			checkParseError(t, err, tt.err, tt.in)
			if got != tt.want {
				t.Errorf("Parse(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

// checkParseError fails unless err is nil when want is, or a
// *floe.ParseError for input with format id64 wrapping want.
func checkParseError(t *testing.T, err, want error, input string) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("error = %v, want nil", err)
		}
		return
	}
	var pe *floe.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v (%T), want a *floe.ParseError", err, err)
	}
	if !errors.Is(err, want) {
		t.Errorf("error = %v, want it to wrap %v", err, want)
	}
	if pe.Format != "id64" {
		t.Errorf("ParseError.Format = %q, want id64", pe.Format)
	}
	if len(input) <= 64 && pe.Input != input {
		t.Errorf("ParseError.Input = %q, want %q", pe.Input, input)
	}
}

func TestMustParse(t *testing.T) {
	if got := MustParse("42"); got != 42 {
		t.Errorf("MustParse(42) = %d", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("MustParse(x) did not panic")
		}
	}()
	MustParse("x")
}

func TestID_UnmarshalText(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			got := ID(77) // unchanged on error
			err := got.UnmarshalText([]byte(tt.in))
			checkParseError(t, err, tt.err, tt.in)
			want := tt.want
			if tt.err != nil {
				want = 77
			}
			if got != want {
				t.Errorf("UnmarshalText(%q) gave %d, want %d", tt.in, got, want)
			}
		})
	}
}

func TestID_TextRoundTrip(t *testing.T) {
	for _, tt := range goldenDecimal {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.id.String(); got != tt.text {
				t.Errorf("String() = %q, want %q", got, tt.text)
			}
			b, err := tt.id.MarshalText()
			if err != nil || string(b) != tt.text {
				t.Errorf("MarshalText() = %q, %v; want %q", b, err, tt.text)
			}
			b, err = tt.id.AppendText([]byte("x"))
			if err != nil || string(b) != "x"+tt.text {
				t.Errorf("AppendText(x) = %q, %v; want %q", b, err, "x"+tt.text)
			}
			if got := tt.id.PaddedString(); got != tt.padded {
				t.Errorf("PaddedString() = %q, want %q", got, tt.padded)
			}
			if got := string(tt.id.AppendPadded([]byte("x"))); got != "x"+tt.padded {
				t.Errorf("AppendPadded(x) = %q, want %q", got, "x"+tt.padded)
			}
			for _, s := range []string{tt.text, tt.padded} {
				var got ID
				if err := got.UnmarshalText([]byte(s)); err != nil || got != tt.id {
					t.Errorf("UnmarshalText(%q) = %d, %v; want %d", s, got, err, tt.id)
				}
				if got, err := Parse(s); err != nil || got != tt.id {
					t.Errorf("Parse(%q) = %d, %v; want %d", s, got, err, tt.id)
				}
			}
		})
	}
}

func TestParse_LongInputIsCut(t *testing.T) {
	in := string(make([]byte, 1000))
	_, err := Parse(in)
	var pe *floe.ParseError
	if !errors.As(err, &pe) || len(pe.Input) != 64 {
		t.Fatalf("Parse(1000 bytes) error = %v, want a ParseError keeping 64 bytes", err)
	}
}
