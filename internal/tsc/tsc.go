package tsc

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// Period is how much counter time one anchor serves before a reader
	// re-anchors it: short enough that the kernel slewing its clock by 10%
	// moves it 1.6 µs, long enough that the re-anchor (about 100 ns) costs
	// well under 1% of the readings it serves.
	Period = 16 * time.Microsecond
	// Bound is the largest error, either way, a reading from the counter may
	// have against the monotonic clock; a re-anchor that finds more turns
	// the counter off.
	Bound = 4 * time.Microsecond

	// baselineFor is the shortest span over which the rate is measured:
	// brackets good to 1 µs then give it to 20 parts per million.
	baselineFor = 50 * time.Millisecond
	// calibrateFor is the length of each of the two halves of the first
	// calibration.
	calibrateFor = 150 * time.Microsecond
	// maxBracket is the widest bracket of two monotonic readings around a
	// counter read that is used as an anchor: about 40 ns when nothing
	// intervenes. Wider ones (the goroutine was preempted, or the virtual
	// processor stalled, in between) are retried.
	maxBracket = 200 * time.Nanosecond
	// rateSlack is how much the rate may change between baselines (the
	// kernel slews its clock by at most 10%).
	rateSlack = 8 // 1/8
)

// base is the origin of Now and Precise.
var base = time.Now()

// Precise returns the monotonic clock, in nanoseconds since the process
// loaded the package.
func Precise() int64 { return int64(time.Since(base)) }

// std is the line Now reads.
var std = line{src: hardware{}}

// Now returns the monotonic clock, in nanoseconds since the process loaded
// the package, from the counter where that is trusted (within Bound of
// Precise, never decreasing), and from Precise elsewhere.
func Now() int64 {
	if std.win.Load() != 0 {
		if ns, ok := std.at(ticks()); ok {
			return ns
		}
	}
	return std.slow()
}

// Using reports whether Now reads the counter, and if not, why. It
// calibrates on first use, as the first Now does.
func Using() (bool, string) { return std.using() }

// A source is what a line converts and checks against: the counter (read in
// order with the instructions around it) and the monotonic clock.
type source interface {
	// check reports why the counter cannot be used here, or "".
	check() string
	count() uint64
	mono() int64
}

// hardware is the processor's counter and the process's monotonic clock.
type hardware struct{}

func (hardware) check() string { return usable() }
func (hardware) count() uint64 { return ticksOrdered() }
func (hardware) mono() int64   { return Precise() }

// A line converts counter values to nanoseconds: c0 is at n0, and each
// count adds mult/2^32 ns, for counter values up to c0+win. Readers read it
// as a sequence lock (seq is odd while it is written); one writer at a
// time changes it, holding mu.
type line struct {
	_    [64]byte
	seq  atomic.Uint64
	c0   atomic.Uint64
	n0   atomic.Int64
	mult atomic.Uint64
	win  atomic.Uint64 // 0: the counter is not read
	_    [24]byte

	off   atomic.Bool  // the counter is off for good
	floor atomic.Int64 // once off: the least reading served

	mu     sync.Mutex
	src    source // immutable
	ready  bool   // guarded by mu: calibrated or turned off
	rate   uint64 // guarded by mu: ns per count <<32, measured over the baseline
	bc     uint64 // guarded by mu: the baseline's start, counter
	bm     int64  // guarded by mu: and monotonic time
	reason string // guarded by mu: why the counter is off
}

// at converts counter value c, if the current anchor serves it.
func (l *line) at(c uint64) (int64, bool) {
	s := l.seq.Load()
	c0 := l.c0.Load()
	n0 := l.n0.Load()
	mult := l.mult.Load()
	win := l.win.Load()
	d := c - c0 // huge when c < c0: the reader read the counter before the anchor
	if d >= win || s&1 != 0 || l.seq.Load() != s {
		return 0, false
	}
	return n0 + int64(d*mult>>32), true
}

