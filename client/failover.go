package client

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/wire"
)

// window is how many requests (of up to 255 IDs each) go out on a
// connection before their replies are read: 4,080 IDs, a 32 KiB reply,
// which socket buffers hold while the server writes and the client reads, so
// neither side blocks the other.
const window = 16

// keepAttempts bounds the attempts an *AttemptsError lists when calls try
// without a limit; enough to see every server of a cluster fail.
const keepAttempts = 16

// aLongTimeAgo is a deadline in the past: setting it makes a connection's
// pending and future I/O fail at once.
var aLongTimeAgo = time.Unix(1, 0)

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
// keeping the IDs that came before the failure, until it has failed tries
// times (0: until ctx ends). It returns how many IDs it filled in, len(out)
// unless the error is not nil.
func (c *Client) fill(ctx context.Context, out []id64.ID, tries int, log *attemptLog) (int, error) {
	filled := 0
	for failures := 0; ; {
		s, err := c.pool.get(ctx)
		if err != nil {
			return filled, c.stop(ctx, log)
		}
		addr, n, err := c.try(ctx, s, out[filled:])
		c.pool.put(s)
		filled += n
		if err == nil {
			return filled, nil
		}
		if c.closing() || ctx.Err() != nil {
			return filled, c.stop(ctx, log)
		}
		failures++
		log.add(&AttemptError{Addr: addr, Err: err})
		c.warn("attempt failed", "addr", addr, "attempt", failures, "err", err)
		if tries > 0 && failures >= tries {
			return filled, log.err(nil)
		}
		if d := c.opts.backoff(failures); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
			case <-c.pool.done:
			}
			t.Stop()
		}
	}
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

// try runs one attempt on the slot's connection, dialling one when the slot
// has none or its endpoint failed since. It returns the address used, how
// many IDs of out it filled, and what went wrong; on error it drops the
// connection and marks its endpoint failed.
//
// A connection taken from the pool that fails before the server answered
// at all is replaced once, at no cost: the server may have closed it while
// it sat idle (floed's idle timeout, a restart). When the server closed it
// for an error of its own, the new connection fails too, and that counts.
func (c *Client) try(ctx context.Context, s *slot, out []id64.ID) (string, int, error) {
	if s.cn != nil && s.cn.gen != s.cn.ep.gen.Load() {
		c.pool.drop(s.cn)
		s.cn = nil
	}
	reused := s.cn != nil
	for {
		if s.cn == nil {
			ep := c.pick()
			cn, addr, err := c.dial(ctx, ep)
			if err != nil {
				if ctx.Err() == nil && err != ErrClosed {
					ep.fail(c.opts.now())
				}
				return addr, 0, err
			}
			s.cn = cn
		}
		cn := s.cn
		n, quiet, err := c.exchange(ctx, cn, out)
		if err == nil {
			return cn.addr, n, nil
		}
		c.pool.drop(cn)
		s.cn = nil
		if ctx.Err() != nil {
			return cn.addr, n, err
		}
		if reused && quiet {
			reused = false
			continue
		}
		cn.ep.fail(c.opts.now())
		return cn.addr, n, err
	}
}

// dial opens a connection to ep.
func (c *Client) dial(ctx context.Context, ep *endpoint) (*conn, string, error) {
	if c.opts.dialTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.dialTimeout)
		defer cancel()
	}
	addr, err := c.target(ctx, ep)
	if err != nil {
		return nil, ep.addr, err
	}
	nc, err := c.opts.dialer(ctx, "tcp", addr)
	if err != nil {
		return nil, addr, err
	}
	cn := &conn{nc: nc, ep: ep, addr: addr, gen: ep.gen.Load(), authed: c.opts.token == ""}
	if err := c.pool.add(cn); err != nil {
		return nil, addr, err
	}
	return cn, addr, nil
}

// exchange asks cn for len(out) IDs, in rounds of up to window pipelined
// requests, and returns how many it received in full rounds, and whether
// it failed before the server sent anything. Each round has the attempt
// timeout as its deadline; the end of ctx interrupts it.
func (c *Client) exchange(ctx context.Context, cn *conn, out []id64.ID) (int, bool, error) {
	stop := context.AfterFunc(ctx, func() { cn.nc.SetDeadline(aLongTimeAgo) })
	defer stop()
	done := 0
	for done < len(out) {
		n := min(len(out)-done, window*wire.MaxCount)
		var deadline time.Time
		if c.opts.timeout > 0 {
			deadline = time.Now().Add(c.opts.timeout)
		}
		if d, ok := ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
			deadline = d
		}
		if err := cn.nc.SetDeadline(deadline); err != nil {
			return done, done == 0, err
		}
		// The deadline just set may have replaced the one set when ctx
		// ended; check ctx after setting it.
		if err := ctx.Err(); err != nil {
			return done, false, err
		}
		req := cn.buf[:0]
		if !cn.authed {
			req, _ = wire.AppendAuth(req, c.opts.token)
		}
		for left := n; left > 0; left -= wire.MaxCount {
			req, _ = wire.AppendRequest(req, min(left, wire.MaxCount))
		}
		cn.buf = req
		if _, err := cn.nc.Write(req); err != nil {
			return done, done == 0, err
		}
		cn.authed = true
		size := n * wire.IDSize
		if cap(cn.buf) < size {
			cn.buf = make([]byte, size)
		}
		reply := cn.buf[:size]
		if got, err := io.ReadFull(cn.nc, reply); err != nil {
			return done, done == 0 && got == 0, fmt.Errorf("%w: %d of %d bytes: %w", ErrShortReply, got, size, err)
		}
		if cap(cn.ids) < n {
			cn.ids = make([]uint64, n)
		}
		ids := cn.ids[:n]
		wire.DecodeIDs(ids, reply)
		for i, id := range ids {
			out[done+i] = id64.ID(id)
		}
		done += n
	}
	return done, false, nil
}
