package id80

import (
	"time"

	"github.com/floeid/floe"
)

// Config configures a Generator. Zero fields take the defaults stated on
// them.
type Config struct {
	// Partition tells this generator's IDs from other generators'. Two
	// generators online at once need different partitions, or disjoint
	// sequence bounds in one partition.
	Partition Partition
	// SequenceMin and SequenceMax bound the sequence, inclusive, so several
	// generators can share a partition (sno's sequence sharding). A zero
	// SequenceMax means MaxSequence. The pool must hold at least 4 numbers.
	SequenceMin, SequenceMax uint16
	// Clock is read for the time; nil means floe.MonotonicClock, which hides
	// wall-clock steps backwards inside one process. Use floe.SystemClock to
	// see them and let TickTock handle them as sno does.
	Clock floe.Clock
	// Policy decides what happens when the clock runs behind the last
	// timestamp: floe.Wait (the zero value), floe.Fail, floe.Borrow or
	// floe.TickTock (sno's behaviour: switch timelines and keep issuing).
	Policy floe.Policy
	// MaxAhead bounds how far floe.Borrow runs ahead of the clock; zero
	// means one second.
	MaxAhead time.Duration
	// MaxWait bounds how long one call waits for the clock; zero means five
	// seconds.
	MaxWait time.Duration
	// Overflow, when set, receives a notice (without blocking) once per
	// 4 ms tick while callers stall on an exhausted sequence.
	Overflow chan<- floe.Overflow
	// Snapshot, when set, restores a generator that went offline: the new one
	// issues only timestamps above the snapshot's WallHi, on its timeline.
	// Its partition and bounds are used when Partition and the bounds above
	// are zero.
	Snapshot *Snapshot
	// Floor is a timestamp (4 ms units since Epoch) at or below which nothing
	// is issued, as after a restart.
	Floor uint64
	// Reserved turns on the reservation ceiling: no timestamp above Ceiling,
	// or above what RaiseCeiling later allows, is issued. LowWater is the
	// headroom under which Need is signalled.
	Reserved bool
	Ceiling  uint64
	LowWater time.Duration
}

// minPool is the smallest sequence pool a generator accepts: 4 IDs per
// 4 ms, 1,000 a second, as in sno.
const minPool = 4
