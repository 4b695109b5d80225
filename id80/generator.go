package id80

import (
	"fmt"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/clockseq"
)

// Generator issues IDs for one partition (or one sequence shard of it). It
// is safe for concurrent use; its fast path takes no lock while callers do
// not collide. IDs from one
// Generator strictly increase, except that a tick-tock switch starts a new
// timeline, which sorts next to the old one.
//
// A Generator never issues an ID twice for a metabyte: not across
// goroutines, clock steps backwards, or a restore from a Snapshot.
type Generator struct {
	seq       *clockseq.Seq
	clock     floe.Clock // immutable
	partition uint16     // immutable
	seqMin    uint16     // immutable
	seqMax    uint16     // immutable
	drifts    uint32     // immutable: Drifts of the restored snapshot
	shift     uint       // immutable: 1 when the core's ticks lack the tick-tock bit
}

// NewGenerator returns a Generator for cfg.
func NewGenerator(cfg Config) (*Generator, error) {
	var tock bool
	var safe uint64
	floor := cfg.Floor
	var drifts uint32
	if s := cfg.Snapshot; s != nil {
		if cfg.Partition == (Partition{}) {
			cfg.Partition = s.Partition
		}
		if cfg.SequenceMin == 0 && cfg.SequenceMax == 0 {
			cfg.SequenceMin, cfg.SequenceMax = s.SequenceMin, s.SequenceMax
		}
		if s.WallHi < 0 || s.WallSafe < 0 || s.WallHi > MaxTimestamp || s.WallSafe > MaxTimestamp {
			return nil, fmt.Errorf("%w: wallHi %d, wallSafe %d", ErrSnapshot, s.WallHi, s.WallSafe)
		}
		floor = max(floor, uint64(s.WallHi))
		safe = uint64(s.WallSafe)
		tock = s.Drifts&1 == 1
		drifts = s.Drifts
	}
	if cfg.SequenceMax == 0 {
		cfg.SequenceMax = MaxSequence
	}
	if cfg.SequenceMin > cfg.SequenceMax || int(cfg.SequenceMax)-int(cfg.SequenceMin)+1 < minPool {
		return nil, fmt.Errorf("%w: [%d, %d]", ErrSequenceBounds, cfg.SequenceMin, cfg.SequenceMax)
	}
	clock := cfg.Clock
	if clock == nil {
		clock = floe.MonotonicClock
	}
	s, err := clockseq.New(clockseq.Config{
		Clock:    clock,
		Epoch:    epoch.UnixNano(),
		Unit:     int64(TimeUnit),
		MaxTick:  MaxTimestamp,
		SeqBits:  16,
		SeqMin:   uint64(cfg.SequenceMin),
		SeqMax:   uint64(cfg.SequenceMax),
		Policy:   cfg.Policy,
		MaxAhead: cfg.MaxAhead,
		MaxWait:  cfg.MaxWait,
		Floor:    floor,
		TickTock: tock,
		Safe:     safe,
		Reserved: cfg.Reserved,
		Ceiling:  cfg.Ceiling,
		LowWater: cfg.LowWater,
		Overflow: cfg.Overflow,
	})
	if err != nil {
		return nil, err
	}
	shift := uint(1)
	if cfg.Policy == floe.TickTock {
		shift = 0 // the core's tick already ends in the tick-tock bit
	}
	return &Generator{
		seq:       s,
		clock:     clock,
		partition: cfg.Partition.Uint16(),
		seqMin:    cfg.SequenceMin,
		seqMax:    cfg.SequenceMax,
		drifts:    drifts,
		shift:     shift,
	}, nil
}

// New returns a new ID carrying meta. It fails only as the generator's
// Policy says (a *floe.ClockError), at the reservation ceiling (a
// *floe.CeilingError), or after 2079 (floe.ErrTimeExhausted).
func (g *Generator) New(meta byte) (ID, error) {
	block, seq, _, err := g.seq.Reserve(1)
	if err != nil {
		return ID{}, err
	}
	return newID(block<<g.shift, meta, g.partition, uint16(seq)), nil
}

// Partition returns the generator's partition.
func (g *Generator) Partition() Partition { return PartitionFromUint16(g.partition) }

// SequenceMin returns the lowest sequence number the generator issues.
func (g *Generator) SequenceMin() uint16 { return g.seqMin }

// SequenceMax returns the highest sequence number the generator issues.
func (g *Generator) SequenceMax() uint16 { return g.seqMax }

// Cap returns how many IDs the generator can issue per 4 ms tick.
func (g *Generator) Cap() int { return int(g.seqMax-g.seqMin) + 1 }

// Stats returns the generator's counters.
func (g *Generator) Stats() floe.Stats { return g.seq.Stats() }

// RaiseCeiling lets a Reserved generator issue timestamps up to ts.
func (g *Generator) RaiseCeiling(ts uint64) { g.seq.RaiseCeiling(ts) }

// Ceiling returns the highest timestamp a Reserved generator may issue.
func (g *Generator) Ceiling() uint64 { return g.seq.Ceiling() }

// Need is signalled when a Reserved generator reaches its ceiling or has
// less than LowWater of headroom left.
func (g *Generator) Need() <-chan struct{} { return g.seq.Need() }

// LastTick returns the last timestamp issued (or the floor, before the first
// ID). A successor with Config.Floor at or above it never reissues an ID.
func (g *Generator) LastTick() uint64 { return g.seq.State().Tick }
