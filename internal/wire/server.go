package wire

import (
	"bufio"
	"fmt"
	"io"
)

// ReadAuth reads the auth frame at the start of a connection, if there is
// one: present reports whether the first byte was the auth marker, and
// token (a slice into buf, grown when short) is the frame's token, which may
// be empty. When the first byte is not the marker it is left unread for
// ReadRequest. A frame cut short is io.ErrUnexpectedEOF or the read error.
func ReadAuth(r *bufio.Reader, buf []byte) (token []byte, present bool, err error) {
	first, err := r.Peek(1)
	if err != nil {
		return nil, false, err
	}
	if first[0] != AuthMarker {
		return nil, false, nil
	}
	var head [2]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, true, unexpected(err)
	}
	n := int(head[1])
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	token = buf[:n]
	if _, err := io.ReadFull(r, token); err != nil {
		return nil, true, unexpected(err)
	}
	return token, true, nil
}

// ParseAuth parses the auth frame at the start of b, whose first byte is
// AuthMarker, for a server that reads into its own buffer. It returns the
// frame's size and, once b holds all of it, ok and the frame's token (a
// slice of b, which may be empty). While b is shorter, size is the length
// b must reach: 2 until it holds the length byte, then the frame's.
func ParseAuth(b []byte) (token []byte, size int, ok bool) {
	if len(b) < 2 {
		return nil, 2, false
	}
	size = 2 + int(b[1])
	if len(b) < size {
		return nil, size, false
	}
	return b[2:size], size, true
}

// ReadRequest reads one request and returns its count, 1..255. A byte 0 is
// ErrZeroCount; the end of the stream is io.EOF.
func ReadRequest(r io.ByteReader) (int, error) {
	b, err := r.ReadByte()
	if err != nil {
		return 0, err
	}
	return ParseRequest(b)
}

// ParseRequest returns the count of the request byte b, 1..255. A byte 0
// is ErrZeroCount.
func ParseRequest(b byte) (int, error) {
	if b == 0 {
		return 0, ErrZeroCount
	}
	return int(b), nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return fmt.Errorf("auth frame cut short: %w", io.ErrUnexpectedEOF)
	}
	return err
}
