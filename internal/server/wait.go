package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// How long a request may wait: for its sequence's turn behind earlier
// requests, and at the reservation ceiling for the keeper to extend the
// reservation. Each request waits at most Config.MaxWait from its own
// arrival, however many wait before it; a request whose client has gone
// (an HTTP request's context cancelled, a binary connection closed by its
// peer) stops waiting and gives its turn up; and a stop ends every wait at
// once. A request that does not wait pays none of this: the bound is built
// at its first wait.

// errClientGone ends the wait of a request whose client went away.
var errClientGone = errors.New("the client went away while the request waited")

// noWait is a context already done: the sequencer returns at the
// reservation ceiling instead of waiting, and the request builds its bound.
var noWait = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// waiter bounds the waits of one request. It is built on the request's
// stack; only a request that waits builds the context.
type waiter struct {
	s       *Server
	arrival time.Time
	client  context.Context // an HTTP request's context, or nil
	c       *conn           // the binary connection, or nil

	ctx    context.Context // set at the first wait
	cancel context.CancelCauseFunc
	untime context.CancelFunc // stops the deadline's timer
	unhalt func() bool        // stops the stop's cancellation
	peer   *peerWatch         // binary: watches for the peer's close
}

// context returns the request's bound, building it at the first call:
// MaxWait from its arrival, the client's context, the server's stop and,
// on a binary connection, its peer's close.
func (w *waiter) context() context.Context {
	if w.ctx != nil {
		return w.ctx
	}
	parent := w.client
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancelCause(parent)
	w.cancel = cancel
	w.ctx, w.untime = context.WithDeadline(ctx, w.arrival.Add(w.s.cfg.MaxWait))
	w.unhalt = context.AfterFunc(w.s.halt, func() { cancel(errShuttingDown) })
	if w.c != nil {
		w.peer = w.c.watchPeer(cancel)
	}
	return w.ctx
}

// bound returns the context to issue with: the request's bound once built,
// else noWait, so that a first try does not wait.
func (w *waiter) bound() context.Context {
	if w.ctx != nil {
		return w.ctx
	}
	return noWait
}

// done releases what the bound holds; a binary connection reads again
// from where the watch of its peer stopped.
func (w *waiter) done() {
	if w.ctx == nil {
		return
	}
	w.unhalt()
	w.untime()
	w.cancel(nil)
	if w.peer != nil {
		w.c.endWatch(w.peer)
	}
}

// ended returns the error of a wait that ended before its turn or its IDs:
// the stop, a client gone, or MaxWait spent (then why the sequence cannot
// issue, if it knows, else that earlier requests held the turn).
func (w *waiter) ended(seq *sequence) error {
	if err := context.Cause(w.ctx); errors.Is(err, errShuttingDown) || errors.Is(err, errClientGone) {
		return err
	}
	if w.client != nil && w.client.Err() != nil {
		return errClientGone
	}
	if err := seq.ready(); err != nil {
		return err
	}
	return fmt.Errorf("%w: sequence %q: no turn within the longest wait (%v): the requests before this one still wait", ErrNotReady, seq.name, w.s.cfg.MaxWait)
}

// why returns err, the error a bounded call returned, or what ended the
// wait when that was the stop or a client gone.
func (w *waiter) why(err error) error {
	if err == nil || w.ctx == nil {
		return err
	}
	if cause := context.Cause(w.ctx); errors.Is(cause, errShuttingDown) || errors.Is(cause, errClientGone) {
		return cause
	}
	if w.client != nil && w.client.Err() != nil {
		return errClientGone
	}
	return err
}

// errShuttingDown ends the waits of the requests in progress at a stop.
var errShuttingDown = fmt.Errorf("%w: shutting down", ErrNotReady)

// peerWatch reads a binary connection while its request waits, so that
// the peer's close ends the wait. The bytes it reads (pipelined requests)
// are served after the request.
type peerWatch struct {
	buf  []byte
	done chan struct{}
}

// watchPeer starts reading c until endWatch; an end of stream or a reset
// cancels the request's wait with errClientGone. It reads at most inSize
// bytes: a client that pipelines more is still there. A client that
// half-closes after its requests (none known does) loses the wait of the
// request in progress.
func (c *conn) watchPeer(cancel context.CancelCauseFunc) *peerWatch {
	p := &peerWatch{buf: make([]byte, 0, inSize), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for len(p.buf) < cap(p.buf) {
			n, err := c.nc.Read(p.buf[len(p.buf):cap(p.buf)])
			p.buf = p.buf[:len(p.buf)+n]
			if err == nil {
				continue
			}
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				cancel(errClientGone)
			}
			return
		}
	}()
	return p
}

// endWatch stops the watch p and keeps what it read for serve. The read
// deadline returns to the connection's, unless Shutdown or a drop set it
// to the past meanwhile.
func (c *conn) endWatch(p *peerWatch) {
	c.nc.SetReadDeadline(time.Unix(1, 0))
	<-p.done
	c.nc.SetReadDeadline(c.deadline)
	if c.interrupted.Load() || c.dropped.Load() {
		c.nc.SetReadDeadline(time.Unix(1, 0))
	}
	c.pending = append(c.pending, p.buf...)
}
