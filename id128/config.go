package id128

import (
	"time"

	"github.com/floeid/floe"
)

// Config configures a Generator. Zero fields take the defaults stated on
// them.
type Config struct {
	// Worker is this generator's worker ID, 0 to MaxWorker. Every generator
	// issuing IDs at the same time needs its own: lease it from a workerid
	// source, or assign it. The random bits make two generators that share
	// a worker ID unlikely to meet, not unable to.
	Worker uint16
	// Clock is read for the time; nil means floe.MonotonicClock.
	Clock floe.Clock
	// Policy decides what happens when the clock runs behind the last
	// millisecond: floe.Wait (the zero value), floe.Fail or floe.Borrow.
	// floe.TickTock needs a tick-tock bit, which UUIDs do not have.
	Policy floe.Policy
	// MaxAhead bounds how far floe.Borrow runs ahead of the clock; zero
	// means one second.
	MaxAhead time.Duration
	// MaxWait bounds how long one call waits for the clock; zero means five
	// seconds.
	MaxWait time.Duration
	// Floor is a tick (Unix milliseconds) at or below which nothing is
	// issued: the last reservation of this worker before a restart.
	Floor uint64
	// Reserved turns on the reservation ceiling: no tick above Ceiling, or
	// above what RaiseCeiling later allows, is issued. LowWater is the
	// headroom under which Need is signalled.
	Reserved bool
	Ceiling  uint64
	LowWater time.Duration
	// Overflow, when set, receives a notice (without blocking) once per tick
	// while callers stall on an exhausted counter.
	Overflow chan<- floe.Overflow
}
