package id96

import (
	"strings"
	"testing"

	"github.com/floeid/floe/internal/textid/parsetest"
)

// textForm is id96's text form, as parsetest checks its errors.
var textForm = parsetest.Text{
	Format: "id96",
	Len:    EncodedLen,
	In:     func(c byte) bool { return strings.IndexByte(alphabet, c) >= 0 },
	Want:   ". 0-9 A-Z _ a-z",
}

func TestParseError_Messages(t *testing.T) {
	long := strings.Repeat(".", 1000)
	text := []string{"parse", "text", "scan"}
	tests := []parsetest.Case{
		{Name: "valid", Decoders: text, In: "Njc7pjKhxrcJu..e", Want: ""},
		{Name: "empty", Decoders: text, In: "",
			Want: `floe: cannot parse "" as id96: invalid length 0, want 16 characters of . 0-9 A-Z _ a-z`},
		{Name: "64-bit json form", Decoders: text, In: "*Njc7pjKhxrcJu..e",
			Want: `floe: cannot parse "*Njc7pjKhxrcJu..e" as id96: invalid length 17, want 16 characters of . 0-9 A-Z _ a-z`},
		{Name: "long", Decoders: text, In: long,
			Want: `floe: cannot parse "` + long[:64] + `" as id96: invalid length 1000, want 16 characters of . 0-9 A-Z _ a-z`},
		{Name: "bad byte at the start", Decoders: text, In: "-jc7pjKhxrcJu..e",
			Want: `floe: cannot parse "-jc7pjKhxrcJu..e" as id96: invalid character '-' at offset 0, want . 0-9 A-Z _ a-z`},
		{Name: "bad byte in the middle", Decoders: text, In: "Njc7pjK-xrcJu..e",
			Want: `floe: cannot parse "Njc7pjK-xrcJu..e" as id96: invalid character '-' at offset 7, want . 0-9 A-Z _ a-z`},
		{Name: "bad byte at the end", Decoders: text, In: "Njc7pjKhxrcJu..!",
			Want: `floe: cannot parse "Njc7pjKhxrcJu..!" as id96: invalid character '!' at offset 15, want . 0-9 A-Z _ a-z`},
		{Name: "non-ascii", Decoders: text, In: "Njc7pjKhxrcJu.é",
			Want: `floe: cannot parse "Njc7pjKhxrcJu.é" as id96: invalid character 'é' at offset 14, want . 0-9 A-Z _ a-z`},
		{Name: "nul", Decoders: text, In: "Njc7pjKhxrcJu..\x00",
			Want: `floe: cannot parse "Njc7pjKhxrcJu..\x00" as id96: invalid character '\x00' at offset 15, want . 0-9 A-Z _ a-z`},
		{Name: "not utf-8", Decoders: text, In: "\xffjc7pjKhxrcJu..e",
			Want: `floe: cannot parse "\xffjc7pjKhxrcJu..e" as id96: invalid character '\xff' at offset 0, want . 0-9 A-Z _ a-z`},

		{Name: "json string", Decoders: []string{"json"}, In: `"Njc7pjKhxrcJu..e"`, Want: ""},
		{Name: "json 64-bit form", Decoders: []string{"json"}, In: `"*Njc7o85Xgw7Ju..e"`, Want: ""},
		{Name: "json bad byte", Decoders: []string{"json"}, In: `"Njc7pjKhxrcJu.-e"`,
			Want: `floe: cannot parse "\"Njc7pjKhxrcJu.-e\"" as id96: invalid character '-' at offset 15, want . 0-9 A-Z _ a-z`},
		{Name: "json 64-bit form with a bad byte", Decoders: []string{"json"}, In: `"*Njc7pjKhxrcJu.-e"`,
			Want: `floe: cannot parse "\"*Njc7pjKhxrcJu.-e\"" as id96: invalid character '-' at offset 16, want . 0-9 A-Z _ a-z`},
		{Name: "json bad byte after an escape", Decoders: []string{"json"}, In: `"Njc7pjKhxrcJu\u002e-e"`,
			Want: `floe: cannot parse "\"Njc7pjKhxrcJu\\u002e-e\"" as id96: invalid character '-' at offset 20, want . 0-9 A-Z _ a-z`},
		{Name: "json escaped bad byte", Decoders: []string{"json"}, In: `"Njc7pjKhxrcJu.\u002de"`,
			Want: `floe: cannot parse "\"Njc7pjKhxrcJu.\\u002de\"" as id96: invalid character '-' at offset 15, want . 0-9 A-Z _ a-z`},
		{Name: "json empty string", Decoders: []string{"json"}, In: `""`,
			Want: `floe: cannot parse "\"\"" as id96: invalid length 0, want 16 characters of . 0-9 A-Z _ a-z`},
		{Name: "json star only", Decoders: []string{"json"}, In: `"*"`,
			Want: `floe: cannot parse "\"*\"" as id96: invalid length 0, want 16 characters of . 0-9 A-Z _ a-z after the *`},
		{Name: "json two stars", Decoders: []string{"json"}, In: `"**Njc7o85Xgw7Ju..e"`,
			Want: `floe: cannot parse "\"**Njc7o85Xgw7Ju..e\"" as id96: invalid length 17, want 16 characters of . 0-9 A-Z _ a-z after the *`},
		{Name: "json number", Decoders: []string{"json"}, In: `12345`,
			Want: `floe: cannot parse "12345" as id96: unsupported type, want a JSON string or null`},

		{Name: "scan raw bytes", Decoders: []string{"scan"}, In: make([]byte, 12), Want: ""},
		{Name: "scan int64", Decoders: []string{"scan"}, In: int64(42),
			Want: `floe: cannot parse "int64" as id96: unsupported type, want string, []byte or nil`},
		{Name: "scan 8 bytes", Decoders: []string{"scan"}, In: make([]byte, 8),
			Want: `floe: cannot parse "\x00\x00\x00\x00\x00\x00\x00\x00" as id96: invalid length 8, want 16 characters of . 0-9 A-Z _ a-z or 12 bytes`},
		{Name: "scan 12-character string", Decoders: []string{"scan"}, In: "Njc7pjKhxrcJ",
			Want: `floe: cannot parse "Njc7pjKhxrcJ" as id96: invalid length 12, want 16 characters of . 0-9 A-Z _ a-z`},
		{Name: "scan bytes with a bad byte", Decoders: []string{"scan"}, In: []byte("Njc7pjKhxrcJu.-e"),
			Want: `floe: cannot parse "Njc7pjKhxrcJu.-e" as id96: invalid character '-' at offset 14, want . 0-9 A-Z _ a-z`},

		{Name: "12 bytes", Decoders: []string{"bytes"}, In: make([]byte, 12), Want: ""},
		{Name: "11 bytes", Decoders: []string{"bytes"}, In: make([]byte, 11),
			Want: `floe: cannot parse "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" as id96: invalid length 11, want 12 bytes`},
	}
	parsetest.RunMessages(t, parsetest.NewDecoders(Parse, FromBytes), tests)
}
