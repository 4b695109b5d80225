package id64

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/floeid/floe"
)

// Layout describes how a 64-bit ID is cut into fields. From the most
// significant bit down, in the zero Order, TimeNodeSequence:
//
//	[sign bit] | time | datacenter | worker | sequence
//
// and in the Order TimeSequenceNode (sony/sonyflake, Hazelcast):
//
//	[sign bit] | time | sequence | datacenter | worker
//
// The sign bit is present, and always 0, unless Unsigned is set: a signed
// layout uses at most 63 bits, so every ID it makes is a non-negative signed
// BIGINT (SQL) or long (Java). An Unsigned layout may use all 64 bits; its
// IDs need an unsigned column or a NUMERIC(20) beyond 2^63-1.
//
// The time field counts ticks of length Unit since Epoch. Datacenter and
// worker together form the node; a layout whose node is not split has
// DatacenterBits 0. The sequence tells apart the IDs of one node within one
// tick.
//
// The presets (Twitter, Sonyflake, Instagram, Discord, Snowcast, ...) are ready-made
// layouts. A Layout is a plain value, safe to copy and to use from several
// goroutines; its methods assume a layout that passes Validate, and return
// meaningless values, but never panic, on one that does not.
//
// A Layout marshals to JSON through its struct tags; Unit is then a number of
// nanoseconds, and Order is left out when it is TimeNodeSequence:
//
//	{"epoch":"2010-11-04T01:42:54.657Z","unit":1000000,"time_bits":41,
//	 "datacenter_bits":5,"worker_bits":5,"sequence_bits":12,"unsigned":false}
type Layout struct {
	Epoch          time.Time     `json:"epoch"`           // tick 0
	Unit           time.Duration `json:"unit"`            // length of one tick (1 ms for most presets)
	TimeBits       int           `json:"time_bits"`       // 1..56
	DatacenterBits int           `json:"datacenter_bits"` // 0 when the node is not split
	WorkerBits     int           `json:"worker_bits"`     // 0 for a single node
	SequenceBits   int           `json:"sequence_bits"`   // at least 1
	Unsigned       bool          `json:"unsigned"`        // allows 64 bits in total; otherwise at most 63 so IDs fit a signed BIGINT
	Order          Order         `json:"order,omitempty"` // which of node and sequence comes first below the time
}

// Order is the order of a layout's fields below the time. The time always
// comes first, so that IDs sort by time; the datacenter and worker fields
// stay together, datacenter first, as the node.
type Order uint8

// The field orders. Do not reorder: an Order is stored as its number.
const (
	// TimeNodeSequence is time, datacenter, worker, sequence: Twitter's
	// Snowflake and most layouts. It is the zero Order.
	TimeNodeSequence Order = iota
	// TimeSequenceNode is time, sequence, datacenter, worker: sony/sonyflake
	// (time, sequence, machine ID) and Hazelcast's flake IDs (time,
	// sequence, node ID).
	TimeSequenceNode
)

// String returns "time-node-sequence" or "time-sequence-node".
func (o Order) String() string {
	switch o {
	case TimeNodeSequence:
		return "time-node-sequence"
	case TimeSequenceNode:
		return "time-sequence-node"
	}
	return "Order(" + strconv.Itoa(int(o)) + ")"
}

// MarshalText returns the text of String, or an error wrapping
// ErrLayoutOrder for an unknown order.
func (o Order) MarshalText() ([]byte, error) {
	if o > TimeSequenceNode {
		return nil, fmt.Errorf("%w: %d", ErrLayoutOrder, uint8(o))
	}
	return []byte(o.String()), nil
}

// UnmarshalText reads what MarshalText writes.
func (o *Order) UnmarshalText(b []byte) error {
	switch string(b) {
	case "time-node-sequence":
		*o = TimeNodeSequence
	case "time-sequence-node":
		*o = TimeSequenceNode
	default:
		return fmt.Errorf("%w: %q (want time-node-sequence or time-sequence-node)", ErrLayoutOrder, cut(string(b)))
	}
	return nil
}

// order returns the order that the layout's bits follow: TimeNodeSequence
// when it has no node bits, where both orders put the same bits.
func (l Layout) order() Order {
	if l.NodeBits() == 0 {
		return TimeNodeSequence
	}
	return l.Order
}

// shifts returns how many bits lie below the node and below the sequence.
func (l Layout) shifts() (node, seq uint) {
	if l.Order == TimeSequenceNode {
		return 0, uint(l.NodeBits())
	}
	return uint(l.SequenceBits), 0
}

// maxTimeBits bounds the time field: with at least one sequence bit and the
// sign bit, 56 time bits already leave only 7 for node and sequence.
const maxTimeBits = 56

