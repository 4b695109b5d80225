package id96

import "github.com/floeid/floe/internal/textid"

// Parse reads the 16-character text of an ID, as written by String and by
// guid's String for its 96-bit IDs. It returns a *floe.ParseError wrapping
// floe.ErrInvalidLength or floe.ErrInvalidCharacter, with the offset of the
// first byte outside the alphabet. Every 16 characters of the alphabet are a
// valid ID, so no text is out of range.
func Parse(s string) (ID, error) {
	var id ID
	if !decode(&id, s) {
		return ID{}, textError(s)
	}
	return id, nil
}

// MustParse is like Parse but panics if s is not the text of an ID. It is
// for tests and package-level variables.
func MustParse(s string) ID {
	id, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return id
}

// FromBytes returns the ID of the 12 bytes b, as written by Bytes and
// MarshalBinary and by guid's Bytes for its 96-bit IDs. It returns a
// *floe.ParseError wrapping floe.ErrInvalidLength for any other length; all
// 12-byte values are valid. The 8-byte 64-bit form is read with FromUint64.
func FromBytes(b []byte) (ID, error) {
	var id ID
	if len(b) != Size {
		return ID{}, textid.LengthError(format, b, len(b), wantBytes)
	}
	copy(id[:], b)
	return id, nil
}
