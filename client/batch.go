package client

import (
	"context"
	"slices"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/wire"
)

// Batching (group commit).
//
// A call for up to 255 IDs queues a waiter. While fewer flights than
// c.flights (the pool's size; one with prefetch) are in the air, the
// waiters at the head of the queue board a new one (up to window·255 IDs,
// pipelined on one connection), and the first of them becomes its pilot:
// its own goroutine asks the server for all of their IDs, plus what the
// prefetch buffer lacks, reads the reply and hands each waiter its IDs in
// queue order. So a call that comes while a flight can leave flies at
// once, alone, doing its own I/O with no hand-over between goroutines.
// While that many flights are in the air new waiters queue; when one
// lands, its pilot boards them all onto the next flight (a full flight's
// worth, and the rest onto the next to land), sends that flight's requests
// on the connection it holds, and wakes the first of them to read the
// replies and land it. So under load each round trip serves every call
// that came while every flight was in the air; with a pool of one, or with
// prefetch, every call that came during the round trip before.
//
// Waiters own their result: a caller whose context ends leaves the queue,
// or leaves its flight to land without it, and never sees its IDs written
// after it returned. A pilot whose context ends stops its flight's I/O
// (the connection is dropped, its reply unread) and hands the flight to
// the next waiter aboard, which flies it again; a flight with no waiter
// left is called off, even when it also carried IDs for the buffer.
// Refills of the prefetch buffer, which no caller waits for, are flown by a
// goroutine of the client's.
//
// With prefetch, one flight is in the air at a time, whatever the pool's
// size: each then leaves after the one before landed, so its IDs are above
// all the buffer holds, and the buffer hands them out in the order they
// were issued. A call the buffer cannot serve queues for the next flight
// and is served from the buffer when the flight in the air lands. Were it
// to fly beside that flight, its newer IDs could land first, and the older
// ones would reach the buffer after them and go to later calls. The
// buffer drops what is not above every ID handed out before (buffer.raise),
// which covers what remains: runs of NextN, failover.

// flightMax is the most IDs one flight asks for.
const flightMax = window * wire.MaxCount

// waiter is one call waiting for IDs.
type waiter struct {
	want int // IDs asked for, 1..255
	// done has capacity 1. It is signalled once the result (ids or err)
	// is set, or once the waiter is made its flight's pilot; a pilot sets
	// its own result.
	done chan struct{}
	ids  []id64.ID
	err  error

	fl        *flight // guarded by Client.mu: the flight carrying it; nil while queued
	pilot     bool    // guarded by Client.mu: it flies fl
	left      bool    // guarded by Client.mu: its caller returned without a result
	delivered bool    // guarded by Client.mu: the result is set
}

// flight is one exchange for the waiters aboard and the prefetch buffer,
// run by its pilot.
type flight struct {
	waiters []*waiter     // immutable: in queue order
	ids     []id64.ID     // immutable: the waiters' shares in their order, then the buffer's
	extra   int           // immutable: IDs for the prefetch buffer
	tries   int           // immutable: attempts it makes; 1 for a refill, which no caller waits for
	sent    time.Duration // immutable: c.clock when it boarded, before its requests went out, when extra > 0
	live    int           // guarded by Client.mu: waiters that have not left

	// Only the pilot touches these; a new pilot takes over under
	// Client.mu.
	slot   *slot      // when not nil, the flight holds it, and its connection carries the flight's requests
	filled int        // IDs of ids received, in complete rounds
	log    attemptLog // its failed attempts
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
	if c.buf.size > 0 && c.buf.take(dst, c.clock()) {
		c.departLocked(nil) // a refill, when the buffer fell below half
		c.mu.Unlock()
		return nil
	}
	w := c.waiter(len(dst))
	c.queue = append(c.queue, w)
	c.queued += w.want
	c.departLocked(nil)
	c.mu.Unlock()

	select {
	case <-w.done:
	case <-ctx.Done():
		if err, left := c.leave(ctx, w); left {
			return err
		}
	}
	// Nothing else writes w once it is delivered or flying.
	if w.pilot && !w.delivered {
		if err := c.fly(ctx, w); err != nil {
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
			c.queued -= w.want
		}
		return ctx.Err(), true
	}
	if w.pilot {
		<-w.done // made pilot, and never took off
	}
	c.abandonLocked(w)
	return fl.log.err(ctx.Err()), true
}

// abandonLocked takes w, whose caller is returning, off its flight. A
// pilot hands the flight to the next waiter aboard; with none left, the
// flight is called off.
func (c *Client) abandonLocked(w *waiter) {
	fl := w.fl
	w.left = true
	fl.live--
	if !w.pilot {
		return
	}
	w.pilot = false
	for _, next := range fl.waiters {
		if !next.left {
			next.pilot = true
			next.done <- struct{}{}
			return
		}
	}
	c.flying--
	c.incoming -= fl.extra
	if s := fl.slot; s != nil {
		fl.slot = nil
		c.pool.drop(s.cn) // the reply is left unread
		s.cn = nil
		c.pool.put(s)
	}
	c.departLocked(nil)
}

// fly runs the flight whose pilot w is, and lands it. When ctx ends first,
// w leaves the flight to another pilot and fly returns the call's error;
// otherwise it returns nil and w has its result.
func (c *Client) fly(ctx context.Context, w *waiter) error {
	fl := w.fl
	if err := ctx.Err(); err != nil {
		// Leave at once: the next pilot may still read the reply.
		c.mu.Lock()
		defer c.mu.Unlock()
		c.abandonLocked(w)
		return fl.log.err(err)
	}
	held := fl.slot
	fl.slot = nil
	n, s, err := c.fill(ctx, fl.ids[fl.filled:], fl.tries, &fl.log, held)
	fl.filled += n

	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil && ctx.Err() != nil && !c.closed && (fl.tries == 0 || fl.log.failures() < fl.tries) {
		c.abandonLocked(w)
		return fl.log.err(ctx.Err())
	}
	c.landLocked(fl, err, s)
	return nil
}

