package id96

import (
	"time"

	"github.com/floeid/floe"
)

// Config configures a Generator. Zero fields take the defaults stated on
// them.
type Config struct {
	// Node tells this generator's IDs from other generators'; zero means a
	// node drawn from crypto/rand. Random nodes make a meeting of two
	// generators unlikely, not impossible: assign nodes when it must never
	// happen.
	Node uint32
	// Drift is the drift code written into every ID; zero means
	// DefaultDrift. Code 0 itself is never written, as in guid.
	Drift Drift
	// Clock is read for the time; nil means floe.MonotonicClock.
	Clock floe.Clock
	// Policy decides what happens when the clock runs behind the last tick:
	// floe.Wait (the zero value), floe.Fail or floe.Borrow.
	Policy floe.Policy
	// MaxAhead bounds how far floe.Borrow runs ahead of the clock; zero
	// means one second.
	MaxAhead time.Duration
	// MaxWait bounds how long one call waits for the clock; zero means five
	// seconds.
	MaxWait time.Duration
	// Floor is a tick (Unix nanoseconds >> 17) at or below which nothing is
	// issued, as after a restart.
	Floor uint64
	// Reserved turns on the reservation ceiling: no tick above Ceiling, or
	// above what RaiseCeiling later allows, is issued. LowWater is the
	// headroom under which Need is signalled.
	Reserved bool
	Ceiling  uint64
	LowWater time.Duration
	// Overflow, when set, receives a notice (without blocking) once per tick
	// while callers stall on an exhausted sequence.
	Overflow chan<- floe.Overflow
}
