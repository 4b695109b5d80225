package redisgen

import (
	"errors"
	"strings"
)

// Errors. A failed call returns an *Error listing each attempt; errors.Is
// matches any of these through it.
var (
	// ErrNoShard: a server has no shard ID; set one with Init (floe redis
	// init --shard N). A server that had one lost it in a restart without
	// AOF, and its last tick with it: redisgen is restart-safe only with AOF
	// (see CheckDurable).
	ErrNoShard = errors.New("floe: redis server has no shard id")
	// ErrBadShard: the shard key holds something that is not a shard ID of
	// the layout.
	ErrBadShard = errors.New("floe: redis shard key holds an invalid shard id")
	// ErrDuplicateShard: two servers carry the same shard ID, so their IDs
	// could collide; New refuses them.
	ErrDuplicateShard = errors.New("floe: two redis servers share a shard id")
	// ErrShardChanged: a server's shard ID is no longer the one it had when
	// the client started; the client stops using it.
	ErrShardChanged = errors.New("floe: redis server's shard id changed")
	// ErrShardSet: Init found a different shard ID already set; Init with
	// force replaces it.
	ErrShardSet = errors.New("floe: redis server already has another shard id")
	// ErrExhausted: the tick's sequence is spent on every server tried, and
	// the next tick is further away than the client may wait.
	ErrExhausted = errors.New("floe: sequence exhausted for this tick")
	// ErrLayoutMismatch: the server's state was written under another
	// layout; issuing under this one could repeat IDs.
	ErrLayoutMismatch = errors.New("floe: redis state was written under another layout")
	// ErrLayout: a layout the script cannot run (see New).
	ErrLayout = errors.New("floe: layout does not fit the redis script")
	// ErrNoServers: New was given no addresses.
	ErrNoServers = errors.New("floe: no redis servers given")
	// ErrNotDurable: a server does not persist redisgen's keys across a
	// restart (no AOF, or appendfsync other than always); a
	// *NotDurableError says why. Only CheckDurable returns it.
	ErrNotDurable = errors.New("floe: redis server is not restart-safe for redisgen")
	// ErrBadReply: the script answered with something else than it writes.
	ErrBadReply = errors.New("floe: unexpected reply from the redis script")
)

// AttemptError is one failed attempt on one server.
type AttemptError struct {
	Addr string
	Err  error
}

func (e *AttemptError) Error() string { return e.Addr + ": " + e.Err.Error() }

// Unwrap returns the attempt's error.
func (e *AttemptError) Unwrap() error { return e.Err }

// Error reports a call that failed on every attempt, or a start-up check
// that failed on one or more servers. It lists each failure.
type Error struct {
	Op       string          // "next" or "start"
	Attempts []*AttemptError // in the order they happened
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("floe: redisgen ")
	b.WriteString(e.Op)
	b.WriteString(" failed")
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
func (e *Error) Unwrap() []error {
	errs := make([]error, len(e.Attempts))
	for i, a := range e.Attempts {
		errs[i] = a
	}
	return errs
}
