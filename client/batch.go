package client

import (
	"context"
	"slices"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/wire"
)

// Batching.
//
// A call for up to 255 IDs queues a waiter and, when fewer fetchers run
// than the pool has connections, starts one. A fetcher boards the waiters
// at the head of the queue onto a flight (up to window·255 IDs, pipelined
// on one connection), asks the server for all of them at once, plus what
// the prefetch buffer lacks, and hands each waiter its IDs in queue order.
// While a flight is in the air new waiters queue, and the next flight takes
// them all: under load, many calls share each round trip.
//
// Waiters own their result: a caller whose context ends leaves the queue,
// or leaves its flight to land without it, and never sees its IDs written
// after it returned. A flight whose callers have all left is called off,
// even when it also carried IDs for the buffer.

// flightMax is the most IDs one flight asks for.
const flightMax = window * wire.MaxCount

// waiter is one call waiting for IDs.
type waiter struct {
	want int           // IDs asked for, 1..255
	done chan struct{} // capacity 1: signalled once ids or err is set
	ids  []id64.ID     // the result, set before done is signalled
	err  error

	fl        *flight // guarded by Client.mu: the flight carrying it; nil while queued
	delivered bool    // guarded by Client.mu: done has been signalled
}

// flight is one exchange run by a fetcher.
type flight struct {
	ctx     context.Context // ends at Close, or when every waiter has left
	cancel  context.CancelFunc
	waiters []*waiter
	want    int        // IDs for the waiters
	extra   int        // IDs for the prefetch buffer
	live    int        // guarded by Client.mu: waiters still waiting
	tries   int        // attempts it makes: 1 for a refill, which no caller waits for
	log     attemptLog // the flight's failed attempts
}

// get fills dst (1..255 IDs) from the prefetch buffer or a flight.
func (c *Client) get(ctx context.Context, dst []id64.ID) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	if c.buf.take(dst, c.opts.now()) {
		c.startLocked(false)
		c.mu.Unlock()
		return nil
	}
	w := c.waiter(len(dst))
	c.queue = append(c.queue, w)
	c.startLocked(true)
	c.mu.Unlock()

	select {
	case <-w.done:
	case <-ctx.Done():
		if err, left := c.leave(ctx, w); left {
			return err
		}
	}
	copy(dst, w.ids)
	err := w.err
	*w = waiter{done: w.done}
	c.waiters.Put(w)
	return err
}

// waiter returns a waiter for want IDs, reusing one from a finished call.
func (c *Client) waiter(want int) *waiter {
	w, _ := c.waiters.Get().(*waiter)
	if w == nil {
		w = &waiter{done: make(chan struct{}, 1)}
	}
	w.want = want
	return w
}

// leave takes w out of the queue or its flight after its caller's context
// ended, and returns the call's error. When w's result has already come it
// takes that instead and reports left false.
func (c *Client) leave(ctx context.Context, w *waiter) (err error, left bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w.delivered {
		<-w.done
		return nil, false
	}
	fl := w.fl
	if fl == nil {
		if i := slices.Index(c.queue, w); i >= 0 {
			c.queue = slices.Delete(c.queue, i, i+1)
		}
		return ctx.Err(), true
	}
	if fl.live--; fl.live == 0 {
		fl.cancel() // the buffer's share is left to the next flight
	}
	return fl.log.err(ctx.Err()), true
}

// startLocked starts a fetcher when there is work for one and fewer run
// than the pool has connections. demand tells that a waiter just queued;
// otherwise a fetcher starts only to refill the prefetch buffer.
func (c *Client) startLocked(demand bool) {
	if c.flying >= c.opts.poolSize || (!demand && c.roomLocked(false) == 0) {
		return
	}
	c.flying++
	c.wg.Add(1)
	go c.fetch()
}

// fetch runs flights until there is nothing left to ask for.
func (c *Client) fetch() {
	defer c.wg.Done()
	for {
		c.mu.Lock()
		fl := c.boardLocked()
		if fl == nil {
			c.flying--
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()

		ids := make([]id64.ID, fl.want+fl.extra)
		sent := c.opts.now()
		_, err := c.fill(fl.ctx, ids, fl.tries, &fl.log)

		c.mu.Lock()
		c.landLocked(fl, ids, sent, err)
		c.mu.Unlock()
	}
}

// boardLocked serves what it can from the buffer, then boards the waiters
// at the head of the queue onto a new flight and adds what the buffer
// lacks. It returns nil when there is nothing to ask for.
func (c *Client) boardLocked() *flight {
	if c.closed {
		return nil
	}
	c.serveLocked()
	fl := &flight{}
	n := 0
	for _, w := range c.queue {
		if n > 0 && fl.want+w.want > flightMax {
			break
		}
		w.fl = fl
		fl.want += w.want
		n++
	}
	fl.waiters = slices.Clone(c.queue[:n])
	clear(c.queue[:n])
	c.queue = c.queue[n:]
	fl.live = n
	fl.extra = min(c.roomLocked(n > 0), flightMax-fl.want)
	if fl.want+fl.extra == 0 {
		return nil
	}
	c.incoming += fl.extra
	fl.tries = c.opts.attempts
	if n == 0 {
		// A refill is best effort: a failure is left for the next
		// call to retry, rather than retried where no caller waits.
		fl.tries = 1
	}
	fl.ctx, fl.cancel = context.WithCancel(c.ctx)
	return fl
}

// landLocked hands a flight's IDs to its waiters, in queue order, and the
// rest to the buffer; or its error to each waiter.
func (c *Client) landLocked(fl *flight, ids []id64.ID, sent time.Time, err error) {
	fl.cancel()
	c.incoming -= fl.extra
	c.refillOff = err != nil
	off := 0
	for _, w := range fl.waiters {
		if err != nil {
			w.err = err
		} else {
			w.ids = ids[off : off+w.want : off+w.want]
			off += w.want
		}
		w.delivered = true
		w.done <- struct{}{}
	}
	if err == nil && !c.closed {
		c.buf.push(ids[off:], sent)
		c.serveLocked()
	}
}

// roomLocked returns how many IDs a flight should add for the prefetch
// buffer; see buffer.room. After a failed flight, refills wait for a call
// to succeed: retrying in the background, where no caller waits, would
// only hammer servers that are down.
func (c *Client) roomLocked(demand bool) int {
	if c.refillOff && !demand {
		return 0
	}
	return c.buf.room(c.incoming, demand)
}

// serveLocked hands buffered IDs to the waiters at the head of the queue,
// as long as there are enough for the first.
func (c *Client) serveLocked() {
	if c.buf.size == 0 {
		return
	}
	now := c.opts.now()
	c.buf.expire(now)
	n := 0
	for _, w := range c.queue {
		if c.buf.n < w.want {
			break
		}
		w.ids = make([]id64.ID, w.want)
		c.buf.take(w.ids, now)
		w.delivered = true
		w.done <- struct{}{}
		n++
	}
	clear(c.queue[:n])
	c.queue = c.queue[n:]
}
