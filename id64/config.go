package id64

import (
	"time"

	"github.com/floeid/floe"
)

// Config configures a Generator. Zero fields take the defaults stated on
// them; NewGenerator validates the rest.
type Config struct {
	// Layout is the ID layout; the zero Layout means Twitter.
	Layout Layout
	// Datacenter and Worker make the node: Datacenter<<WorkerBits | Worker.
	// For layouts without datacenter bits Worker is the whole node. Every
	// generator sharing a layout and epoch needs its own node.
	Datacenter, Worker uint64
	// Clock is read for the time; nil means floe.MonotonicClock.
	Clock floe.Clock
	// Policy decides what happens when the clock runs behind the last tick:
	// floe.Wait (the default), floe.Fail or floe.Borrow. floe.TickTock needs
	// a tick-tock bit, which 64-bit layouts do not have.
	Policy floe.Policy
	// MaxAhead bounds how far floe.Borrow runs ahead of the clock; zero
	// means one second.
	MaxAhead time.Duration
	// MaxWait bounds how long one call waits for the clock; zero means five
	// seconds.
	MaxWait time.Duration
	// Floor is a tick (see Layout.Tick) at or below which nothing is issued:
	// the last reservation of this node before a restart, or noeqd's time of
	// death.
	Floor uint64
	// Reserved turns on the reservation ceiling: nothing above Ceiling, or
	// above what RaiseCeiling later allows, is issued. LowWater is the
	// headroom under which Need is signalled.
	Reserved bool
	Ceiling  uint64
	LowWater time.Duration
	// Overflow, when set, receives a notice (without blocking) once per tick
	// while callers stall on an exhausted sequence.
	Overflow chan<- floe.Overflow
}
