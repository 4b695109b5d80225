package client

import (
	"context"
	"sync"
	"time"

	"github.com/floeid/floe/id64"
)

// keepAttempts bounds the attempts an *AttemptsError lists when calls try
// without a limit; enough to see every server of a cluster fail.
const keepAttempts = 16

// attemptLog collects the failed attempts of one call. A flight's log is
// read by the callers it serves when they give up, so it has a lock.
type attemptLog struct {
	mu      sync.Mutex
	list    []*AttemptError // guarded by mu
	dropped int             // guarded by mu
}

func (l *attemptLog) add(a *AttemptError) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.list) == keepAttempts {
		l.list = append(l.list[:0], l.list[1:]...)
		l.dropped++
	}
	l.list = append(l.list, a)
}

// failures returns how many attempts have failed.
func (l *attemptLog) failures() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.list) + l.dropped
}

// err returns the attempts so far as an *AttemptsError, with end (the end
// of the call's context) as the last one when not nil. With no failed
// attempt it returns end alone.
func (l *attemptLog) err(end error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.list) == 0 {
		return end
	}
	e := &AttemptsError{Attempts: append([]*AttemptError(nil), l.list...), Dropped: l.dropped}
	if end != nil {
		e.Attempts = append(e.Attempts, &AttemptError{Err: end})
	}
	return e
}

// fill fills out with IDs from the servers. A failed attempt drops its
// connection, passes its address over for a while, waits out the back-off
// and tries again, on a connection to another address where one is up,
// keeping the IDs that came before the failure, until the attempts in log
// have failed tries times (0: until ctx ends). The log may hold failures
// from before, when a flight changes pilots: fill then waits out the
// back-off first.
//
// held, when not nil, is a slot the caller holds whose connection already
// carries the requests for out (at most one round): the first attempt
// reads their replies.
//
// fill returns how many IDs it filled in, len(out) unless the error is not
// nil, and on success the slot it used, still held, for the caller to
// put back.
func (c *Client) fill(ctx context.Context, out []id64.ID, tries int, log *attemptLog, held *slot) (int, *slot, error) {
	filled := 0
	failures := log.failures()
	if tries > 0 && failures >= tries {
		if held != nil {
			c.pool.put(held)
		}
		return 0, nil, log.err(nil)
	}
	for {
		s, sent := held, held != nil
		held = nil
		if !sent {
			if failures > 0 {
				if d := c.opts.backoff(failures); d > 0 {
					t := time.NewTimer(d)
					select {
					case <-t.C:
					case <-ctx.Done():
					case <-c.pool.done:
					}
					t.Stop()
				}
				if c.closing() || ctx.Err() != nil {
					return filled, nil, c.stop(ctx, log)
				}
			}
			var err error
			if s, err = c.pool.get(ctx); err != nil {
				return filled, nil, c.stop(ctx, log)
			}
		}
		addr, n, err := c.try(ctx, s, out[filled:], sent)
		filled += n
		if err == nil {
			return filled, s, nil
		}
		c.pool.put(s)
		if c.closing() || ctx.Err() != nil {
			return filled, nil, c.stop(ctx, log)
		}
		failures++
		c.failed(log, addr, failures, err)
		if tries > 0 && failures >= tries {
			return filled, nil, log.err(nil)
		}
	}
}

// failed records a failed attempt in log.
func (c *Client) failed(log *attemptLog, addr string, failures int, err error) {
	log.add(&AttemptError{Addr: addr, Err: err})
	c.warn("attempt failed", "addr", addr, "attempt", failures, "err", err)
}

// stop is the error of a call that stopped because the client closed or
// its context ended.
func (c *Client) stop(ctx context.Context, log *attemptLog) error {
	if c.closing() {
		return ErrClosed
	}
	return log.err(ctx.Err())
}

// closing reports whether Close has begun.
func (c *Client) closing() bool {
	select {
	case <-c.pool.done:
		return true
	default:
		return false
	}
}
