package id96

import (
	"strconv"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid"
)

// Parts is an ID taken apart into its fields.
type Parts struct {
	// Time is the tick as a UTC time (see ID.Time).
	Time time.Time
	// Tick is the 47-bit time in units of TickUnit: Unix nanoseconds >> 17.
	Tick uint64
	// Drift is the 3-bit drift code.
	Drift Drift
	// Node is the 32-bit node (allocator) identifier.
	Node uint32
	// Sequence is the 14-bit sequence.
	Sequence uint16
}

// Parts returns the fields of id.
func (id ID) Parts() Parts {
	tick := id.Tick()
	return Parts{
		Time:     timeOf(tick),
		Tick:     tick,
		Drift:    id.Drift(),
		Node:     id.Node(),
		Sequence: id.Sequence(),
	}
}

// Compose builds the ID of p. It reads the tick from p.Tick, or from p.Time
// when p.Tick is zero and p.Time is not the zero time, so that both
// id.Parts() and a Parts with only Time set compose as expected.
//
// It returns a *floe.ParseError wrapping floe.ErrOutOfRange when a field
// does not fit: a drift code above MaxDrift, a tick above MaxTick, a time
// before 1970 or past the last tick, or a sequence above MaxSequence.
func Compose(p Parts) (ID, error) {
	tick := p.Tick
	if tick == 0 && !p.Time.IsZero() {
		if p.Time.Before(time.Unix(0, 0)) || p.Time.After(timeOf(MaxTick).Add(TickUnit-1)) {
			return ID{}, textid.Error(format, "time "+p.Time.UTC().Format(time.RFC3339Nano), floe.ErrOutOfRange, wantTime)
		}
		tick = tickOf(p.Time)
	}
	switch {
	case p.Drift > MaxDrift:
		return ID{}, textid.Error(format, "drift "+strconv.FormatUint(uint64(p.Drift), 10), floe.ErrOutOfRange, wantDrift)
	case tick > MaxTick:
		return ID{}, textid.Error(format, "tick "+strconv.FormatUint(tick, 10), floe.ErrOutOfRange, wantTick)
	case p.Sequence > MaxSequence:
		return ID{}, textid.Error(format, "sequence "+strconv.FormatUint(uint64(p.Sequence), 10), floe.ErrOutOfRange, wantSequence)
	}
	return newID(p.Drift, tick, p.Node, p.Sequence), nil
}
