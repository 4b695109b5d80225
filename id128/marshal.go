package id128

import (
	"github.com/floeid/floe/internal/textid"
)

// FromBytes returns the ID of the 16 bytes b, as written by Bytes and
// MarshalBinary (and by any UUID library). It returns a *floe.ParseError
// wrapping floe.ErrInvalidLength for any other length, or a *VersionError
// for a UUID that is not version 7.
func FromBytes(b []byte) (ID, error) {
	if len(b) != Size {
		return ID{}, textid.LengthError(format, b, len(b), wantBytes)
	}
	id := ID(b)
	if err := check(&id); err != nil {
		return ID{}, textid.Error(format, b, err, wantVersion)
	}
	return id, nil
}

// AppendBinary appends the 16 bytes of id to dst. The error is always nil.
func (id ID) AppendBinary(dst []byte) ([]byte, error) {
	return append(dst, id[:]...), nil
}

// MarshalBinary returns the 16 bytes of id. The error is always nil.
func (id ID) MarshalBinary() ([]byte, error) {
	return id.Bytes(), nil
}

// UnmarshalBinary reads the 16 bytes of an ID as FromBytes does. On error
// id is left unchanged.
func (id *ID) UnmarshalBinary(data []byte) error {
	v, err := FromBytes(data)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// MarshalJSON returns the canonical text of id as a JSON string. The error
// is always nil.
func (id ID) MarshalJSON() ([]byte, error) {
	b := make([]byte, EncodedLen+2)
	b[0] = '"'
	encode((*[EncodedLen]byte)(b[1:]), &id)
	b[EncodedLen+1] = '"'
	return b, nil
}

// UnmarshalJSON reads a JSON string holding the text of an ID in any form
// Parse reads. JSON null leaves id unchanged, as encoding/json expects.
// Errors are *floe.ParseError values for data, with offsets that count in
// the JSON. On error id is left unchanged.
func (id *ID) UnmarshalJSON(data []byte) error {
	if textid.IsNull(data) {
		return nil
	}
	s, ok := textid.Unquote(data)
	if !ok {
		return textid.CharError(format, data, textid.SyntaxOffset(data), wantJSON)
	}
	v, e := parseText(s)
	if e != nil {
		return textid.InString(e, data, 0)
	}
	*id = v
	return nil
}
