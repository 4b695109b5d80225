package clockseq

import (
	"sync/atomic"
	"time"

	"github.com/floeid/floe"
)

// A reading is a clock read two ways: cached (cheap, may lag) and precise.
// The fast path uses the cached reading; every decision that could refuse,
// wait or jump uses the precise one.
type reading struct {
	clock   floe.Clock   // immutable
	cache   *cache       // immutable; nil: read clock every time
	sleeper floe.Sleeper // immutable; nil: time.Sleep
}

func newReading(c floe.Clock) reading {
	r := reading{clock: c}
	switch c {
	case floe.SystemClock:
		r.cache = &systemCache
	case floe.MonotonicClock:
		r.cache = &monotonicCache
	}
	if s, ok := c.(floe.Sleeper); ok {
		r.sleeper = s
	}
	return r
}

// cached returns a reading in Unix nanoseconds that may lag by up to a few
// refresh periods.
func (r *reading) cached() int64 {
	if r.cache != nil {
		return r.cache.read()
	}
	return r.clock.Now().UnixNano()
}

// precise reads the clock now, in Unix nanoseconds.
func (r *reading) precise() int64 {
	n := r.clock.Now().UnixNano()
	if r.cache != nil {
		r.cache.advance(n)
	}
	return n
}

// staleness is how far behind a cached reading may be before the fast path
// stops trusting it: the refresh period is about a millisecond on Linux (the
// timer granularity), and a busy machine can delay a refresh a little more.
const staleness = 4 * time.Millisecond

// refreshEvery is the refresher's period; sleeps shorter than a millisecond
// take about a millisecond anyway.
const refreshEvery = time.Millisecond

// idleRefreshes is how many refreshes without a read stop the refresher:
// about a tenth of a second, so an idle process has no goroutine waking.
const idleRefreshes = 100

var (
	systemCache    = cache{clock: floe.SystemClock}
	monotonicCache = cache{clock: floe.MonotonicClock}
)

// cache holds a recent reading of one of the built-in clocks, refreshed by a
// goroutine that runs only while someone reads the cache.
type cache struct {
	clock   floe.Clock   // immutable
	nanos   atomic.Int64 // last reading, Unix nanoseconds
	running atomic.Bool  // a refresher goroutine is running
	used    atomic.Bool  // read since the last refresh
}

func (c *cache) read() int64 {
	if !c.used.Load() {
		c.used.Store(true)
	}
	if !c.running.Load() {
		return c.start()
	}
	return c.nanos.Load()
}

// advance moves the cached reading up to n, a precise reading just taken, so
// the fast path sees a tick as soon as a slow path has.
func (c *cache) advance(n int64) {
	for {
		old := c.nanos.Load()
		if n <= old || c.nanos.CompareAndSwap(old, n) {
			return
		}
	}
}

func (c *cache) start() int64 {
	n := c.clock.Now().UnixNano()
	c.nanos.Store(n)
	if c.running.CompareAndSwap(false, true) {
		go c.refresh()
	}
	return n
}

func (c *cache) refresh() {
	idle := 0
	for {
		time.Sleep(refreshEvery)
		c.nanos.Store(c.clock.Now().UnixNano())
		if c.used.Swap(false) {
			idle = 0
			continue
		}
		if idle++; idle < idleRefreshes {
			continue
		}
		c.running.Store(false)
		// A reader that saw running before the store relies on this
		// goroutine; one that sees it after starts its own.
		if !c.used.Load() || !c.running.CompareAndSwap(false, true) {
			return
		}
		idle = 0
	}
}
