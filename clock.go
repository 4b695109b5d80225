package floe

import (
	"sync/atomic"
	"time"
)

// Clock tells generators the time. SystemClock and MonotonicClock are the
// two real clocks; tests inject a fake one (floetest.Clock) to step and
// rewind time without sleeping.
//
// Implementations must be safe for concurrent use.
type Clock interface {
	Now() time.Time
}

// SystemClock reads the wall clock (time.Now) on every call. It shows every
// step of the wall clock, backwards ones included, to the generator's clock
// policy.
var SystemClock Clock = systemClock{}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// UnixNano is Now().UnixNano(), for generators that need only that.
func (systemClock) UnixNano() int64 { return time.Now().UnixNano() }

// MonotonicClock reads the process's monotonic clock, anchored to the wall
// clock when first used. Steps of the wall clock backwards inside one process
// are invisible to it; when the wall clock moves ahead of it (a step forward,
// or time spent suspended, which the monotonic clock does not count) it
// catches up within a second. Its readings never decrease.
//
// It costs about half a wall-clock reading, because it reads one clock
// instead of two. It is the default clock of every generator.
var MonotonicClock Clock = &monotonicClock{}

// recheckEvery bounds how long MonotonicClock can lag a wall clock that moved
// ahead: one wall reading per second is free next to millions of IDs.
const recheckEvery = time.Second

type monotonicClock struct {
	anchor atomic.Pointer[anchor] // replaced, never mutated
}

type anchor struct {
	wall  int64         // immutable: Unix nanoseconds at mono
	mono  time.Time     // immutable: a reading that carries the monotonic clock
	check time.Duration // immutable: elapsed time after which to compare with the wall clock
}

func newAnchor(now time.Time, wall int64) *anchor {
	return &anchor{wall: wall, mono: now, check: recheckEvery}
}

func (c *monotonicClock) Now() time.Time { return time.Unix(0, c.UnixNano()) }

// UnixNano is Now().UnixNano() without building a time.Time: the
// generators read it on every call.
func (c *monotonicClock) UnixNano() int64 {
	a := c.anchor.Load()
	if a == nil {
		now := time.Now()
		c.anchor.CompareAndSwap(nil, newAnchor(now, now.UnixNano()))
		a = c.anchor.Load()
	}
	d := time.Since(a.mono) // reads only the monotonic clock
	ns := a.wall + int64(d)
	if d >= a.check {
		ns = c.recheck(a, ns)
	}
	return ns
}

// recheck compares the anchored reading ns with the wall clock and re-anchors
// on whichever is later, so readings never go back.
func (c *monotonicClock) recheck(a *anchor, ns int64) int64 {
	now := time.Now()
	wall := now.UnixNano()
	next := newAnchor(now, wall)
	if wall < ns {
		next.wall = ns // the wall clock went back: keep counting from here
	}
	if c.anchor.CompareAndSwap(a, next) {
		return next.wall
	}
	// Another caller re-anchored first; its anchor is at least as late.
	b := c.anchor.Load()
	return max(ns, b.wall+int64(time.Since(b.mono)))
}

// Sleeper is a Clock that also decides how a generator waits for it. A
// generator whose Clock is a Sleeper calls Sleep instead of time.Sleep while
// it waits for the clock to reach a tick; a fake clock advances its own time
// there, so tests of waiting need no real sleep.
type Sleeper interface {
	Clock
	Sleep(d time.Duration)
}
