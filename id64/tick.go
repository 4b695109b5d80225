package id64

import (
	"math"
	"math/bits"
	"time"

	"github.com/floeid/floe"
)

// A layout's time may span more than a time.Duration holds (292 years):
// Mastodon's 48 bits of milliseconds since 1970 run out in the year 10889.
// Tick and TickTime work in time.Duration while the time since the epoch
// fits one, which is every tick of the presets, and otherwise in whole
// seconds and nanoseconds, in 128-bit products. Validate accepts any span
// whose end a time.Time holds.

// maxUnixSeconds is the largest Unix time in seconds that a time.Time
// holds: its seconds count from the year 1 in an int64.
const maxUnixSeconds = math.MaxInt64 - 62135596800

// Tick returns the tick that t falls in: the number of whole Units from Epoch
// to t. It fails with ErrBeforeEpoch for a time before the epoch and with
// floe.ErrTimeExhausted for a time at or after End. The errors are the bare
// sentinels, so a failing call does not allocate.
func (l Layout) Tick(t time.Time) (uint64, error) {
	if l.Unit <= 0 {
		return 0, ErrLayoutUnit
	}
	if t.Before(l.Epoch) {
		return 0, ErrBeforeEpoch
	}
	var tick uint64
	if d := t.Sub(l.Epoch); d < math.MaxInt64 {
		tick = uint64(d / l.Unit)
	} else {
		// Sub saturated: the time since the epoch is more than a Duration.
		var ok bool
		if tick, ok = l.longTick(t); !ok {
			return 0, floe.ErrTimeExhausted
		}
	}
	if tick > l.MaxTick() {
		return 0, floe.ErrTimeExhausted
	}
	return tick, nil
}

// longTick returns the tick of t, at or after the epoch, in 128-bit
// arithmetic; ok is false when the tick exceeds 64 bits.
func (l Layout) longTick(t time.Time) (tick uint64, ok bool) {
	// t is not before the epoch, so the difference of their Unix seconds
	// is in 0..2^64-1 and wraps around correctly in uint64.
	sec := uint64(t.Unix()) - uint64(l.Epoch.Unix())
	ns := int64(t.Nanosecond()) - int64(l.Epoch.Nanosecond())
	if ns < 0 {
		sec--
		ns += int64(time.Second)
	}
	hi, lo := bits.Mul64(sec, uint64(time.Second))
	lo, carry := bits.Add64(lo, uint64(ns), 0)
	hi += carry
	if hi >= uint64(l.Unit) {
		return 0, false
	}
	tick, _ = bits.Div64(hi, lo, uint64(l.Unit))
	return tick, true
}

// TickTime returns the time at which tick starts: Epoch + tick*Unit, in the
// epoch's location. TickTime(MaxTick()+1) equals End. A tick whose start a
// time.Time cannot hold returns End.
func (l Layout) TickTime(tick uint64) time.Time {
	if l.Unit > 0 && tick <= uint64(math.MaxInt64/int64(l.Unit)) {
		return l.Epoch.Add(time.Duration(tick) * l.Unit) // the time since the epoch fits a Duration
	}
	if t, ok := l.tickTime(tick); ok {
		return t
	}
	if t, ok := l.tickTime(l.MaxTick() + 1); ok && tick > l.MaxTick() {
		return t
	}
	return l.Epoch // a layout that fails Validate
}

// tickTime returns the start of tick in 128-bit arithmetic; ok is false when
// a time.Time cannot hold it.
func (l Layout) tickTime(tick uint64) (time.Time, bool) {
	if l.Unit <= 0 {
		return l.Epoch, false
	}
	hi, lo := bits.Mul64(tick, uint64(l.Unit))
	if hi >= uint64(time.Second) {
		return time.Time{}, false
	}
	sec, ns := bits.Div64(hi, lo, uint64(time.Second))
	// One second spare for the carry of the epoch's nanoseconds.
	if sec > uint64(maxUnixSeconds-1-max(l.Epoch.Unix(), 0)) {
		return time.Time{}, false
	}
	t := time.Unix(l.Epoch.Unix()+int64(sec), int64(l.Epoch.Nanosecond())+int64(ns))
	return t.In(l.Epoch.Location()), true
}

// End returns the instant the layout's time runs out: the start of the first
// tick that no longer fits the time field, TickTime(MaxTick()+1). IDs can be
// made for times before End only. For Twitter that is
// 2080-07-10T17:30:30.209Z; its last tick starts one millisecond earlier.
func (l Layout) End() time.Time { return l.TickTime(l.MaxTick() + 1) }
