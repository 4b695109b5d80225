// Package textid holds the small pieces of JSON and database/sql handling
// that floe's three ID types share, and the constructors of the
// *floe.ParseError values they report.
package textid

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/floeid/floe"
)

// Unquote returns the contents of the JSON string b. ok is false when b is not
// a JSON string. Strings without escapes, the only kind ID encoders write, are
// returned without copying.
func Unquote(b []byte) (s []byte, ok bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return nil, false
	}
	s = b[1 : len(b)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		// JSON allows neither a quote nor a control character unescaped.
		for _, c := range s {
			if c == '"' || c < 0x20 {
				return nil, false
			}
		}
		return s, true
	}
	var str string
	// Decode a copy: handing b itself to encoding/json would make every
	// caller's input escape to the heap, escapes or not.
	if err := json.Unmarshal(bytes.Clone(b), &str); err != nil {
		return nil, false
	}
	return []byte(str), true
}

// StringOffset returns the offset in the JSON string b of what Unquote
// decodes to byte i of the string's contents: that byte itself, or the
// escape sequence that stands for it. b must be a string Unquote accepts,
// and i the first byte of a character of the contents.
func StringOffset(b []byte, i int) int {
	if bytes.IndexByte(b, '\\') < 0 {
		return 1 + i
	}
	raw, dec := 1, 0
	for raw < len(b)-1 {
		r, d := unit(b[raw : len(b)-1])
		if i < dec+d {
			break
		}
		raw, dec = raw+r, dec+d
	}
	return raw
}

// unit returns the length of the first character or escape sequence of s,
// the contents of a valid JSON string, as written (raw) and as decoded by
// encoding/json (dec), which turns bytes that are not UTF-8 and unpaired
// surrogates into U+FFFD.
func unit(s []byte) (raw, dec int) {
	if s[0] != '\\' {
		_, size := utf8.DecodeRune(s)
		if size == 1 && s[0] >= utf8.RuneSelf {
			return 1, utf8.RuneLen(utf8.RuneError)
		}
		return size, size
	}
	if s[1] != 'u' {
		return 2, 1
	}
	r := hex4(s[2:6])
	if !utf16.IsSurrogate(r) {
		return 6, utf8.RuneLen(r)
	}
	if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' && utf16.DecodeRune(r, hex4(s[8:12])) != utf8.RuneError {
		return 12, 4
	}
	return 6, utf8.RuneLen(utf8.RuneError)
}

// hex4 returns the value of the 4 hexadecimal digits of s, or -1.
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		v := hexValue(c)
		if v < 0 {
			return -1
		}
		r = r<<4 | v
	}
	return r
}

// hexValue returns the value of the hexadecimal digit c, or -1.
func hexValue(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

// SyntaxOffset returns where b, which is neither null nor a string Unquote
// accepts, stops being a JSON string or null: the offset of the first byte
// that cannot continue one, or len(b) when b ends before it does.
func SyntaxOffset(b []byte) int {
	if len(b) > 0 && b[0] == 'n' {
		i := 0
		for i < len(b) && i < len("null") && b[i] == "null"[i] {
			i++
		}
		return i
	}
	if len(b) == 0 || b[0] != '"' {
		return 0
	}
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1 // the string ends here, before the end of b
		case c < 0x20:
			return i
		case c == '\\':
			i++
			if i == len(b) {
				return i
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for j := i + 1; j <= i+4; j++ {
					if j == len(b) || hexValue(b[j]) < 0 {
						return j
					}
				}
				i += 4
			default:
				return i
			}
		}
	}
	return len(b)
}

// IsNull reports whether b is the JSON literal null.
func IsNull(b []byte) bool { return string(b) == "null" }

// ScanText returns the text of a database value for Scan: the bytes of a
// string or []byte. null is true for a nil value. Any other type is a
// *floe.ParseError wrapping floe.ErrUnsupportedType; types names the types
// the caller's Scan accepts.
func ScanText(format, types string, value any) (text []byte, null bool, err error) {
	switch v := value.(type) {
	case nil:
		return nil, true, nil
	case string:
		return []byte(v), false, nil
	case []byte:
		return v, false, nil
	default:
		return nil, false, Error(format, fmt.Sprintf("%T", value), floe.ErrUnsupportedType, types)
	}
}
