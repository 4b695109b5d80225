package client

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/wire"
)

// window is how many requests (of up to 255 IDs each) go out on a
// connection before their replies are read: 4,080 IDs, a 32 KiB reply,
// which socket buffers hold while the server writes and the client reads, so
// neither side blocks the other.
const window = 16

// roundMax is the most IDs one round of pipelined requests asks for.
const roundMax = window * wire.MaxCount

// aLongTimeAgo is a deadline in the past: setting it makes a connection's
// pending and future I/O fail at once.
var aLongTimeAgo = time.Unix(1, 0)

// try runs one attempt on the slot's connection, dialling one when the slot
// has none or its endpoint failed since. It returns the address used, how
// many IDs of out it filled, and what went wrong; on error it drops the
// connection and marks its endpoint failed.
//
// When sent is set, the slot's connection already carries the requests
// for out (one round, sent by send), and the attempt reads their replies.
//
// A connection taken from the pool that fails before the server answered
// at all is replaced once, at no cost: the server may have closed it while
// it sat idle (floed's idle timeout, a restart). When the server closed it
// for an error of its own, the new connection fails too, and that counts.
func (c *Client) try(ctx context.Context, s *slot, out []id64.ID, sent bool) (string, int, error) {
	if !sent && s.cn != nil && s.cn.gen != s.cn.ep.gen.Load() {
		c.pool.drop(s.cn)
		s.cn = nil
	}
	reused := s.cn != nil && !sent
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
		n, quiet, err := c.exchange(ctx, cn, out, sent)
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
	if c.opts.tls != nil {
		if nc, err = c.handshake(ctx, ep, nc); err != nil {
			return nil, addr, err
		}
	}
	cn := &conn{nc: nc, ep: ep, addr: addr, gen: ep.gen.Load(), authed: c.opts.token == ""}
	if err := c.pool.add(cn); err != nil {
		return nil, addr, err
	}
	return cn, addr, nil
}

// handshake runs the TLS handshake on nc, a new connection to ep, and
// returns the TLS connection; it closes nc on failure.
func (c *Client) handshake(ctx context.Context, ep *endpoint, nc net.Conn) (net.Conn, error) {
	cfg := c.opts.tls
	if cfg.ServerName == "" {
		cfg = cfg.Clone()
		cfg.ServerName = ep.host
	}
	tc := tls.Client(nc, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		nc.Close()
		return nil, fmt.Errorf("TLS handshake with %s: %w", ep.addr, err)
	}
	return tc, nil
}

// exchange asks cn for len(out) IDs, in rounds of up to window pipelined
// requests, and returns how many it received in full rounds, and whether
// it failed before the server sent anything. When sent is set, the first
// round's requests are already on their way. Each round has the attempt
// timeout as its deadline, counted from when its requests went out; the
// end of ctx interrupts it.
func (c *Client) exchange(ctx context.Context, cn *conn, out []id64.ID, sent bool) (int, bool, error) {
	if ctx.Done() != nil {
		interrupted := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			cn.nc.SetDeadline(aLongTimeAgo)
			close(interrupted)
		})
		// When the interruption has begun, wait for it to end, so that
		// it cannot spoil the deadline of the connection's next round.
		defer func() {
			if !stop() {
				<-interrupted
			}
		}()
	}
	done := 0
	for done < len(out) {
		n := min(len(out)-done, roundMax)
		if sent {
			sent = false
			if err := c.await(ctx, cn); err != nil {
				return done, false, err
			}
		} else if err := c.send(ctx, cn, n); err != nil {
			return done, done == 0, err
		}
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
		if err := c.verify(cn, ids); err != nil {
			return done, false, err
		}
		for i, id := range ids {
			out[done+i] = id64.ID(id)
		}
		done += n
	}
	return done, false, nil
}

// send writes the requests for n IDs (at most roundMax) to cn, after the
// auth frame on a new connection, with the attempt timeout (or the end of
// ctx, when sooner) as the deadline of the round.
func (c *Client) send(ctx context.Context, cn *conn, n int) error {
	var deadline time.Time
	if c.opts.timeout > 0 {
		deadline = time.Now().Add(c.opts.timeout)
	}
	if d, ok := ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
		deadline = d
	}
	if err := cn.nc.SetDeadline(deadline); err != nil {
		return err
	}
	cn.deadline = deadline
	// The deadline just set may have replaced the one set when ctx
	// ended; check ctx after setting it.
	if err := ctx.Err(); err != nil {
		return err
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
		return err
	}
	cn.authed = true
	return nil
}

// await prepares to read the replies to requests that another goroutine
// sent on cn: the round's deadline moves up to the end of ctx when that is
// sooner.
func (c *Client) await(ctx context.Context, cn *conn) error {
	if d, ok := ctx.Deadline(); ok && (cn.deadline.IsZero() || d.Before(cn.deadline)) {
		if err := cn.nc.SetDeadline(d); err != nil {
			return err
		}
		cn.deadline = d
	}
	return ctx.Err()
}