// Validate reports whether l describes a usable layout. It returns nil, or
// every violation found joined with errors.Join: ErrLayoutEpoch,
// ErrLayoutUnit, ErrLayoutNegativeBits, ErrLayoutTimeBits,
// ErrLayoutSequenceBits, ErrLayoutBits, ErrLayoutSpan, ErrLayoutOrder.
func (l Layout) Validate() error {
	var errs []error
	if l.Epoch.IsZero() {
		errs = append(errs, ErrLayoutEpoch)
	}
	if l.Unit <= 0 {
		errs = append(errs, fmt.Errorf("%w: %v", ErrLayoutUnit, l.Unit))
	}
	widths := [...]struct {
		name string
		bits int
	}{
		{"time", l.TimeBits},
		{"datacenter", l.DatacenterBits},
		{"worker", l.WorkerBits},
		{"sequence", l.SequenceBits},
	}
	sane := true // every width in 0..64, so the total cannot overflow
	for _, w := range widths {
		switch {
		case w.bits < 0:
			errs = append(errs, fmt.Errorf("%w: %s bits %d", ErrLayoutNegativeBits, w.name, w.bits))
			sane = false
		case w.bits > 64:
			errs = append(errs, fmt.Errorf("%w: %s bits %d", ErrLayoutBits, w.name, w.bits))
			sane = false
		}
	}
	if l.TimeBits == 0 || l.TimeBits > maxTimeBits {
		errs = append(errs, fmt.Errorf("%w: %d", ErrLayoutTimeBits, l.TimeBits))
	}
	if l.SequenceBits == 0 {
		errs = append(errs, ErrLayoutSequenceBits)
	}
	if l.Order > TimeSequenceNode {
		errs = append(errs, fmt.Errorf("%w: %d", ErrLayoutOrder, uint8(l.Order)))
	}
	if sane {
		if total, limit := l.TimeBits+l.NodeBits()+l.SequenceBits, l.bitLimit(); total > limit {
			errs = append(errs, fmt.Errorf("%w: %d bits, at most %d", ErrLayoutBits, total, limit))
		}
	}
	if l.Unit > 0 && l.TimeBits > 0 && l.TimeBits <= maxTimeBits && !l.Epoch.IsZero() {
		if _, ok := l.tickTime(l.MaxTick() + 1); !ok {
			errs = append(errs, fmt.Errorf("%w: 2^%d ticks of %v after %s", ErrLayoutSpan, l.TimeBits, l.Unit, l.Epoch.UTC().Format(time.RFC3339Nano)))
		}
	}
	return errors.Join(errs...)
}

// bitLimit is the number of bits the layout may use: 64 when Unsigned, else
// 63.
func (l Layout) bitLimit() int {
	if l.Unsigned {
		return 64
	}
	return 63
}

// mask returns a value of bits one bits; 0 for bits <= 0.
func mask(bits int) uint64 {
	switch {
	case bits <= 0:
		return 0
	case bits >= 64:
		return math.MaxUint64
	}
	return 1<<uint(bits) - 1
}

// NodeBits returns the width of the node: DatacenterBits + WorkerBits.
func (l Layout) NodeBits() int { return l.DatacenterBits + l.WorkerBits }

// MaxNode returns the highest node ID, 2^NodeBits - 1.
func (l Layout) MaxNode() uint64 { return mask(l.NodeBits()) }

// MaxDatacenter returns the highest datacenter ID, 2^DatacenterBits - 1.
func (l Layout) MaxDatacenter() uint64 { return mask(l.DatacenterBits) }

// MaxWorker returns the highest worker ID, 2^WorkerBits - 1.
func (l Layout) MaxWorker() uint64 { return mask(l.WorkerBits) }

// MaxSequence returns the highest sequence number, 2^SequenceBits - 1: a node
// issues at most MaxSequence+1 IDs per tick.
func (l Layout) MaxSequence() uint64 { return mask(l.SequenceBits) }

// MaxTick returns the highest tick, 2^TimeBits - 1.
func (l Layout) MaxTick() uint64 { return mask(l.TimeBits) }

// Node returns the node ID made of a datacenter ID and a worker ID:
// datacenter<<WorkerBits | worker. It fails with ErrDatacenterRange or
// ErrWorkerRange when either is too large for the layout.
func (l Layout) Node(datacenter, worker uint64) (uint64, error) {
	if datacenter > l.MaxDatacenter() {
		return 0, fmt.Errorf("%w: %d above %d", ErrDatacenterRange, datacenter, l.MaxDatacenter())
	}
	if worker > l.MaxWorker() {
		return 0, fmt.Errorf("%w: %d above %d", ErrWorkerRange, worker, l.MaxWorker())
	}
	return datacenter<<uint(l.WorkerBits) | worker, nil
}

