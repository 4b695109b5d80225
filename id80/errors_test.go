package id80

import (
	"strings"
	"testing"

	"github.com/floeid/floe/internal/textid/parsetest"
)

// textForm is id80's text form, as parsetest checks its errors.
var textForm = parsetest.Text{
	Format: "id80",
	Len:    EncodedSize,
	In:     func(c byte) bool { return strings.IndexByte(alphabet, c) >= 0 },
	Want:   "2-9 a-x",
}

func TestParseError_Messages(t *testing.T) {
	long := strings.Repeat("2", 1000)
	text := []string{"parse", "text", "scan"}
	tests := []parsetest.Case{
		{Name: "valid", Decoders: text, In: "6ncg4s4c27a24223", Want: ""},
		{Name: "empty", Decoders: []string{"parse", "text"}, In: "",
			Want: `floe: cannot parse "" as id80: invalid length 0, want 16 characters of 2-9 a-x`},
		{Name: "empty scans to the zero ID, as in sno", Decoders: []string{"scan"}, In: "", Want: ""},
		{Name: "short", Decoders: text, In: "abc",
			Want: `floe: cannot parse "abc" as id80: invalid length 3, want 16 characters of 2-9 a-x`},
		{Name: "one long", Decoders: text, In: "6ncg4s4c27a242233",
			Want: `floe: cannot parse "6ncg4s4c27a242233" as id80: invalid length 17, want 16 characters of 2-9 a-x`},
		{Name: "long", Decoders: text, In: long,
			Want: `floe: cannot parse "` + long[:64] + `" as id80: invalid length 1000, want 16 characters of 2-9 a-x`},
		{Name: "bad byte at the start", Decoders: text, In: "!ncg4s4c27a24223",
			Want: `floe: cannot parse "!ncg4s4c27a24223" as id80: invalid character '!' at offset 0, want 2-9 a-x`},
		{Name: "bad byte in the middle", Decoders: text, In: "9qad!fh223ht2222",
			Want: `floe: cannot parse "9qad!fh223ht2222" as id80: invalid character '!' at offset 4, want 2-9 a-x`},
		{Name: "bad byte at the end", Decoders: text, In: "6ncg4s4c27a2422!",
			Want: `floe: cannot parse "6ncg4s4c27a2422!" as id80: invalid character '!' at offset 15, want 2-9 a-x`},
		{Name: "upper case", Decoders: text, In: "6NCG4S4C27A24223",
			Want: `floe: cannot parse "6NCG4S4C27A24223" as id80: invalid character 'N' at offset 1, want 2-9 a-x`},
		{Name: "letter past x", Decoders: text, In: "6ncg4s4c27a2y223",
			Want: `floe: cannot parse "6ncg4s4c27a2y223" as id80: invalid character 'y' at offset 12, want 2-9 a-x`},
		{Name: "digit below 2", Decoders: text, In: "6ncg4s4c17a24223",
			Want: `floe: cannot parse "6ncg4s4c17a24223" as id80: invalid character '1' at offset 8, want 2-9 a-x`},
		{Name: "non-ascii", Decoders: text, In: "6ncg4s4c27a242é",
			Want: `floe: cannot parse "6ncg4s4c27a242é" as id80: invalid character 'é' at offset 14, want 2-9 a-x`},
		{Name: "nul", Decoders: text, In: "6ncg4s4c\x0027a2422",
			Want: `floe: cannot parse "6ncg4s4c\x0027a2422" as id80: invalid character '\x00' at offset 8, want 2-9 a-x`},
		{Name: "not utf-8", Decoders: text, In: "6ncg4s4c27a2422\xff",
			Want: `floe: cannot parse "6ncg4s4c27a2422\xff" as id80: invalid character '\xff' at offset 15, want 2-9 a-x`},

		{Name: "json string", Decoders: []string{"json"}, In: `"6ncg4s4c27a24223"`, Want: ""},
		{Name: "json null", Decoders: []string{"json"}, In: `null`, Want: ""},
		{Name: "json bad byte", Decoders: []string{"json"}, In: `"6ncg4s4c27a2422!"`,
			Want: `floe: cannot parse "6ncg4s4c27a2422!" as id80: invalid character '!' at offset 15, want 2-9 a-x`},
		{Name: "json escaped bad byte", Decoders: []string{"json"}, In: `"6ncg4s4c27a2422\u0021"`,
			Want: `floe: cannot parse "6ncg4s4c27a2422!" as id80: invalid character '!' at offset 15, want 2-9 a-x`},
		{Name: "json short", Decoders: []string{"json"}, In: `"6ncg"`,
			Want: `floe: cannot parse "6ncg" as id80: invalid length 4, want 16 characters of 2-9 a-x`},
		{Name: "json number", Decoders: []string{"json"}, In: `123`,
			Want: `floe: cannot parse "123" as id80: invalid character '1' at offset 0, want a JSON string or null`},
		{Name: "json empty input", Decoders: []string{"json"}, In: ``,
			Want: `floe: cannot parse "" as id80: invalid character: input ends at offset 0, want a JSON string or null`},
		{Name: "json one quote", Decoders: []string{"json"}, In: `"`,
			Want: `floe: cannot parse "\"" as id80: invalid character: input ends at offset 1, want a JSON string or null`},
		{Name: "json null in capitals", Decoders: []string{"json"}, In: `NULL`,
			Want: `floe: cannot parse "NULL" as id80: invalid character 'N' at offset 0, want a JSON string or null`},
		{Name: "json null cut short", Decoders: []string{"json"}, In: `nul`,
			Want: `floe: cannot parse "nul" as id80: invalid character: input ends at offset 3, want a JSON string or null`},
		{Name: "json bad escape", Decoders: []string{"json"}, In: `"\x36ncg4s4c27a24223"`,
			Want: `floe: cannot parse "\"\\x36ncg4s4c27a24223\"" as id80: invalid character 'x' at offset 2, want a JSON string or null`},

		{Name: "scan raw bytes", Decoders: []string{"scan"}, In: []byte{0x25, 0x54, 0xe1, 0x68, 0x4a, 0x01, 0x50, 0x01, 0x00, 0x01}, Want: ""},
		{Name: "scan int64", Decoders: []string{"scan"}, In: int64(1),
			Want: `floe: cannot parse "int64" as id80: unsupported type, want string, []byte or nil`},
		{Name: "scan 11 bytes", Decoders: []string{"scan"}, In: make([]byte, 11),
			Want: `floe: cannot parse "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" as id80: invalid length 11, want 16 characters of 2-9 a-x or 10 bytes`},
		{Name: "scan bytes with a bad byte", Decoders: []string{"scan"}, In: []byte("6ncg4s4c27a2422!"),
			Want: `floe: cannot parse "6ncg4s4c27a2422!" as id80: invalid character '!' at offset 15, want 2-9 a-x`},

		{Name: "10 bytes", Decoders: []string{"bytes"}, In: make([]byte, 10), Want: ""},
		{Name: "9 bytes", Decoders: []string{"bytes"}, In: make([]byte, 9),
			Want: `floe: cannot parse "\x00\x00\x00\x00\x00\x00\x00\x00\x00" as id80: invalid length 9, want 10 bytes`},
		{Name: "text as bytes", Decoders: []string{"bytes"}, In: []byte("6ncg4s4c27a24223"),
			Want: `floe: cannot parse "6ncg4s4c27a24223" as id80: invalid length 16, want 10 bytes`},
	}
	parsetest.RunMessages(t, parsetest.NewDecoders(Parse, FromBytes), tests)
}