// refill flies fl, a refill of the prefetch buffer with no waiter aboard.
func (c *Client) refill(fl *flight) {
	defer c.wg.Done()
	held := fl.slot
	fl.slot = nil
	_, s, err := c.fill(c.ctx, fl.ids, fl.tries, &fl.log, held)
	c.mu.Lock()
	c.landLocked(fl, err, s)
	c.mu.Unlock()
}

// departLocked starts flights while there is work for them, up to
// c.flights in the air. s, when not nil, is the slot of a flight that
// just landed: the first new flight sends its requests on it at once, and
// otherwise it goes back to the pool.
func (c *Client) departLocked(s *slot) {
	for !c.closed && c.flying < c.flights {
		fl := c.boardLocked()
		if fl == nil {
			break
		}
		c.flying++
		if s != nil {
			c.presendLocked(fl, s)
			s = nil
		}
		if len(fl.waiters) == 0 {
			c.wg.Add(1)
			go c.refill(fl)
			continue
		}
		pilot := fl.waiters[0]
		pilot.pilot = true
		pilot.done <- struct{}{}
	}
	if s != nil {
		c.pool.put(s)
	}
}

// presendLocked sends fl's requests on the connection of s, which has just
// served the flight before, so that the requests go out at once, not once
// fl's pilot has woken up; fl then holds s, and its pilot reads the
// replies. The connection has nothing else outstanding and a request is
// at most 16 bytes, so the write does not wait for the server. When it
// fails, that is fl's first failed attempt, and s goes back to the pool.
func (c *Client) presendLocked(fl *flight, s *slot) {
	cn := s.cn
	if cn == nil || cn.gen != cn.ep.gen.Load() {
		c.pool.put(s)
		return
	}
	if err := c.send(context.Background(), cn, len(fl.ids)); err != nil {
		c.pool.drop(cn)
		s.cn = nil
		cn.ep.fail(c.opts.now())
		c.failed(&fl.log, cn.addr, 1, err)
		c.pool.put(s)
		return
	}
	fl.slot = s
}

// boardLocked serves what it can from the buffer, then boards the waiters
// at the head of the queue onto a new flight and adds what the buffer
// lacks. It returns nil when there is nothing to ask for.
func (c *Client) boardLocked() *flight {
	c.serveLocked()
	n, want := 0, 0
	for _, w := range c.queue {
		if n > 0 && want+w.want > flightMax {
			break
		}
		want += w.want
		n++
	}
	extra := 0
	if c.buf.size > 0 {
		extra = min(c.roomLocked(n > 0), flightMax-want)
	}
	if want+extra == 0 {
		return nil
	}
	fl := &flight{
		waiters: slices.Clone(c.queue[:n]),
		ids:     make([]id64.ID, want+extra),
		extra:   extra,
		tries:   c.opts.attempts,
		live:    n,
	}
	if extra > 0 {
		// Before any of its requests go out: an ID's age is never
		// understated.
		fl.sent = c.clock()
	}
	if n == 0 {
		// A refill is best effort: a failure is left for the next
		// call to retry, rather than retried where no caller waits.
		fl.tries = 1
	}
	for _, w := range fl.waiters {
		w.fl = fl
	}
	c.dequeueLocked(n, want)
	c.incoming += extra
	return fl
}

// dequeueLocked takes the first n waiters, for want IDs, off the queue.
func (c *Client) dequeueLocked(n, want int) {
	clear(c.queue[:n])
	if n == len(c.queue) {
		c.queue = c.queue[:0] // keeps the array for the next waiters
	} else {
		c.queue = c.queue[n:]
	}
	c.queued -= want
}

// landLocked hands a flight's IDs to its waiters, in queue order, and the
// rest to the buffer, which then drops what is not above the waiters'
// IDs; or its error to each waiter. Then the next flight
// leaves, on s when not nil: the slot that served this one, still held.
// The waiters are woken last, once the next flight's requests are out.
func (c *Client) landLocked(fl *flight, err error, s *slot) {
	c.flying--
	c.incoming -= fl.extra
	c.refillOff = err != nil
	off := 0
	var top id64.ID // the highest ID handed to a waiter
	for _, w := range fl.waiters {
		ids := fl.ids[off : off+w.want : off+w.want]
		off += w.want
		if w.left {
			continue
		}
		if err != nil {
			w.err = err
		} else {
			w.ids = ids
			top = ids[len(ids)-1]
		}
		w.delivered = true
	}
	if err == nil && !c.closed {
		c.buf.raise(top)
		c.buf.push(fl.ids[off:], fl.sent)
		c.serveLocked()
	}
	c.departLocked(s)
	for _, w := range fl.waiters {
		if !w.left && !w.pilot {
			w.done <- struct{}{} // w is its caller's again
		}
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
	if c.buf.size == 0 || len(c.queue) == 0 {
		return
	}
	now := c.clock()
	c.buf.expire(now)
	n, want := 0, 0
	for _, w := range c.queue {
		if c.buf.n < w.want {
			break
		}
		n++
		want += w.want
		w.ids = make([]id64.ID, w.want)
		c.buf.take(w.ids, now)
		w.delivered = true
		w.done <- struct{}{} // w is its caller's again
	}
	c.dequeueLocked(n, want)
}