// compose assembles an ID from fields already known to fit: tick <= MaxTick,
// node <= MaxNode, seq <= MaxSequence, in the layout's Order. It checks
// nothing.
func (l Layout) compose(tick, node, seq uint64) ID {
	ns, ss := l.shifts()
	return ID(tick<<uint(l.DatacenterBits+l.WorkerBits+l.SequenceBits) | node<<ns | seq<<ss)
}

// Compose assembles the ID of p, checking every field against the layout
// (which must pass Validate).
//
// The time is p.Time, or p.Tick when p.Time is the zero time; when both are
// set they must name the same tick. The node is made of p.Datacenter and
// p.Worker, or is p.Node when both of those are 0; when both forms are set
// they must agree. So Compose(l.Parts(id)) returns id for every id of the
// layout. Disagreeing fields fail with ErrPartsMismatch, fields out of range
// with ErrBeforeEpoch, floe.ErrTimeExhausted, ErrDatacenterRange,
// ErrWorkerRange, ErrNodeRange or ErrSequenceRange.
func (l Layout) Compose(p Parts) (ID, error) {
	if err := l.Validate(); err != nil {
		return 0, err
	}
	tick := p.Tick
	if !p.Time.IsZero() {
		t, err := l.Tick(p.Time)
		if err != nil {
			return 0, fmt.Errorf("%w: %s", err, p.Time.Format(time.RFC3339Nano))
		}
		if p.Tick != 0 && p.Tick != t {
			return 0, fmt.Errorf("%w: time %s is tick %d, not %d", ErrPartsMismatch, p.Time.Format(time.RFC3339Nano), t, p.Tick)
		}
		tick = t
	} else if tick > l.MaxTick() {
		return 0, fmt.Errorf("%w: tick %d above %d", floe.ErrTimeExhausted, tick, l.MaxTick())
	}
	node := p.Node
	if p.Datacenter != 0 || p.Worker != 0 {
		n, err := l.Node(p.Datacenter, p.Worker)
		if err != nil {
			return 0, err
		}
		if p.Node != 0 && p.Node != n {
			return 0, fmt.Errorf("%w: datacenter %d and worker %d are node %d, not %d", ErrPartsMismatch, p.Datacenter, p.Worker, n, p.Node)
		}
		node = n
	} else if node > l.MaxNode() {
		return 0, fmt.Errorf("%w: %d above %d", ErrNodeRange, node, l.MaxNode())
	}
	if p.Sequence > l.MaxSequence() {
		return 0, fmt.Errorf("%w: %d above %d", ErrSequenceRange, p.Sequence, l.MaxSequence())
	}
	return l.compose(tick, node, p.Sequence), nil
}

// clampTick returns the tick of t, clamped to 0..MaxTick.
func (l Layout) clampTick(t time.Time) uint64 {
	tick, err := l.Tick(t)
	if errors.Is(err, ErrBeforeEpoch) {
		return 0
	}
	if err != nil {
		return l.MaxTick()
	}
	return tick
}

// First returns the smallest ID the layout can make in t's tick: node 0,
// sequence 0. With Last it bounds a time range for a query:
//
//	WHERE id BETWEEN First(from) AND Last(to)
//
// selects every ID whose tick lies from from's tick to to's tick, inclusive.
// A time before the epoch counts as tick 0 and a time at or after End as
// MaxTick.
func (l Layout) First(t time.Time) ID { return l.compose(l.clampTick(t), 0, 0) }

// Last returns the largest ID the layout can make in t's tick: the highest
// node and sequence. Times outside the layout are clamped as by First.
func (l Layout) Last(t time.Time) ID {
	return l.compose(l.clampTick(t), l.MaxNode(), l.MaxSequence())
}

// Range returns the smallest and the largest ID the layout can make from
// from's tick to to's tick, inclusive: First(from) and Last(to), for
//
//	WHERE id BETWEEN first AND last
//
// Unlike First and Last it clamps nothing: a from before the epoch fails
// with ErrBeforeEpoch, a to at or after End with floe.ErrTimeExhausted, and
// a to before from with ErrEmptyRange. In either Order the largest ID of a
// tick has every bit below the time field set.
func (l Layout) Range(from, to time.Time) (first, last ID, err error) {
	if err := l.Validate(); err != nil {
		return 0, 0, err
	}
	lo, err := l.Tick(from)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %s (the epoch is %s, the end %s)", err, from.Format(time.RFC3339Nano), l.Epoch.Format(time.RFC3339Nano), l.End().Format(time.RFC3339Nano))
	}
	hi, err := l.Tick(to)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %s (the epoch is %s, the end %s)", err, to.Format(time.RFC3339Nano), l.Epoch.Format(time.RFC3339Nano), l.End().Format(time.RFC3339Nano))
	}
	if to.Before(from) {
		return 0, 0, fmt.Errorf("%w: %s is before %s", ErrEmptyRange, to.Format(time.RFC3339Nano), from.Format(time.RFC3339Nano))
	}
	return l.compose(lo, 0, 0), l.compose(hi, l.MaxNode(), l.MaxSequence()), nil
}

