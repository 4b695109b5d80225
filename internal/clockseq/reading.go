package clockseq

import (
	"github.com/floeid/floe"
)

// A reading is how a Seq reads its clock: on every call, since an ID names
// the tick in which it was issued. A cached reading refreshed in the
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

func newReading(c floe.Clock) reading {
	r := reading{clock: c}
	if n, ok := c.(nanoClock); ok {
		r.nanos = n
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
