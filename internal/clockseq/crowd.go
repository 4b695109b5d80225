package clockseq

import (
	"sync"
	"sync/atomic"
)

// crowd makes callers of the single-ID fast path take turns while they
// collide. Lock-free, each reservation moves the state word's cache line
// to the caller's core, and the clock reading before it (a serializing
// read of the time stamp counter) waits for that move: two cores issuing
// at full speed pay about three times what one does. Under a mutex the
// callers that find it held park, and the one that holds it reads the
// clock and adds to a word its core already owns, as a mutex-based
// generator does. Turns begin after collidePerTurn collisions and end
// after calmTurns turns in a row that found the mutex free.
//
// The turns only pace the fast path: what happens inside is the same
// lock-free reservation, so callers outside the turns (those that read
// crowded false) stay correct beside them.
type crowd struct {
	_    [64]byte
	hits atomic.Uint32 // collisions seen on the fast path since the last turns
	_    [60]byte
	mu   sync.Mutex
	calm uint32 // guarded by mu: turns in a row that found mu free
	_    [56]byte
}

const (
	collidePerTurn = 16
	calmTurns      = 4096
)

// collided counts a collision, and starts the turns after enough.
func (c *crowd) collided(s *Seq) {
	if c.hits.Add(1) >= collidePerTurn {
		c.hits.Store(0)
		s.crowded.Store(true)
	}
}

// takeTurn runs the fast path under the mutex, reading the clock inside:
// now is that reading, for a caller that goes on to the loop.
func (s *Seq) takeTurn() (now int64, tick, seq uint64, ok, reread bool) {
	c := &s.crowd
	if c.mu.TryLock() {
		if c.calm++; c.calm >= calmTurns {
			c.calm = 0
			s.crowded.Store(false)
		}
	} else {
		c.mu.Lock()
		c.calm = 0
	}
	now = s.r.now() - s.epoch
	tick, seq, ok, reread = s.fast(now, false)
	c.mu.Unlock()
	return now, tick, seq, ok, reread
}
