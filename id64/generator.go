package id64

import (
	"fmt"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/clockseq"
)

// Generator issues IDs of one layout for one node. It is safe for concurrent
// use; its fast path takes no lock while callers do not collide. IDs from one
// Generator strictly increase.
//
// A Generator never issues an ID twice: not across goroutines, clock steps
// backwards (its Policy decides whether it waits, fails or borrows), or a
// restart above Config.Floor.
type Generator struct {
	seq    *clockseq.Seq
	layout Layout // immutable
	node   uint64 // immutable: the node shifted into place
	tshift uint   // immutable: bits below the time field
	sshift uint   // immutable: bits below the sequence field (the node's, in TimeSequenceNode)
}

// NewGenerator returns a Generator for cfg.
func NewGenerator(cfg Config) (*Generator, error) {
	l := cfg.Layout
	if l == (Layout{}) {
		l = Twitter
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	node, err := l.Node(cfg.Datacenter, cfg.Worker)
	if err != nil {
		return nil, err
	}
	if cfg.Policy == floe.TickTock {
		return nil, fmt.Errorf("%w: %s", floe.ErrPolicyUnsupported, cfg.Policy)
	}
	s, err := clockseq.New(clockseq.Config{
		Clock:    cfg.Clock,
		Epoch:    l.Epoch.UnixNano(),
		Unit:     int64(l.Unit),
		MaxTick:  l.MaxTick(),
		SeqBits:  uint(l.SequenceBits),
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
	nshift, sshift := l.shifts()
	return &Generator{
		seq:    s,
		layout: l,
		node:   node << nshift,
		tshift: uint(l.NodeBits() + l.SequenceBits),
		sshift: sshift,
	}, nil
}

// Next returns a new ID. It fails only as its Policy says (a
// *floe.ClockError), at the reservation ceiling (a *floe.CeilingError) or
// when the layout's time has run out (floe.ErrTimeExhausted).
func (g *Generator) Next() (ID, error) {
	tick, seq, _, err := g.seq.Reserve(1)
	if err != nil {
		return 0, err
	}
	return ID(tick<<g.tshift | g.node | seq<<g.sshift), nil
}

// NextN fills dst with new, increasing IDs, reserving whole runs of a tick's
// sequence at once. It returns how many it wrote: len(dst), or fewer with
// the error that stopped it.
func (g *Generator) NextN(dst []ID) (int, error) {
	i := 0
	for i < len(dst) {
		tick, seq, n, err := g.seq.Reserve(uint64(len(dst) - i))
		if err != nil {
			return i, err
		}
		// The run's sequence numbers are consecutive and fit the field,
		// so adding them never carries into the node or the time.
		base := tick<<g.tshift | g.node | seq<<g.sshift
		for j := range dst[i : i+int(n)] {
			dst[i+j] = ID(base + uint64(j)<<g.sshift)
		}
		i += int(n)
	}
	return i, nil
}

// Layout returns the generator's layout.
func (g *Generator) Layout() Layout { return g.layout }

// Stats returns the generator's counters.
func (g *Generator) Stats() floe.Stats { return g.seq.Stats() }

// LastTick returns the last tick issued (or the floor, before the first ID).
// A successor of this node that starts with Config.Floor at or above it
// never reissues an ID.
func (g *Generator) LastTick() uint64 { return g.seq.State().Tick }

// RaiseCeiling lets a Reserved generator issue ticks up to tick. Lower values
// than the current ceiling are ignored.
func (g *Generator) RaiseCeiling(tick uint64) { g.seq.RaiseCeiling(tick) }

// Ceiling returns the highest tick a Reserved generator may issue.
func (g *Generator) Ceiling() uint64 { return g.seq.Ceiling() }

// Need is signalled when a Reserved generator reaches its ceiling or, after
// a new tick, has less than LowWater of headroom left.
func (g *Generator) Need() <-chan struct{} { return g.seq.Need() }
