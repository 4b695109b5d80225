package clockseq

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/floeid/floe"
)

// Config describes a Seq. Zero fields take the defaults stated on them.
type Config struct {
	// Clock is read for the time; nil means floe.MonotonicClock.
	Clock floe.Clock
	// Epoch is tick 0, in Unix nanoseconds.
	Epoch int64
	// Unit is the length of a tick in nanoseconds; it must be positive.
	Unit int64
	// MaxTick is the highest tick the format holds. Ticks whose start would
	// not fit an int64 of Unix nanoseconds are cut off as well.
	MaxTick uint64
	// SeqBits is the width of the format's sequence field, 1..32.
	SeqBits uint
	// SeqMin and SeqMax bound the sequence, inclusive (sno-style sharding);
	// a zero SeqMax means 1<<SeqBits - 1.
	SeqMin, SeqMax uint64
	// Policy decides what happens when the clock runs behind; zero is Wait.
	Policy floe.Policy
	// MaxAhead bounds how far Borrow runs ahead of the clock; zero means one
	// second. It is kept whole ticks (at least one).
	MaxAhead time.Duration
	// MaxWait bounds how long one call waits for the clock before it fails
	// with a *floe.ClockError; zero means five seconds. A regression deeper
	// than MaxWait fails at once.
	MaxWait time.Duration
	// Floor: no tick at or below it is issued (a restart above the last
	// reservation, a snapshot, noeqd's time of death).
	Floor uint64
	// TickTock is the starting timeline bit and Safe the highest tick the
	// other timeline used, both from a snapshot; used under floe.TickTock.
	TickTock bool
	Safe     uint64
	// Reserved turns on the reservation ceiling: no tick above Ceiling (and
	// later values given to RaiseCeiling) is issued.
	Reserved bool
	Ceiling  uint64
	// LowWater: when a new tick leaves less than this much time below the
	// ceiling, Need is signalled so the owner extends its reservation.
	LowWater time.Duration
	// Overflow receives a notice, without blocking, once per tick while
	// callers stall on an exhausted sequence.
	Overflow chan<- floe.Overflow
}

// Config errors.
var (
	ErrUnit     = errors.New("floe: tick unit must be positive")
	ErrSeqBits  = errors.New("floe: sequence bits must be 1..32")
	ErrSeqRange = errors.New("floe: sequence bounds outside the sequence field or min above max")
	ErrTooWide  = errors.New("floe: tick and sequence bits exceed 64")
	ErrMaxTick  = errors.New("floe: last tick must be positive")
	ErrFloor    = errors.New("floe: floor is at or above the last tick")
	ErrNegative = errors.New("floe: MaxAhead, MaxWait and LowWater must not be negative")
)

const (
	defaultMaxAhead = time.Second
	defaultMaxWait  = 5 * time.Second
)

// validate checks c and fills in its defaults.
func (c *Config) validate() error {
	if c.Unit <= 0 {
		return ErrUnit
	}
	if c.SeqBits < 1 || c.SeqBits > 32 {
		return fmt.Errorf("%w: %d", ErrSeqBits, c.SeqBits)
	}
	if c.MaxTick == 0 {
		return ErrMaxTick
	}
	full := uint64(1)<<c.SeqBits - 1
	if c.SeqMax == 0 {
		c.SeqMax = full
	}
	if c.SeqMax > full || c.SeqMin > c.SeqMax {
		return fmt.Errorf("%w: [%d, %d] in %d bits", ErrSeqRange, c.SeqMin, c.SeqMax, c.SeqBits)
	}
	if c.Policy > floe.TickTock {
		return fmt.Errorf("%w: %d", floe.ErrUnknownPolicy, uint8(c.Policy))
	}
	// The start of tick+1 must fit in an int64 of Unix nanoseconds.
	if room := (math.MaxInt64 - max(c.Epoch, 0)) / c.Unit; room < 2 {
		return ErrMaxTick
	} else if c.MaxTick > uint64(room-1) {
		c.MaxTick = uint64(room - 1)
	}
	tt := uint(0)
	if c.Policy == floe.TickTock {
		tt = 1
	}
	if uint(bits.Len64(c.MaxTick))+tt+c.SeqBits > 64 {
		return ErrTooWide
	}
	if c.Floor >= c.MaxTick {
		return fmt.Errorf("%w: floor %d, last tick %d", ErrFloor, c.Floor, c.MaxTick)
	}
	if c.MaxAhead < 0 || c.MaxWait < 0 || c.LowWater < 0 {
		return ErrNegative
	}
	if c.MaxAhead == 0 {
		c.MaxAhead = defaultMaxAhead
	}
	if c.MaxWait == 0 {
		c.MaxWait = defaultMaxWait
	}
	if c.Clock == nil {
		c.Clock = floe.MonotonicClock
	}
	return nil
}
