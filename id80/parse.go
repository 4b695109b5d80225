package id80

import "github.com/floeid/floe/internal/textid"

// Parse returns the ID whose text form is s: exactly 16 characters of
// [2-9a-x]. Any other input is a *floe.ParseError wrapping
// floe.ErrInvalidLength or floe.ErrInvalidCharacter, with the offset of the
// first byte outside the alphabet.
func Parse(s string) (ID, error) {
	return parseText(s)
}

// MustParse is Parse that panics on error. Use it only for constants in
// tests and package-level variables.
func MustParse(s string) ID {
	id, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return id
}

// FromBytes returns the ID whose 10 bytes are b. Any other length is a
// *floe.ParseError wrapping floe.ErrInvalidLength.
func FromBytes(b []byte) (ID, error) {
	if len(b) != Size {
		return ID{}, textid.LengthError(format, b, len(b), wantBytes)
	}
	return ID(b), nil
}

// parseText decodes a text form and explains a failure.
func parseText[T string | []byte](src T) (ID, error) {
	id, ok := decode(src)
	if !ok {
		return ID{}, textError(src)
	}
	return id, nil
}
