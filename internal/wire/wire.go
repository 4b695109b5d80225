package wire

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Sizes of the protocol.
const (
	// AuthMarker is the first byte of an auth frame.
	AuthMarker = 0x00
	// MaxCount is the most IDs one request asks for.
	MaxCount = 255
	// MaxToken is the longest token an auth frame carries.
	MaxToken = 255
	// IDSize is the size of one ID in a reply.
	IDSize = 8
)

// AppendAuth appends the auth frame for token to dst.
func AppendAuth(dst []byte, token string) ([]byte, error) {
	if len(token) == 0 || len(token) > MaxToken {
		return dst, fmt.Errorf("%w: %d bytes", ErrTokenLength, len(token))
	}
	dst = append(dst, AuthMarker, byte(len(token)))
	return append(dst, token...), nil
}

// AppendRequest appends a request for n IDs to dst.
func AppendRequest(dst []byte, n int) ([]byte, error) {
	if n < 1 || n > MaxCount {
		return dst, fmt.Errorf("%w: %d", ErrCount, n)
	}
	return append(dst, byte(n)), nil
}

// AppendID appends one ID of a reply to dst.
func AppendID(dst []byte, id uint64) []byte {
	return binary.BigEndian.AppendUint64(dst, id)
}

// DecodeIDs decodes the IDs of a reply in src into dst and returns how many
// it decoded: min(len(dst), len(src)/IDSize).
func DecodeIDs(dst []uint64, src []byte) int {
	n := min(len(dst), len(src)/IDSize)
	for i := range n {
		dst[i] = binary.BigEndian.Uint64(src[i*IDSize:])
	}
	return n
}

// ReadIDs reads a reply of len(dst) IDs from r into dst, using buf (grown
// when shorter than the reply) as scratch space; it returns the buffer for
// reuse. A reply cut short is ErrShortReply, wrapping the read error.
func ReadIDs(r io.Reader, dst []uint64, buf []byte) ([]byte, error) {
	size := len(dst) * IDSize
	if cap(buf) < size {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	if n, err := io.ReadFull(r, buf); err != nil {
		return buf, fmt.Errorf("%w: %d of %d bytes: %w", ErrShortReply, n, size, err)
	}
	DecodeIDs(dst, buf)
	return buf, nil
}
