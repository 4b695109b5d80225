package id80

import (
	"encoding/hex"
	"testing"
)

// goldenVectors are IDs encoded by github.com/muyo/sno v1.2.1 itself
// (sno.ID.String on the same bytes). They pin binary and text compatibility.
var goldenVectors = []struct {
	hex  string // the 10 bytes
	text string // sno's text form
}{
	{"00000000000000000000", "2222222222222222"},
	{"ffffffffffffffffffff", "xxxxxxxxxxxxxxxx"},
	{"2554e1684a0150010001", "6ncg4s4c27a24223"},
	{"34f5d0c8027fabcd1234", "8lsv3k24hwnus6jm"},
	{"fffffffffeffffffffff", "xxxxxxxwxxxxxxxx"},
	{"0123456789abcdef0123", "26jmcrubnh8ww2b5"},
	{"80000000010000000001", "i222222322222223"},
	{"123456789b07002afedc", "4as7ew6t2u24nxou"},
	{"86ad05dc987f806230a1", "isoidp6qhw286e73"},
	{"3ca07796da768f640748", "9ki9h7osgs9oa3sa"},
	{"d1a3f6aaba40044b9875", "s8jxfcnsa246p85n"},
	{"3a43c64be5ba0b03ca37", "9b3uekx7pa7i9kjp"},
	{"1d084a2cbdb184da2624", "5m66md7vo84fmbj6"},
	{"d739aacaef9c58891c0c", "suusnkphljeak92e"},
	{"3bddddf34bf0c81fdf82", "9hgvtusdw563xpu4"},
	{"edab63bf68a0bca481c7", "vono9htam4wcb2g9"},
	{"dbdc0578b227d6edd241", "thg2cw7k6xdgtmk3"},
	{"ab22b89da79fdc0f1c37", "nejdj9f9lxg2w93p"},
	{"f77c4a3e4df622dfa710", "wvw6mhkfwqjfxbqi"},
	{"6892ae7d2191fef84891", "f4bcuxb3k9xhik6j"},
}

// idFromHex returns the ID of 20 hex digits.
func idFromHex(t testing.TB, s string) ID {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != Size {
		t.Fatalf("bad test vector %q", s)
	}
	return ID(b)
}

func TestGolden_Text(t *testing.T) {
	for _, v := range goldenVectors {
		t.Run(v.text, func(t *testing.T) {
			id := idFromHex(t, v.hex)
			if got, want := id.String(), v.text; got != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
			got, err := Parse(v.text)
			if err != nil {
				t.Fatalf("Parse(%q): %v", v.text, err)
			}
			if want := id; got != want {
				t.Errorf("Parse(%q) = %x, want %x", v.text, got[:], want[:])
			}
		})
	}
}
