package floe

import (
	"sync/atomic"
	"time"

	"github.com/floeid/floe/internal/tsc"
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
// On Linux, where the kernel itself keeps time with the processor's
// invariant counter (amd64's time-stamp counter, arm64's virtual counter),
// it reads that counter directly, converted by a calibration it re-anchors
// against the monotonic clock every 16 µs. Such a reading lies within 4 µs
// of the monotonic clock, a bound the code enforces: a re-anchor that finds
// more stops reading the counter for good. Elsewhere it reads the monotonic
// clock itself, about half the cost of a wall-clock reading.
//
// Generators with ticks shorter than 100 µs read it precisely instead
// (PreciseUnixNano), since 4 µs is then no longer small next to a tick.
// It is the default clock of every generator.
var MonotonicClock Clock = &monotonicClock{}

// preciseMonotonic is MonotonicClock without the counter: every reading
// is a monotonic clock reading. It has its own anchor, so that its readings
// never decrease either.
var preciseMonotonic = &monotonicClock{precise: true}

// recheckEvery bounds how long MonotonicClock can lag a wall clock that moved
// ahead: one wall reading per second is free next to millions of IDs.
const recheckEvery = time.Second

type monotonicClock struct {
	anchor  atomic.Pointer[anchor] // replaced, never mutated
	precise bool                   // immutable: never read the counter
}

type anchor struct {
	wall int64 // immutable: Unix nanoseconds at mono
	mono int64 // immutable: a reading of the clock's monotonic source
	// lead is immutable: how much later than mono wall was read, at most,
	// hence how far readings from this anchor may lead the wall clock.
	lead int64
}

// anchorTries bounds the readings of one anchoring: each is a monotonic,
// a wall and a monotonic reading, and the tightest pair wins, so that a
// preemption between two readings leaves no large lead behind.
const anchorTries = 3

// tightLead ends an anchoring early: a pair read this close together is
// as good as another try would find.
const tightLead = 200

// sample reads the monotonic source, then the wall clock, anchorTries
// times at most, and returns the pair read closest together, with an
// upper bound of the time between them. The monotonic reading comes
// first, so that a reading from the anchor leads the wall clock by at
// most lead, and never lags it.
func (c *monotonicClock) sample() anchor {
	var best anchor
	for i := range anchorTries {
		mono := c.mono()
		wall := time.Now().UnixNano()
		lead := c.mono() - mono
		if i == 0 || lead < best.lead {
			best = anchor{wall: wall, mono: mono, lead: lead}
		}
		if lead <= tightLead {
			break
		}
	}
	return best
}

func (c *monotonicClock) Now() time.Time { return time.Unix(0, c.UnixNano()) }

// mono reads the clock's monotonic source, in nanoseconds.
func (c *monotonicClock) mono() int64 {
	if c.precise {
		return tsc.Precise()
	}
	return tsc.Now()
}

// UnixNano is Now().UnixNano() without building a time.Time: the
// generators read it on every call.
func (c *monotonicClock) UnixNano() int64 {
	a := c.anchor.Load()
	if a == nil {
		c.mono() // the first reading calibrates: not inside a sample
		first := c.sample()
		c.anchor.CompareAndSwap(nil, &first)
		a = c.anchor.Load()
	}
	d := c.mono() - a.mono
	ns := a.wall + d
	if d >= int64(recheckEvery) {
		ns = c.recheck(a, ns)
	}
	return ns
}

// UnixNanoBound is how far a reading of UnixNano may lie from
// PreciseUnixNano's, either way.
func (c *monotonicClock) UnixNanoBound() time.Duration {
	if c.precise {
		return 0
	}
	return tsc.Bound
}

// PreciseUnixNano is UnixNano from the monotonic clock itself, never from
// the counter, for generators whose ticks are short next to the bound.
func (c *monotonicClock) PreciseUnixNano() int64 {
	if c.precise {
		return c.UnixNano()
	}
	return preciseMonotonic.UnixNano()
}

// recheck compares the anchored reading ns with the wall clock and re-anchors
// on whichever is later, so readings never go back.
func (c *monotonicClock) recheck(a *anchor, ns int64) int64 {
	next := c.sample()
	if next.wall < ns { // the wall clock went back: keep counting from ns
		next.wall, next.lead = ns, a.lead+next.lead
	}
	if c.anchor.CompareAndSwap(a, &next) {
		return next.wall
	}
	// Another caller re-anchored first; its anchor is at least as late.
	b := c.anchor.Load()
	return max(ns, b.wall+c.mono()-b.mono)
}

// Sleeper is a Clock that also decides how a generator waits for it. A
// generator whose Clock is a Sleeper calls Sleep instead of time.Sleep while
// it waits for the clock to reach a tick; a fake clock advances its own time
// there, so tests of waiting need no real sleep.
type Sleeper interface {
	Clock
	Sleep(d time.Duration)
}
