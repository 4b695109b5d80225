package id64

import (
	"strings"
	"testing"

	"github.com/floeid/floe/internal/textid/parsetest"
)

func TestParseError_Messages(t *testing.T) {
	long := strings.Repeat("1", 100)
	tests := []parsetest.Case{
		{Name: "valid", Decoders: []string{"parse", "text", "scan"}, In: "1541815603606036480", Want: ""},
		{Name: "empty", Decoders: []string{"parse", "text", "scan"}, In: "",
			Want: `floe: cannot parse "" as id64: invalid length 0, want 1 to 20 digits`},
		{Name: "21 digits", Decoders: []string{"parse", "text", "scan"}, In: "000000000000000000001",
			Want: `floe: cannot parse "000000000000000000001" as id64: invalid length 21, want 1 to 20 digits`},
		{Name: "bad byte at the start", Decoders: []string{"parse", "text", "scan"}, In: "x123",
			Want: `floe: cannot parse "x123" as id64: invalid character 'x' at offset 0, want 0-9`},
		{Name: "bad byte in the middle", Decoders: []string{"parse", "text", "scan"}, In: "12x34",
			Want: `floe: cannot parse "12x34" as id64: invalid character 'x' at offset 2, want 0-9`},
		{Name: "bad byte at the end", Decoders: []string{"parse", "text", "scan"}, In: "1234 ",
			Want: `floe: cannot parse "1234 " as id64: invalid character ' ' at offset 4, want 0-9`},
		{Name: "non-ascii", Decoders: []string{"parse", "text", "scan"}, In: "12é",
			Want: `floe: cannot parse "12é" as id64: invalid character 'é' at offset 2, want 0-9`},
		{Name: "fullwidth digit", Decoders: []string{"parse", "text", "scan"}, In: "1１",
			Want: `floe: cannot parse "1１" as id64: invalid character '１' at offset 1, want 0-9`},
		{Name: "nul", Decoders: []string{"parse", "text", "scan"}, In: "1\x00",
			Want: `floe: cannot parse "1\x00" as id64: invalid character '\x00' at offset 1, want 0-9`},
		{Name: "not utf-8", Decoders: []string{"parse", "text", "scan"}, In: "1\xff",
			Want: `floe: cannot parse "1\xff" as id64: invalid character '\xff' at offset 1, want 0-9`},
		{Name: "too large", Decoders: []string{"parse", "text", "scan"}, In: "18446744073709551616",
			Want: `floe: cannot parse "18446744073709551616" as id64: value out of range, want 0 to 18446744073709551615`},
		{Name: "bad byte beyond the cut", Decoders: []string{"parse", "text", "scan"}, In: long + "x",
			Want: `floe: cannot parse "` + long[:64] + `" as id64: invalid character 'x' at offset 100, want 0-9`},
		{Name: "long", Decoders: []string{"parse", "text", "scan"}, In: long,
			Want: `floe: cannot parse "` + long[:64] + `" as id64: invalid length 100, want 1 to 20 digits`},
		{Name: "bad byte before too many digits", Decoders: []string{"parse", "text", "scan"}, In: "+" + long,
			Want: `floe: cannot parse "+` + long[:63] + `" as id64: invalid character '+' at offset 0, want 0-9`},

		{Name: "json string", Decoders: []string{"json"}, In: `"1541815603606036480"`, Want: ""},
		{Name: "json number", Decoders: []string{"json"}, In: `1541815603606036480`, Want: ""},
		{Name: "json null", Decoders: []string{"json"}, In: `null`, Want: ""},
		{Name: "json empty input", Decoders: []string{"json"}, In: ``,
			Want: `floe: cannot parse "" as id64: invalid length 0, want 1 to 20 digits`},
		{Name: "json empty string", Decoders: []string{"json"}, In: `""`,
			Want: `floe: cannot parse "\"\"" as id64: invalid length 0, want 1 to 20 digits`},
		{Name: "json string with a bad byte", Decoders: []string{"json"}, In: `"12x"`,
			Want: `floe: cannot parse "\"12x\"" as id64: invalid character 'x' at offset 3, want 0-9`},
		{Name: "json string with an escape before a bad byte", Decoders: []string{"json"}, In: `"\u0031x"`,
			Want: `floe: cannot parse "\"\\u0031x\"" as id64: invalid character 'x' at offset 7, want 0-9`},
		{Name: "json string with an escaped bad byte", Decoders: []string{"json"}, In: `"1\u00e9"`,
			Want: `floe: cannot parse "\"1\\u00e9\"" as id64: invalid character 'é' at offset 2, want 0-9`},
		{Name: "json string too large", Decoders: []string{"json"}, In: `"18446744073709551616"`,
			Want: `floe: cannot parse "\"18446744073709551616\"" as id64: value out of range, want 0 to 18446744073709551615`},
		{Name: "json number too large", Decoders: []string{"json"}, In: `18446744073709551616`,
			Want: `floe: cannot parse "18446744073709551616" as id64: value out of range, want 0 to 18446744073709551615`},
		{Name: "json negative", Decoders: []string{"json"}, In: `-1`,
			Want: `floe: cannot parse "-1" as id64: value out of range, want 0 to 18446744073709551615`},
		{Name: "json minus alone", Decoders: []string{"json"}, In: `-`,
			Want: `floe: cannot parse "-" as id64: invalid length 0, want 1 to 20 digits`},
		{Name: "json minus and a bad byte", Decoders: []string{"json"}, In: `-1x`,
			Want: `floe: cannot parse "-1x" as id64: invalid character 'x' at offset 2, want 0-9`},
		{Name: "json leading zero", Decoders: []string{"json"}, In: `01`,
			Want: `floe: cannot parse "01" as id64: invalid character '1' at offset 1, want a JSON number without leading zeros`},
		{Name: "json zero fraction", Decoders: []string{"json"}, In: `0.5`,
			Want: `floe: cannot parse "0.5" as id64: invalid character '.' at offset 1, want 0-9`},
		{Name: "json fraction", Decoders: []string{"json"}, In: `1.5`,
			Want: `floe: cannot parse "1.5" as id64: invalid character '.' at offset 1, want 0-9`},
		{Name: "json true", Decoders: []string{"json"}, In: `true`,
			Want: `floe: cannot parse "true" as id64: invalid character 't' at offset 0, want a JSON string, number or null`},
		{Name: "json null cut short", Decoders: []string{"json"}, In: `nul`,
			Want: `floe: cannot parse "nul" as id64: invalid character: input ends at offset 3, want a JSON string, number or null`},
		{Name: "json unterminated string", Decoders: []string{"json"}, In: `"12`,
			Want: `floe: cannot parse "\"12" as id64: invalid character: input ends at offset 3, want a JSON string, number or null`},
		{Name: "json bad escape", Decoders: []string{"json"}, In: `"\x31"`,
			Want: `floe: cannot parse "\"\\x31\"" as id64: invalid character 'x' at offset 2, want a JSON string, number or null`},

		{Name: "scan int64", Decoders: []string{"scan"}, In: int64(7), Want: ""},
		{Name: "scan negative int64", Decoders: []string{"scan"}, In: int64(-1),
			Want: `floe: cannot parse "-1" as id64: value out of range, want 0 to 18446744073709551615`},
		{Name: "scan bytes with a bad byte", Decoders: []string{"scan"}, In: []byte("12a"),
			Want: `floe: cannot parse "12a" as id64: invalid character 'a' at offset 2, want 0-9`},
		{Name: "scan float64", Decoders: []string{"scan"}, In: 1.5,
			Want: `floe: cannot parse "float64" as id64: unsupported type, want int64, uint64, string, []byte or nil`},

		{Name: "8 bytes", Decoders: []string{"bytes"}, In: make([]byte, 8), Want: ""},
		{Name: "7 bytes", Decoders: []string{"bytes"}, In: make([]byte, 7),
			Want: `floe: cannot parse "\x00\x00\x00\x00\x00\x00\x00" as id64: invalid length 7, want 8 bytes`},
		{Name: "no bytes", Decoders: []string{"bytes"}, In: []byte(nil),
			Want: `floe: cannot parse "" as id64: invalid length 0, want 8 bytes`},
	}
	parsetest.RunMessages(t, parsetest.NewDecoders(Parse, FromBytes), tests)
}
