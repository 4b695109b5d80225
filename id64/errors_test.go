package id64

import (
	"strings"
	"testing"
)

// decoders are id64's decoders by name, for tables of their errors.
var decoders = map[string]func(in any) error{
	"parse": func(in any) error { _, err := Parse(in.(string)); return err },
	"text":  func(in any) error { return new(ID).UnmarshalText([]byte(in.(string))) },
	"json":  func(in any) error { return new(ID).UnmarshalJSON([]byte(in.(string))) },
	"scan":  func(in any) error { return new(ID).Scan(in) },
	"bytes": func(in any) error { _, err := FromBytes(in.([]byte)); return err },
}

func TestParseError_Messages(t *testing.T) {
	long := strings.Repeat("1", 100)
	tests := []struct {
		name     string
		decoders []string
		in       any
		want     string // the error's text; "" for none
	}{
		{"valid", []string{"parse", "text", "scan"}, "1541815603606036480", ""},
		{"empty", []string{"parse", "text", "scan"}, "",
			`floe: cannot parse "" as id64: invalid length 0, want 1 to 20 digits`},
		{"21 digits", []string{"parse", "text", "scan"}, "000000000000000000001",
			`floe: cannot parse "000000000000000000001" as id64: invalid length 21, want 1 to 20 digits`},
		{"bad byte at the start", []string{"parse", "text", "scan"}, "x123",
			`floe: cannot parse "x123" as id64: invalid character 'x' at offset 0, want 0-9`},
		{"bad byte in the middle", []string{"parse", "text", "scan"}, "12x34",
			`floe: cannot parse "12x34" as id64: invalid character 'x' at offset 2, want 0-9`},
		{"bad byte at the end", []string{"parse", "text", "scan"}, "1234 ",
			`floe: cannot parse "1234 " as id64: invalid character ' ' at offset 4, want 0-9`},
		{"non-ascii", []string{"parse", "text", "scan"}, "12é",
			`floe: cannot parse "12é" as id64: invalid character 'é' at offset 2, want 0-9`},
		{"fullwidth digit", []string{"parse", "text", "scan"}, "1１",
			`floe: cannot parse "1１" as id64: invalid character '１' at offset 1, want 0-9`},
		{"nul", []string{"parse", "text", "scan"}, "1\x00",
			`floe: cannot parse "1\x00" as id64: invalid character '\x00' at offset 1, want 0-9`},
		{"not utf-8", []string{"parse", "text", "scan"}, "1\xff",
			`floe: cannot parse "1\xff" as id64: invalid character '\xff' at offset 1, want 0-9`},
		{"too large", []string{"parse", "text", "scan"}, "18446744073709551616",
			`floe: cannot parse "18446744073709551616" as id64: value out of range, want 0 to 18446744073709551615`},
		{"bad byte beyond the cut", []string{"parse", "text", "scan"}, long + "x",
			`floe: cannot parse "` + long[:64] + `" as id64: invalid character 'x' at offset 100, want 0-9`},
		{"long", []string{"parse", "text", "scan"}, long,
			`floe: cannot parse "` + long[:64] + `" as id64: invalid length 100, want 1 to 20 digits`},
		{"bad byte before too many digits", []string{"parse", "text", "scan"}, "+" + long,
			`floe: cannot parse "+` + long[:63] + `" as id64: invalid character '+' at offset 0, want 0-9`},

		{"json string", []string{"json"}, `"1541815603606036480"`, ""},
		{"json number", []string{"json"}, `1541815603606036480`, ""},
		{"json null", []string{"json"}, `null`, ""},
		{"json empty input", []string{"json"}, ``,
			`floe: cannot parse "" as id64: invalid length 0, want 1 to 20 digits`},
		{"json empty string", []string{"json"}, `""`,
			`floe: cannot parse "\"\"" as id64: invalid length 0, want 1 to 20 digits`},
		{"json string with a bad byte", []string{"json"}, `"12x"`,
			`floe: cannot parse "\"12x\"" as id64: invalid character 'x' at offset 3, want 0-9`},
		{"json string with an escape before a bad byte", []string{"json"}, `"\u0031x"`,
			`floe: cannot parse "\"\\u0031x\"" as id64: invalid character 'x' at offset 7, want 0-9`},
		{"json string with an escaped bad byte", []string{"json"}, `"1\u00e9"`,
			`floe: cannot parse "\"1\\u00e9\"" as id64: invalid character 'é' at offset 2, want 0-9`},
		{"json string too large", []string{"json"}, `"18446744073709551616"`,
			`floe: cannot parse "\"18446744073709551616\"" as id64: value out of range, want 0 to 18446744073709551615`},
		{"json number too large", []string{"json"}, `18446744073709551616`,
			`floe: cannot parse "18446744073709551616" as id64: value out of range, want 0 to 18446744073709551615`},
		{"json negative", []string{"json"}, `-1`,
			`floe: cannot parse "-1" as id64: value out of range, want 0 to 18446744073709551615`},
		{"json minus alone", []string{"json"}, `-`,
			`floe: cannot parse "-" as id64: invalid length 0, want 1 to 20 digits`},
		{"json minus and a bad byte", []string{"json"}, `-1x`,
			`floe: cannot parse "-1x" as id64: invalid character 'x' at offset 2, want 0-9`},
		{"json leading zero", []string{"json"}, `01`,
			`floe: cannot parse "01" as id64: invalid character '1' at offset 1, want a JSON number without leading zeros`},
		{"json zero fraction", []string{"json"}, `0.5`,
			`floe: cannot parse "0.5" as id64: invalid character '.' at offset 1, want 0-9`},
		{"json fraction", []string{"json"}, `1.5`,
			`floe: cannot parse "1.5" as id64: invalid character '.' at offset 1, want 0-9`},
		{"json true", []string{"json"}, `true`,
			`floe: cannot parse "true" as id64: invalid character 't' at offset 0, want a JSON string, number or null`},
		{"json null cut short", []string{"json"}, `nul`,
			`floe: cannot parse "nul" as id64: invalid character: input ends at offset 3, want a JSON string, number or null`},
		{"json unterminated string", []string{"json"}, `"12`,
			`floe: cannot parse "\"12" as id64: invalid character: input ends at offset 3, want a JSON string, number or null`},
		{"json bad escape", []string{"json"}, `"\x31"`,
			`floe: cannot parse "\"\\x31\"" as id64: invalid character 'x' at offset 2, want a JSON string, number or null`},

		{"scan int64", []string{"scan"}, int64(7), ""},
		{"scan negative int64", []string{"scan"}, int64(-1),
			`floe: cannot parse "-1" as id64: value out of range, want 0 to 18446744073709551615`},
		{"scan bytes with a bad byte", []string{"scan"}, []byte("12a"),
			`floe: cannot parse "12a" as id64: invalid character 'a' at offset 2, want 0-9`},
		{"scan float64", []string{"scan"}, 1.5,
			`floe: cannot parse "float64" as id64: unsupported type, want int64, uint64, string, []byte or nil`},

		{"8 bytes", []string{"bytes"}, make([]byte, 8), ""},
		{"7 bytes", []string{"bytes"}, make([]byte, 7),
			`floe: cannot parse "\x00\x00\x00\x00\x00\x00\x00" as id64: invalid length 7, want 8 bytes`},
		{"no bytes", []string{"bytes"}, []byte(nil),
			`floe: cannot parse "" as id64: invalid length 0, want 8 bytes`},
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