// MaxID returns the largest ID the layout can hold: every field at its
// maximum, 2^(TimeBits+NodeBits+SequenceBits) - 1. It is 2^63-1 for Twitter
// and 2^64-1 for a 64-bit Unsigned layout.
func (l Layout) MaxID() ID { return ID(mask(l.TimeBits + l.NodeBits() + l.SequenceBits)) }

// CheckID reports whether the layout can hold id: nil, or an error wrapping
// ErrIDRange when id has bits set above the layout's fields, as the top bit
// of any ID above 2^63-1 read with a signed (63-bit) layout. The layout never
// makes such an ID, and Parts and Time would ignore those bits: check an ID
// from outside before decoding it.
func (l Layout) CheckID(id ID) error {
	if max := l.MaxID(); id > max {
		if !l.Unsigned && id > math.MaxInt64 {
			return fmt.Errorf("%w: %d has the top bit set, which the signed layout %v never uses (its largest ID is %d); as a signed 64-bit integer it is %d, and negative IDs come only from layouts that use the top bit", ErrIDRange, uint64(id), l, uint64(max), int64(id))
		}
		return fmt.Errorf("%w: %d is above %d, the largest ID of the layout %v", ErrIDRange, uint64(id), uint64(max), l)
	}
	return nil
}

// Parts splits id into its fields. Bits above the layout's fields (the sign
// bit of a signed layout) are ignored; CheckID reports them.
func (l Layout) Parts(id ID) Parts {
	v := uint64(id)
	ns, ss := l.shifts()
	node := v >> ns & l.MaxNode()
	tick := v >> uint(l.NodeBits()+l.SequenceBits) & l.MaxTick()
	return Parts{
		Time:       l.TickTime(tick),
		Tick:       tick,
		Datacenter: node >> uint(l.WorkerBits) & l.MaxDatacenter(),
		Worker:     node & l.MaxWorker(),
		Node:       node,
		Sequence:   v >> ss & l.MaxSequence(),
	}
}

// Time returns the start of id's tick.
func (l Layout) Time(id ID) time.Time {
	tick := uint64(id) >> uint(l.NodeBits()+l.SequenceBits) & l.MaxTick()
	return l.TickTime(tick)
}

// Equal reports whether l and other describe the same layout: the same
// instant as epoch (whatever its location) and the same unit and fields, in
// the same order. (Without node bits, both orders are the same layout.)
func (l Layout) Equal(other Layout) bool {
	return l.Epoch.Equal(other.Epoch) &&
		l.Unit == other.Unit &&
		l.TimeBits == other.TimeBits &&
		l.DatacenterBits == other.DatacenterBits &&
		l.WorkerBits == other.WorkerBits &&
		l.SequenceBits == other.SequenceBits &&
		l.Unsigned == other.Unsigned &&
		l.order() == other.order()
}

// ParseID reads s as the decimal text of an ID of the layout and checks it
// with CheckID. It reads what Parse reads and, for a layout that uses the top
// bit (Unsigned), a negative decimal from -9223372036854775808 to -1 as its
// two's complement: the signed 64-bit form in which a BIGINT column holds
// the layout's IDs once their time reaches the top bit (Instagram's next_id
// returns such BIGINTs from 2046-06-27T17:00:49.497Z on). A negative
// decimal for any other layout is an error wrapping ErrIDRange.
func (l Layout) ParseID(s string) (ID, error) {
	var v uint64
	var err error
	if len(s) > 0 && s[0] == '-' {
		if !l.Unsigned {
			return 0, fmt.Errorf("%w: %s is negative, and the layout %v never is: it does not use the top bit (a negative BIGINT holds an ID of a layout that does, such as Instagram)", ErrIDRange, s, l)
		}
		v, err = scanDecimal(s)
	} else {
		var id ID
		id, err = Parse(s)
		v = uint64(id)
	}
	if err != nil {
		return 0, err
	}
	if err := l.CheckID(ID(v)); err != nil {
		return 0, err
	}
	return ID(v), nil
}
