package wire

import "errors"

// Errors of the protocol. A server closes the connection on each.
var (
	// ErrZeroCount is a request byte 0 after the auth frame.
	ErrZeroCount = errors.New("floe: request for 0 IDs")
	// ErrCount is a count outside 1..255 given to AppendRequest.
	ErrCount = errors.New("floe: a request asks for 1..255 IDs")
	// ErrTokenLength is a token of 0 or more than 255 bytes.
	ErrTokenLength = errors.New("floe: a token has 1..255 bytes")
	// ErrShortReply is a reply that ended before its last ID.
	ErrShortReply = errors.New("floe: reply ended before its last ID")
)
