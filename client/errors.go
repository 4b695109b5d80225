package client

import (
	"errors"
	"strconv"
	"strings"

	"github.com/floeid/floe/internal/wire"
)

// Errors. A call that fails after trying one or more servers returns an
// *AttemptsError; errors.Is matches these (and context.Canceled or
// context.DeadlineExceeded) through it.
var (
	// ErrClosed: the Client was closed, before or during the call.
	ErrClosed = errors.New("floe: client closed")
	// ErrNoAddresses: New was given no addresses.
	ErrNoAddresses = errors.New("floe: no server addresses given")
	// ErrAddress: an address given to New is not host:port with a numeric
	// port in 1..65535.
	ErrAddress = errors.New("floe: invalid server address")
	// ErrOption: an option given to New is out of range.
	ErrOption = errors.New("floe: invalid client option")
	// ErrTokenLength: the token given to WithToken is empty or longer than
	// 255 bytes, so it does not fit an auth frame.
	ErrTokenLength = wire.ErrTokenLength
	// ErrShortReply: the connection ended before the reply's last ID. A
	// server closes the connection on any error of its own (a wrong token,
	// a clock running backwards, a lost worker-ID lease), so this is how
	// each of them reaches the client.
	ErrShortReply = wire.ErrShortReply
	// ErrInvalidReply: a reply held 8 bytes that cannot be an ID from a
	// live server of the client's layout (WithLayout): its time lies
	// further from the local clock than WithMaxSkew allows, it has bits
	// set that the layout never uses, or it is not above the ID before
	// it on the connection. Something other than a noeq server answers
	// at that address (an HTTP server, another protocol), or a server of
	// another layout, or one that repeats IDs. The client drops the
	// connection and fails over; Stats counts these replies.
	ErrInvalidReply = errors.New("floe: invalid reply")
)

// AttemptError is one failed attempt on one server.
type AttemptError struct {
	// Addr is the address dialled (an IP address and port once a name is
	// resolved), or the address as given to New when it could not be
	// resolved. It is empty for the end of the call's context.
	Addr string
	Err  error
}

func (e *AttemptError) Error() string {
	if e.Addr == "" {
		return e.Err.Error()
	}
	return e.Addr + ": " + e.Err.Error()
}

// Unwrap returns the attempt's error.
func (e *AttemptError) Unwrap() error { return e.Err }

// AttemptsError reports a call that failed on every attempt it made: each
// server it tried in turn, and last the end of its context if that is what
// stopped it. Without a limit on attempts (WithMaxAttempts(0)) only the
// latest attempts are kept.
type AttemptsError struct {
	Attempts []*AttemptError // in the order they happened
	Dropped  int             // earlier attempts not listed
}

func (e *AttemptsError) Error() string {
	var b strings.Builder
	b.WriteString("floe: client: ")
	n := e.Dropped
	for _, a := range e.Attempts {
		if a.Addr != "" {
			n++
		}
	}
	if n == 1 {
		b.WriteString("1 attempt failed")
	} else {
		b.WriteString(strconv.Itoa(n))
		b.WriteString(" attempts failed")
	}
	for i, a := range e.Attempts {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(a.Error())
	}
	return b.String()
}

// Unwrap returns every attempt's error, for errors.Is and errors.As.
func (e *AttemptsError) Unwrap() []error {
	errs := make([]error, len(e.Attempts))
	for i, a := range e.Attempts {
		errs[i] = a
	}
	return errs
}
