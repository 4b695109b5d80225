package id80

import (
	"strconv"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid"
)

// Parts is an ID taken apart. ID.Parts returns one; Compose builds an ID from
// one.
type Parts struct {
	// Time is the ID's time in UTC: Epoch plus Timestamp units of 4 ms.
	Time time.Time
	// Timestamp is the time in TimeUnit (4 ms) since Epoch, at most
	// MaxTimestamp.
	Timestamp uint64
	// TickTock is the timeline bit a generator toggles when its clock steps
	// back.
	TickTock bool
	// Meta is the metabyte.
	Meta byte
	// Partition is the generator's partition.
	Partition Partition
	// Sequence is the sequence number within the time unit.
	Sequence uint16
}

// Parts returns the ID's fields.
func (id ID) Parts() Parts {
	ts := id.Timestamp()
	return Parts{
		Time:      timeOf(ts),
		Timestamp: ts,
		TickTock:  id.TickTock(),
		Meta:      id.Meta(),
		Partition: id.Partition(),
		Sequence:  id.Sequence(),
	}
}

// Compose returns the ID made of p's fields. The time comes from p.Time,
// rounded down to a multiple of 4 ms after Epoch, unless p.Time is the zero
// time.Time, in which case it comes from p.Timestamp; so Compose(id.Parts())
// returns id.
//
// Compose fails with a *floe.ParseError wrapping floe.ErrOutOfRange when the
// time lies before Epoch or past the last 4 ms tick, which starts at
// 2079-09-07 15:47:35.548 UTC (a time up to 15:47:35.551999999 rounds down
// into it), or when p.Timestamp exceeds MaxTimestamp.
func Compose(p Parts) (ID, error) {
	ts := p.Timestamp
	if !p.Time.IsZero() {
		var ok bool
		if ts, ok = timestampOf(p.Time); !ok {
			return ID{}, textid.Error(format, p.Time.Format(time.RFC3339Nano), floe.ErrOutOfRange, wantTime)
		}
	} else if ts > MaxTimestamp {
		return ID{}, textid.Error(format, strconv.FormatUint(ts, 10), floe.ErrOutOfRange, wantTimestamp)
	}
	block := ts << 1
	if p.TickTock {
		block |= 1
	}
	return newID(block, p.Meta, p.Partition.Uint16(), p.Sequence), nil
}
