package id96

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/clockseq"
)

// Generator issues IDs for one node. It is safe for concurrent use; its fast
// path takes no lock while callers do not collide. IDs from one Generator
// strictly increase.
//
// Where guid draws its 14-bit sequence from one counter that wraps around,
// so that more than 16,384 IDs in one tick of 131 µs repeat earlier ones, a
// Generator hands out each (tick, sequence) pair once: when a tick's 16,384
// numbers are spent, callers wait for the next tick (or borrow it, under
// floe.Borrow). The sequence restarts at 0 in every tick.
type Generator struct {
	seq   *clockseq.Seq
	node  uint32 // immutable
	drift Drift  // immutable

	// The parts of newID that depend on the node and drift only, computed
	// once: the hot path is left with two shifts, a mask and three ORs.
	hiFixed uint64 // immutable: drift code and the node's high bits
	loFixed uint64 // immutable: the node's low bits
	c, d    uint64 // immutable: drift code, and tick bits below the node
	lowMask uint64 // immutable: 1<<d - 1
}

// NewGenerator returns a Generator for cfg.
func NewGenerator(cfg Config) (*Generator, error) {
	if cfg.Drift > MaxDrift {
		return nil, fmt.Errorf("%w: %d", ErrDrift, cfg.Drift)
	}
	if cfg.Drift == 0 {
		cfg.Drift = DefaultDrift
	}
	if cfg.Policy == floe.TickTock {
		return nil, fmt.Errorf("%w: %s", floe.ErrPolicyUnsupported, cfg.Policy)
	}
	if cfg.Node == 0 {
		var b [4]byte
		for cfg.Node == 0 {
			if _, err := rand.Read(b[:]); err != nil {
				return nil, fmt.Errorf("floe: drawing a random node: %w", err)
			}
			cfg.Node = binary.BigEndian.Uint32(b[:])
		}
	}
	s, err := clockseq.New(clockseq.Config{
		Clock:    cfg.Clock,
		Epoch:    0,
		Unit:     int64(TickUnit),
		MaxTick:  MaxTick,
		SeqBits:  seqBits,
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
	c := uint64(cfg.Drift)
	d := c + driftZero
	n := uint64(cfg.Node)
	return &Generator{
		seq:     s,
		node:    cfg.Node,
		drift:   cfg.Drift,
		hiFixed: c<<hiDriftShift | n>>(nodeBits-c),
		loFixed: n << (nodeBits + c),
		c:       c,
		d:       d,
		lowMask: 1<<d - 1,
	}, nil
}

// Next returns a new ID. It fails only as the generator's Policy says (a
// *floe.ClockError) or when the tick no longer fits (floe.ErrTimeExhausted).
func (g *Generator) Next() (ID, error) {
	tick, seq, _, err := g.seq.Reserve(1)
	if err != nil {
		return ID{}, err
	}
	// newID(g.drift, tick, g.node, seq) with the fixed parts precomputed;
	// the tick is at most MaxTick and seq at most MaxSequence already.
	return fromWords(g.hiFixed|(tick>>g.d)<<g.c, g.loFixed|(tick&g.lowMask)<<seqBits|seq), nil
}

// Node returns the generator's node.
func (g *Generator) Node() uint32 { return g.node }

// Drift returns the drift code the generator writes.
func (g *Generator) Drift() Drift { return g.drift }

// LastTick returns the last tick issued (or the floor, before the first ID).
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

// global is the package-level generator behind New.
var global = func() *Generator {
	g, err := NewGenerator(Config{})
	if err != nil {
		panic(err) // crypto/rand failed: the process cannot make random nodes
	}
	return g
}()

// New returns a new ID from the package-level generator: a random node, the
// default drift, the monotonic clock (so wall-clock steps inside the process
// never stall it). It cannot fail before the tick outgrows an int64 of
// nanoseconds in 2262, when it panics.
func New() ID {
	for {
		id, err := global.Next()
		if err == nil {
			return id
		}
		if errors.Is(err, floe.ErrTimeExhausted) {
			panic(err)
		}
	}
}