// slow serves a reading the current anchor cannot: the first ever
// (calibrating), one past the anchor's window (re-anchoring), or one after
// the counter was turned off.
func (l *line) slow() int64 {
	if l.off.Load() {
		return l.fallback()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ready {
		l.ready = true
		l.calibrate()
	}
	if l.off.Load() {
		return l.fallback()
	}
	c := l.src.count()
	c0, n0, mult, win := l.c0.Load(), l.n0.Load(), l.mult.Load(), l.win.Load()
	d := c - c0
	switch {
	case d < win:
		return n0 + int64(d*mult>>32) // another reader re-anchored
	case int64(d) < 0:
		// This processor's counter is behind the one the anchor was read on.
		if c0-c > win {
			return l.turnOff(n0+mulShift(win, mult), n0, "counters out of step between processors")
		}
		return n0
	}
	return l.reanchor(c0, n0, mult, win)
}

// fallback is a reading once the counter is off: the monotonic clock, but
// never below what the counter served.
func (l *line) fallback() int64 {
	return max(l.src.mono(), l.floor.Load())
}

// reanchor moves the anchor (c0 at n0, rate mult over win counts) to now,
// after checking how far it had strayed. Called with mu held.
func (l *line) reanchor(c0 uint64, n0 int64, mult, win uint64) int64 {
	end := n0 + mulShift(win, mult) // the most the anchor served
	c, m, ok := l.bracket()
	if !ok {
		// No tight bracket (preempted each time): serve the monotonic
		// clock, no lower than the anchor served, and let the next reader
		// try again.
		return max(m, end)
	}
	elapsed := c - c0
	if int64(elapsed) < 0 {
		return l.turnOff(end, m, "the counter went back")
	}
	if elapsed <= 2*win {
		// Re-anchored promptly: the anchor's error here is the error of
		// what it served.
		if e := n0 + mulShift(elapsed, mult) - m; e > int64(Bound) || e < -int64(Bound) {
			return l.turnOff(end, m, "the counter strayed from the monotonic clock by "+time.Duration(e).String())
		}
	} else {
		// After a pause nothing was served in between; the counter and the
		// monotonic clock must still have run at about the same rate.
		span := m - n0
		if e := n0 + mulShift(elapsed, l.rate) - m; e > int64(Bound)+span/rateSlack || e < -int64(Bound)-span/rateSlack {
			return l.turnOff(end, m, "the counter jumped by "+time.Duration(e).String())
		}
	}
	if m-l.bm >= int64(baselineFor) {
		r, ok := rateOf(m-l.bm, c-l.bc)
		if !ok || r > l.rate+l.rate/rateSlack || r < l.rate-l.rate/rateSlack {
			return l.turnOff(end, m, "the counter's rate changed")
		}
		l.rate, l.bc, l.bm = r, c, m
	}
	n := max(m, end)
	ahead := uint64(n - m)
	if ahead > uint64(Bound) {
		return l.turnOff(end, m, "the counter ran ahead of the monotonic clock")
	}
	// Close the gap over the next window instead of stepping back.
	l.publish(c, n, l.rate-(ahead<<32)/win, win)
	return n
}

// bracket reads the counter between two monotonic readings, and returns it
// with the later one: the counter was read no later than that, so an
// anchor on it may lead the monotonic clock by the bracket's width but does
// not lag it. ok is false if every try was wider than maxBracket; m is the
// last monotonic reading then.
func (l *line) bracket() (c uint64, m int64, ok bool) {
	for range 8 {
		m0 := l.src.mono()
		c = l.src.count()
		m1 := l.src.mono()
		if m1-m0 <= int64(maxBracket) {
			return c, m1, true
		}
		m = m1
	}
	return 0, m, false
}

// publish writes a new anchor.
func (l *line) publish(c0 uint64, n0 int64, mult, win uint64) {
	l.seq.Add(1)
	l.c0.Store(c0)
	l.n0.Store(n0)
	l.mult.Store(mult)
	l.win.Store(win)
	l.seq.Add(1)
}

// turnOff stops reading the counter for good, serving no less than served
// from now on, and returns the reading for the caller: no less than served
// or the monotonic reading m. Called with mu held.
func (l *line) turnOff(served, m int64, reason string) int64 {
	l.reason = reason
	l.floor.Store(max(served, l.floor.Load()))
	l.off.Store(true)
	l.publish(0, 0, 0, 0)
	return max(m, served)
}

// calibrate decides whether the counter can be used, measures its rate
// and publishes the first anchor. Called with mu held, once.
func (l *line) calibrate() {
	if why := l.src.check(); why != "" {
		l.turnOff(0, 0, why)
		return
	}
	why := "calibration failed"
	for range 3 {
		c1, m1, ok1 := l.bracket()
		l.spin(m1 + int64(calibrateFor))
		c2, m2, ok2 := l.bracket()
		l.spin(m2 + int64(calibrateFor))
		c3, m3, ok3 := l.bracket()
		if !ok1 || !ok2 || !ok3 {
			why = "calibration could not read the counter between two monotonic readings 200 ns apart"
			continue
		}
		r1, ok1 := rateOf(m2-m1, c2-c1)
		r2, ok2 := rateOf(m3-m2, c3-c2)
		r, ok := rateOf(m3-m1, c3-c1)
		if !ok1 || !ok2 || !ok || r1 > r2+r2/64 || r2 > r1+r1/64 {
			why = "calibration measured two different rates"
			continue
		}
		// Plausible counters run at 1 MHz to 20 GHz.
		if r > 1000<<32 || r < 1<<32/20 {
			l.turnOff(0, 0, "implausible counter frequency")
			return
		}
		win := uint64(Period<<32) / r
		l.rate, l.bc, l.bm = r, c1, m1
		l.publish(c3, m3, r, win)
		return
	}
	l.turnOff(0, 0, why)
}

// spin waits, without sleeping, until the monotonic clock reaches until.
func (l *line) spin(until int64) {
	for l.src.mono() < until {
	}
}

func (l *line) using() (bool, string) {
	l.slow() // calibrates on first use
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.off.Load(), l.reason
}

// mulShift returns d*mult/2^32, saturating.
func mulShift(d, mult uint64) int64 {
	hi, lo := bits.Mul64(d, mult)
	if hi >= 1<<31 {
		return 1<<63 - 1
	}
	return int64(hi<<32 | lo>>32)
}

// rateOf returns ns/counts as a fraction of 2^32; ok is false when it does
// not fit or either is not positive.
func rateOf(ns int64, counts uint64) (uint64, bool) {
	if ns <= 0 || counts == 0 || uint64(ns)>>32 >= counts {
		return 0, false
	}
	r, _ := bits.Div64(uint64(ns)>>32, uint64(ns)<<32, counts)
	return r, true
}
