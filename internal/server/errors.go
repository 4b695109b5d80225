package server

import (
	"errors"

	"github.com/floeid/floe/sequencer"
)

// Errors of the server.
var (
	// ErrServerClosed is returned by Serve after Shutdown or Close.
	ErrServerClosed = errors.New("floe: server closed")
	// ErrUnknownSequence names a sequence the server does not have.
	ErrUnknownSequence = errors.New("floe: unknown sequence")
	// ErrConfig is a configuration New refuses.
	ErrConfig = errors.New("floe: invalid server configuration")
	// ErrDefinition is a sequence whose recorded definition (format, layout,
	// node) differs from the configured one: IDs of the two could collide.
	ErrDefinition = errors.New("floe: sequence definition changed")
	// ErrNotReady is a sequence that cannot issue now: it holds no worker
	// ID, its reservation could not be extended, or the server is shutting
	// down. It is sequencer.ErrNotReady.
	ErrNotReady = sequencer.ErrNotReady
	// ErrBinaryFormat is a request over the binary protocol for a sequence
	// whose IDs are not 64 bits wide.
	ErrBinaryFormat = errors.New("floe: the binary protocol serves 64-bit IDs only")
)
