package id80

import (
	"encoding/binary"

	"github.com/floeid/floe/internal/textid"
)

// AppendText implements encoding.TextAppender: it appends the ID's
// 16-character text form to dst. It does not allocate when dst has room for
// 16 more bytes. The error is always nil.
func (id ID) AppendText(dst []byte) ([]byte, error) {
	hi, lo := blocks(&id)
	return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(dst, textWord(hi)), textWord(lo)), nil
}

// MarshalText implements encoding.TextMarshaler: it returns the ID's
// 16-character text form. The error is always nil.
func (id ID) MarshalText() ([]byte, error) {
	b := make([]byte, EncodedSize)
	encode((*[EncodedSize]byte)(b), &id)
	return b, nil
}

// UnmarshalText implements encoding.TextUnmarshaler: it sets id to the ID
// whose text form is b, as Parse does. On error id is left unchanged.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := parseText(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// AppendBinary implements encoding.BinaryAppender: it appends the ID's 10
// bytes to dst. The error is always nil.
func (id ID) AppendBinary(dst []byte) ([]byte, error) {
	return append(dst, id[:]...), nil
}

// MarshalBinary implements encoding.BinaryMarshaler: it returns the ID's 10
// bytes in a new slice. The error is always nil.
func (id ID) MarshalBinary() ([]byte, error) {
	return id[:], nil
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler: it sets id to the
// 10 bytes of b, as FromBytes does. On error id is left unchanged.
func (id *ID) UnmarshalBinary(b []byte) error {
	v, err := FromBytes(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// jsonNull is the JSON form of the zero ID, as in sno.
const jsonNull = "null"

// MarshalJSON implements json.Marshaler: it returns the text form as a JSON
// string, or null for the zero ID, as sno does. The error is always nil.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.IsZero() {
		return []byte(jsonNull), nil
	}
	b := make([]byte, EncodedSize+2)
	b[0], b[EncodedSize+1] = '"', '"'
	encode((*[EncodedSize]byte)(b[1:]), &id)
	return b, nil
}

// UnmarshalJSON implements json.Unmarshaler: it sets id to the ID whose text
// form is the JSON string b, or to the zero ID when b is null, as sno does.
// Anything that is not a JSON string is a *floe.ParseError wrapping
// floe.ErrInvalidCharacter. On error id is left unchanged.
func (id *ID) UnmarshalJSON(b []byte) error {
	if textid.IsNull(b) {
		*id = ID{}
		return nil
	}
	s, ok := textid.Unquote(b)
	if !ok {
		return textid.CharError(format, b, textid.SyntaxOffset(b), wantJSON)
	}
	v, err := parseText(s)
	if err != nil {
		return err
	}
	*id = v
	return nil
}
