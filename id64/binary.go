package id64

import (
	"encoding/binary"

	"github.com/floeid/floe/internal/textid"
)

// byteLen is the length of an ID's binary form.
const byteLen = 8

// FromBytes returns the ID in b, 8 bytes big-endian (the form of Bytes,
// MarshalBinary and the noeq wire protocol). Any other length is a
// *floe.ParseError wrapping floe.ErrInvalidLength.
func FromBytes(b []byte) (ID, error) {
	if len(b) != byteLen {
		return 0, textid.LengthError(format, b, len(b), wantBytes)
	}
	return ID(binary.BigEndian.Uint64(b)), nil
}

// Bytes returns id as 8 bytes, big-endian, so that bytes.Compare orders IDs
// as Compare does.
func (id ID) Bytes() []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, byteLen), uint64(id))
}

// AppendBinary implements encoding.BinaryAppender: it appends the 8
// big-endian bytes of id to dst. It does not allocate when dst has room, and
// never fails.
func (id ID) AppendBinary(dst []byte) ([]byte, error) {
	return binary.BigEndian.AppendUint64(dst, uint64(id)), nil
}

// MarshalBinary implements encoding.BinaryMarshaler: 8 bytes, big-endian.
func (id ID) MarshalBinary() ([]byte, error) { return id.Bytes(), nil }

// UnmarshalBinary implements encoding.BinaryUnmarshaler. It accepts exactly
// 8 bytes, as FromBytes does; on error id is left unchanged.
func (id *ID) UnmarshalBinary(b []byte) error {
	v, err := FromBytes(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}
