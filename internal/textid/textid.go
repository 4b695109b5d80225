// Package textid holds the small pieces of JSON and database/sql handling
// that floe's three ID types share.
package textid

import (
	"bytes"
	"encoding/json"
	"fmt"

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

// IsNull reports whether b is the JSON literal null.
func IsNull(b []byte) bool { return string(b) == "null" }

// ScanText returns the text of a database value for Scan: the bytes of a
// string or []byte. null is true for a nil value. Any other type is a
// *floe.ParseError wrapping floe.ErrUnsupportedType.
func ScanText(format string, value any) (text []byte, null bool, err error) {
	switch v := value.(type) {
	case nil:
		return nil, true, nil
	case string:
		return []byte(v), false, nil
	case []byte:
		return v, false, nil
	default:
		return nil, false, floe.NewParseError(format, []byte(fmt.Sprintf("%T", value)), floe.ErrUnsupportedType)
	}
}
