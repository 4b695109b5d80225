package textid

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/floeid/floe"
)

func TestUnquote(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"plain", `"abc"`, "abc", true},
		{"empty string", `""`, "", true},
		{"escaped", `"a\u0062c"`, "abc", true},
		{"bad escape", `"a\qc"`, "", false},
		{"number", `123`, "", false},
		{"one quote", `"`, "", false},
		{"unterminated", `"abc`, "", false},
		{"a quote inside", `"""`, "", false},
		{"a control character", "\"a\tb\"", "", false},
		{"an escaped control character", `"a\tb"`, "a\tb", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Unquote([]byte(tc.in))
			if ok != tc.ok || string(got) != tc.want {
				t.Errorf("Unquote(%s) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
	if !IsNull([]byte("null")) || IsNull([]byte(`"null"`)) {
		t.Error("IsNull is wrong")
	}
}

func TestScanText(t *testing.T) {
	if b, null, err := ScanText("id80", "string or nil", "x"); string(b) != "x" || null || err != nil {
		t.Errorf("string: %q %v %v", b, null, err)
	}
	if b, null, err := ScanText("id80", "string or nil", []byte("y")); string(b) != "y" || null || err != nil {
		t.Errorf("[]byte: %q %v %v", b, null, err)
	}
	if _, null, err := ScanText("id80", "string or nil", nil); !null || err != nil {
		t.Errorf("nil: %v %v", null, err)
	}
	_, _, err := ScanText("id80", "string or nil", 3.5)
	var pe *floe.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, floe.ErrUnsupportedType) || pe.Input != "float64" {
		t.Errorf("float64: %v", err)
	}
}

func TestStringOffset(t *testing.T) {
	tests := []struct {
		name string
		in   string
		i    int // in the contents
		want int // in in
	}{
		{"plain", `"abc"`, 2, 3},
		{"first", `"abc"`, 0, 1},
		{"after an escape", `"a\nbc"`, 2, 4},
		{"an escape", `"a\nbc"`, 1, 2},
		{"after a unicode escape", `"\u0061bc"`, 1, 7},
		{"a unicode escape", `"a\u00e9c"`, 1, 2},
		{"after a two-byte escape", `"\u00e9c"`, 2, 7},
		{"after a surrogate pair", `"\ud83d\ude00c"`, 4, 13},
		{"after an unpaired surrogate", `"\ud83dc"`, 3, 7},
		{"after a reversed pair", `"\ude00\ud83dc"`, 6, 13},
		{"after a byte that is not utf-8", "\"\\n\xffc\"", 4, 4},
		{"after raw utf-8", "\"\\né c\"", 3, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := StringOffset([]byte(tc.in), tc.i); got != tc.want {
				t.Errorf("StringOffset(%s, %d) = %d, want %d", tc.in, tc.i, got, tc.want)
			}
		})
	}
}

// FuzzStringOffset checks StringOffset against encoding/json: the text
// before the offset it gives, closed with a quote, decodes to the contents
// before the character it was asked for.
func FuzzStringOffset(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\nbc"`, `"\u0061bc"`, `"\ud83d\ude00c"`, `"\ud83dc"`, "\"\\n\xffc\"", `"\u00e9\u0000"`, `"\\\/\"\b\f\r\t"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var all string
		contents, ok := Unquote(b)
		if !ok || json.Unmarshal(b, &all) != nil {
			return
		}
		escaped := bytes.IndexByte(b, '\\') >= 0
		for i := 0; i < len(contents); i++ {
			if !utf8.RuneStart(contents[i]) {
				continue
			}
			off := StringOffset(b, i)
			if !escaped {
				if off != 1+i {
					t.Fatalf("StringOffset(%q, %d) = %d, want %d", b, i, off, 1+i)
				}
				continue
			}
			var before string
			if err := json.Unmarshal(append(bytes.Clone(b[:off]), '"'), &before); err != nil {
				t.Fatalf("StringOffset(%q, %d) = %d, inside an escape: %v", b, i, off, err)
			}
			if before != all[:i] {
				t.Fatalf("StringOffset(%q, %d) = %d, before which the contents are %q, want %q", b, i, off, before, all[:i])
			}
		}
	})
}

func TestSyntaxOffset(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"empty", ``, 0},
		{"number", `123`, 0},
		{"null in capitals", `NULL`, 0},
		{"null cut short", `nul`, 3},
		{"null misspelt", `nil`, 1},
		{"null and more", `nullx`, 4},
		{"one quote", `"`, 1},
		{"unterminated", `"abc`, 4},
		{"bad escape", `"a\qc"`, 3},
		{"escape cut short", `"a\`, 3},
		{"bad unicode escape", `"\u00g0"`, 5},
		{"unicode escape cut short", `"\u00`, 5},
		{"control character", "\"a\x01\\n\"", 2},
		{"trailing bytes", `"a\n"x`, 5},
		{"space after", `"a\n" `, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := Unquote([]byte(tc.in)); ok {
				t.Fatalf("Unquote(%q) accepts it", tc.in)
			}
			if got := SyntaxOffset([]byte(tc.in)); got != tc.want {
				t.Errorf("SyntaxOffset(%q) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}
