package clockseq

import (
	"time"

	"github.com/floeid/floe"
)

// A reading is how a Seq reads its clock: on every call, since an ID names
// the tick in which it was issued. A clock's cheaper reading with a stated
// bound (floe.MonotonicClock's) serves only ticks at least ticksPerBound
// times that bound; shorter ticks get its precise reading. A cached reading refreshed in the
// background would be cheaper, but nothing bounds its lag: a refresher
// starved of CPU by the very callers it serves lags by whole scheduler
// slices (10 ms and more).
type reading struct {
	clock   floe.Clock   // immutable
	nanos   nanoClock    // immutable; nil: clock.Now().UnixNano()
	sleeper floe.Sleeper // immutable; nil: time.Sleep
}

// nanoClock is a clock that reads Unix nanoseconds without building a
// time.Time: floe.SystemClock and floe.MonotonicClock.
type nanoClock interface {
	UnixNano() int64
}

// boundedClock is a clock whose UnixNano may serve a cheaper reading that
// lies within UnixNanoBound of PreciseUnixNano's: floe.MonotonicClock.
type boundedClock interface {
	UnixNanoBound() time.Duration
	PreciseUnixNano() int64
}

// ticksPerBound is how many times its bound a clock's cheaper reading must
// fit in a tick to be used: its error is then at most 4% of a tick.
const ticksPerBound = 25

// precise reads a bounded clock's precise reading.
type precise struct{ c boundedClock }

func (p precise) UnixNano() int64 { return p.c.PreciseUnixNano() }

// newReading returns how to read c for ticks of unit nanoseconds.
func newReading(c floe.Clock, unit int64) reading {
	r := reading{clock: c}
	if n, ok := c.(nanoClock); ok {
		r.nanos = n
	}
	if b, ok := c.(boundedClock); ok && time.Duration(unit) < ticksPerBound*b.UnixNanoBound() {
		r.nanos = precise{b}
	}
	if s, ok := c.(floe.Sleeper); ok {
		r.sleeper = s
	}
	return r
}

// now reads the clock, in Unix nanoseconds.
func (r *reading) now() int64 {
	if r.nanos != nil {
		return r.nanos.UnixNano()
	}
	return r.clock.Now().UnixNano()
}
