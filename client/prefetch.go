package client

import (
	"slices"
	"time"

	"github.com/floeid/floe/id64"
)

// buffer holds prefetched IDs in increasing order, in the batches they
// came in. Every ID it hands out is above every ID the client handed out
// before (floor): IDs that are not are dropped, so the client's IDs never
// step back when a call takes from the buffer. It is not safe for
// concurrent use: the Client guards it with its mutex.
type buffer struct {
	size     int           // immutable: the most IDs kept; 0 turns prefetching off
	validity time.Duration // immutable: how long after its request an ID may be handed out
	chunks   []chunk       // their IDs increase across chunks, and all are above floor
	n        int           // IDs in chunks
	floor    id64.ID       // the highest ID the client has handed out
}

// chunk is the part of one reply that went to the buffer.
type chunk struct {
	ids []id64.ID // increasing; never written after push: waiters may hold sub-slices
	// sent is when the flight boarded, before its request went out, as
	// Client.clock: a monotonic time. The server made the IDs after
	// that, so an ID's age measured from sent is never less than its true
	// age: a stale ID is never taken for a fresh one.
	sent time.Duration
}

// expire drops the batches whose validity has run out by now. All are
// checked, which is cheap: the buffer holds a few batches at most.
func (b *buffer) expire(now time.Duration) {
	kept := b.chunks[:0]
	for _, ch := range b.chunks {
		if now-ch.sent < b.validity {
			kept = append(kept, ch)
		} else {
			b.n -= len(ch.ids)
		}
	}
	clear(b.chunks[len(kept):])
	b.chunks = kept
}

// available returns how many valid IDs the buffer holds at now.
func (b *buffer) available(now time.Duration) int {
	if b.n == 0 {
		return 0
	}
	b.expire(now)
	return b.n
}

// take fills dst from the oldest batches if the buffer holds enough valid
// IDs at now, and reports whether it did.
func (b *buffer) take(dst []id64.ID, now time.Duration) bool {
	if b.available(now) < len(dst) {
		return false
	}
	for len(dst) > 0 {
		ch := &b.chunks[0]
		k := copy(dst, ch.ids)
		b.floor = dst[k-1]
		dst = dst[k:]
		b.n -= k
		if ch.ids = ch.ids[k:]; len(ch.ids) == 0 {
			b.chunks[0] = chunk{}
			b.chunks = b.chunks[1:]
		}
	}
	return true
}

// push adds the IDs of a reply, which increase, whose request was sent at
// sent. IDs not above the floor and every ID already buffered are dropped.
func (b *buffer) push(ids []id64.ID, sent time.Duration) {
	top := b.floor
	if k := len(b.chunks); k > 0 {
		last := b.chunks[k-1].ids
		top = max(top, last[len(last)-1])
	}
	ids = ids[atMost(ids, top):]
	if len(ids) == 0 {
		return
	}
	b.chunks = append(b.chunks, chunk{ids: ids, sent: sent})
	b.n += len(ids)
}

// raise records that the client handed out IDs up to id other than from
// the buffer, and drops the buffered IDs that are not above it.
func (b *buffer) raise(id id64.ID) {
	if id <= b.floor {
		return
	}
	b.floor = id
	for len(b.chunks) > 0 {
		ch := &b.chunks[0]
		k := atMost(ch.ids, id)
		b.n -= k
		if ch.ids = ch.ids[k:]; len(ch.ids) > 0 {
			return // the chunks after it are above it
		}
		b.chunks[0] = chunk{}
		b.chunks = b.chunks[1:]
	}
}

// atMost returns how many of ids, which increase, are at most id.
func atMost(ids []id64.ID, id id64.ID) int {
	if len(ids) == 0 || ids[0] > id {
		return 0
	}
	i, found := slices.BinarySearch(ids, id)
	if found {
		i++
	}
	return i
}

// room returns how many IDs a flight should add for the buffer, given the
// IDs already on their way. A flight that goes out for waiters anyway
// (demand) tops the buffer up; otherwise one goes out only once the buffer
// has fallen below half.
func (b *buffer) room(incoming int, demand bool) int {
	have := b.n + incoming
	if b.size == 0 || have >= b.size || (!demand && have >= b.size/2) {
		return 0
	}
	return b.size - have
}

// reset empties the buffer.
func (b *buffer) reset() {
	clear(b.chunks)
	b.chunks = nil
	b.n = 0
}
