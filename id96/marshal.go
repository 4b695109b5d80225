package id96

import (
	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid"
)

// MarshalText returns the 16-character text of id. The error is always nil.
func (id ID) MarshalText() ([]byte, error) {
	b := make([]byte, EncodedLen)
	encode((*[EncodedLen]byte)(b), &id)
	return b, nil
}

// UnmarshalText reads the text of an ID as Parse does. On error id is left
// unchanged.
func (id *ID) UnmarshalText(text []byte) error {
	var v ID
	if !decode(&v, text) {
		return textError(text)
	}
	*id = v
	return nil
}

// AppendBinary appends the 12 bytes of id to dst. The error is always nil.
func (id ID) AppendBinary(dst []byte) ([]byte, error) {
	return append(dst, id[:]...), nil
}

// MarshalBinary returns the 12 bytes of id. The error is always nil.
func (id ID) MarshalBinary() ([]byte, error) {
	return id.Bytes(), nil
}

// UnmarshalBinary reads the 12 bytes of an ID as FromBytes does. On error id
// is left unchanged.
func (id *ID) UnmarshalBinary(data []byte) error {
	v, err := FromBytes(data)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// MarshalJSON returns the text of id as a JSON string, as guid does for its
// 96-bit IDs. It never writes guid's "*"-prefixed 64-bit form. The error is
// always nil.
func (id ID) MarshalJSON() ([]byte, error) {
	b := make([]byte, EncodedLen+2)
	b[0] = '"'
	encode((*[EncodedLen]byte)(b[1:]), &id)
	b[EncodedLen+1] = '"'
	return b, nil
}

// UnmarshalJSON reads a JSON string holding the text of an ID. JSON null
// leaves id unchanged, as encoding/json expects.
//
// It also reads guid's 64-bit form, a "*" followed by the text of a 96-bit
// ID: guid writes its 64-bit values that way, filling in the node of the
// writing process, which is not part of the value. That node is dropped:
// the result is FromUint64(v, 0) for the 64-bit value v, as guid's
// UnmarshalJSON yields v itself. MarshalJSON then writes the 96-bit form
// with node 0, without the "*".
//
// Errors are *floe.ParseError values for data wrapping
// floe.ErrUnsupportedType for JSON that is not a string,
// floe.ErrInvalidLength (with the length of the text after any "*") or
// floe.ErrInvalidCharacter (with the offset in data where the character is
// written). On error id is left unchanged.
func (id *ID) UnmarshalJSON(data []byte) error {
	if textid.IsNull(data) {
		return nil
	}
	s, ok := textid.Unquote(data)
	if !ok {
		return textid.Error(format, data, floe.ErrUnsupportedType, wantJSON)
	}
	cast := len(s) > 0 && s[0] == '*'
	if cast {
		s = s[1:]
	}
	var v ID
	if !decode(&v, s) {
		return jsonError(data, s, cast)
	}
	if cast {
		v = FromUint64(v.Uint64(), 0)
	}
	*id = v
	return nil
}

// jsonError returns the error for data, a JSON string whose text s, after
// the "*" of the 64-bit form when cast is true, decode refused.
func jsonError(data, s []byte, cast bool) error {
	e := textError(s)
	start := 0
	if cast {
		start = 1
		if e.Length >= 0 {
			e.Want = wantCastText
		}
	}
	return textid.InString(e, data, start)
}
