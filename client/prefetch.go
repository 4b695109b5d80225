package client

import (
	"time"

	"github.com/floeid/floe/id64"
)

// buffer holds prefetched IDs in the batches they came in, oldest request
// first. It is not safe for concurrent use: the Client guards it with its
// mutex.
type buffer struct {
	size     int           // immutable: the most IDs kept; 0 turns prefetching off
	validity time.Duration // immutable: how long after its request an ID may be handed out
	chunks   []chunk
	n        int // IDs in chunks
}

// chunk is the part of one reply that went to the buffer.
type chunk struct {
	ids []id64.ID // never written after push: waiters may hold sub-slices
	// sent is when the request went out. The server made the IDs after
	// that, so an ID's age measured from sent is never less than its true
	// age: a stale ID is never taken for a fresh one.
	sent time.Time
}

// expire drops the batches whose validity has run out by now. Batches come
// in from several connections, so an older one may follow a newer one: all
// are checked.
func (b *buffer) expire(now time.Time) {
	kept := b.chunks[:0]
	for _, ch := range b.chunks {
		if now.Sub(ch.sent) < b.validity {
			kept = append(kept, ch)
		} else {
			b.n -= len(ch.ids)
		}
	}
	clear(b.chunks[len(kept):])
	b.chunks = kept
}

// available returns how many valid IDs the buffer holds at now.
func (b *buffer) available(now time.Time) int {
	if b.n == 0 {
		return 0
	}
	b.expire(now)
	return b.n
}

// take fills dst from the oldest batches if the buffer holds enough valid
// IDs at now, and reports whether it did.
func (b *buffer) take(dst []id64.ID, now time.Time) bool {
	if b.available(now) < len(dst) {
		return false
	}
	for len(dst) > 0 {
		ch := &b.chunks[0]
		k := copy(dst, ch.ids)
		dst = dst[k:]
		b.n -= k
		if ch.ids = ch.ids[k:]; len(ch.ids) == 0 {
			b.chunks[0] = chunk{}
			b.chunks = b.chunks[1:]
		}
	}
	return true
}

// push adds the IDs of a reply whose request was sent at sent.
func (b *buffer) push(ids []id64.ID, sent time.Time) {
	if len(ids) == 0 {
		return
	}
	b.chunks = append(b.chunks, chunk{ids: ids, sent: sent})
	b.n += len(ids)
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
