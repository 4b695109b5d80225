package id128

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/clockseq"
)

// Generator issues IDs for one worker ID. It is safe for concurrent use; its
// fast path takes no lock while callers do not collide. IDs from one
// Generator strictly increase.
//
// A Generator never issues an ID twice: each (millisecond, counter) pair is
// reserved once, by an atomic operation on one word, the counter restarts at
// 0 in every millisecond, and when a millisecond's 262,144 numbers are spent
// callers wait for the next one (or, under floe.Borrow, take it ahead of the
// clock). The clock policy decides what happens when the clock runs back.
type Generator struct {
	seq    *clockseq.Seq
	worker uint16 // immutable
	loBase uint64 // immutable: the variant and the worker, in the low word
}

// NewGenerator returns a Generator for cfg.
func NewGenerator(cfg Config) (*Generator, error) {
	if cfg.Policy == floe.TickTock {
		return nil, fmt.Errorf("%w: %s", floe.ErrPolicyUnsupported, cfg.Policy)
	}
	s, err := clockseq.New(clockseq.Config{
		Clock:    cfg.Clock,
		Epoch:    0,
		Unit:     int64(TickUnit),
		MaxTick:  MaxTick,
		SeqBits:  counterBits,
		Policy:   cfg.Policy,
		MaxAhead: cfg.MaxAhead,
		MaxWait:  cfg.MaxWait,
		Floor:    cfg.Floor,
		Reserved: cfg.Reserved,
		Ceiling:  cfg.Ceiling,
		LowWater: cfg.LowWater,
		Overflow: cfg.Overflow,
	})
	if err != nil {
		return nil, err
	}
	return &Generator{
		seq:    s,
		worker: cfg.Worker,
		loBase: loVariant | uint64(cfg.Worker)<<loWorkerShift,
	}, nil
}

// Next returns a new ID. It fails only as its Policy says (a
// *floe.ClockError), at the reservation ceiling (a *floe.CeilingError) or
// when the tick no longer fits (floe.ErrTimeExhausted, in the year 2262,
// when Unix nanoseconds outgrow an int64).
func (g *Generator) Next() (ID, error) {
	tick, counter, _, err := g.seq.Reserve(1)
	if err != nil {
		return ID{}, err
	}
	return g.compose(tick, counter, rand.Uint64()), nil
}

// compose builds the ID of tick and counter on the generator's worker, with
// the high 40 bits of r as its random bits. tick and counter are in range.
func (g *Generator) compose(tick, counter, r uint64) ID {
	return fromWords(
		tick<<hiTickShift|hiVersion|counter>>counterLoLen,
		g.loBase|(counter&counterLoMask)<<loCounterShift|r>>(64-randomBits),
	)
}

// NextN fills dst with new, increasing IDs, reserving whole runs of a
// millisecond's counter at once. It returns how many it wrote: len(dst), or
// fewer with the error that stopped it.
func (g *Generator) NextN(dst []ID) (int, error) {
	i := 0
	for i < len(dst) {
		tick, counter, n, err := g.seq.Reserve(uint64(len(dst) - i))
		if err != nil {
			return i, err
		}
		for j := range dst[i : i+int(n)] {
			dst[i+j] = g.compose(tick, counter+uint64(j), rand.Uint64())
		}
		i += int(n)
	}
	return i, nil
}

// AppendNext appends n new, increasing IDs to dst and returns the extended
// slice, with the error that stopped it early, if any. It allocates only
// when dst lacks room.
func (g *Generator) AppendNext(dst []ID, n int) ([]ID, error) {
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	k, err := g.NextN(dst[start:])
	return dst[:start+k], err
}

// Worker returns the generator's worker ID.
func (g *Generator) Worker() uint16 { return g.worker }

// LastTick returns the last tick issued (or the floor, before the first
// ID), in Unix milliseconds. A successor on this worker ID that starts with
// Config.Floor at or above it never reissues an ID.
func (g *Generator) LastTick() uint64 { return g.seq.State().Tick }

// Stats returns the generator's counters.
func (g *Generator) Stats() floe.Stats { return g.seq.Stats() }

// RaiseCeiling lets a Reserved generator issue ticks up to tick. Lower values
// than the current ceiling are ignored.
func (g *Generator) RaiseCeiling(tick uint64) { g.seq.RaiseCeiling(tick) }

// Ceiling returns the highest tick a Reserved generator may issue.
func (g *Generator) Ceiling() uint64 { return g.seq.Ceiling() }

// Need is signalled when a Reserved generator reaches its ceiling or, after
// a new tick, has less than LowWater of headroom left.
func (g *Generator) Need() <-chan struct{} { return g.seq.Need() }
