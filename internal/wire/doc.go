// Package wire is the codec of the noeq binary protocol, which floed speaks
// byte for byte so that existing noeq clients work.
//
// # Frames
//
// A connection may open with an auth frame:
//
//	+------+-----+-------------+
//	| 0x00 | len | token [len] |
//	+------+-----+-------------+
//
// A server with a token requires it and closes the connection when it does
// not match; a server without one reads the frame and ignores it. After it
// come any number of requests, pipelined: one byte n, 1..255. The reply to
// a request is n IDs, 8 bytes each, big-endian. A request byte 0 after the
// auth frame is an error. On any error the server closes the connection, and
// the client tries another server.
//
// The package does no I/O buffering of its own: callers pass a
// *bufio.Reader (or any io.ByteReader), or parse what they read into their
// own buffers (ParseAuth, ParseRequest), and append replies to their own
// buffers.
package wire
