package sequencer

import (
	"fmt"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
)

// generator is what the keeper needs of the generator of a term; the
// generators of every format have these methods. The hot paths call the
// typed generators of the term instead.
type generator interface {
	Stats() floe.Stats
	LastTick() uint64
	RaiseCeiling(tick uint64)
	Need() <-chan struct{}
}

// genConfig is what every format's generator takes.
type genConfig struct {
	clock    floe.Clock
	policy   floe.Policy
	maxAhead time.Duration
	maxWait  time.Duration
	floor    uint64
	ceiling  uint64
	lowWater time.Duration
}

// newGenerator sets t's generator: d's format on the node of worker ID id
// (see Definition).
func newGenerator(t *term, d Definition, id int, gc genConfig) error {
	if top := d.maxWorkerID(); id < 0 || uint64(id) > top {
		return fmt.Errorf("worker ID %d not in 0..%d of format %s", id, top, d.Format)
	}
	switch d.Format {
	case Format64:
		g, err := id64.NewGenerator(id64.Config{
			Layout: d.Layout, Datacenter: uint64(id) >> d.Layout.WorkerBits, Worker: uint64(id) & d.Layout.MaxWorker(),
			Clock: gc.clock, Policy: gc.policy, MaxAhead: gc.maxAhead, MaxWait: gc.maxWait,
			Floor: gc.floor, Reserved: true, Ceiling: gc.ceiling, LowWater: gc.lowWater,
		})
		if err != nil {
			return err
		}
		t.g64, t.gen = g, g
	case Format80:
		g, err := id80.NewGenerator(id80.Config{
			Partition: id80.PartitionFromUint16(uint16(id)),
			Clock:     gc.clock, Policy: gc.policy, MaxAhead: gc.maxAhead, MaxWait: gc.maxWait,
			Floor: gc.floor, Reserved: true, Ceiling: gc.ceiling, LowWater: gc.lowWater,
		})
		if err != nil {
			return err
		}
		t.g80, t.gen = g, g
	case Format96:
		g, err := id96.NewGenerator(id96.Config{
			Node:  uint32(id) + 1,
			Clock: gc.clock, Policy: gc.policy, MaxAhead: gc.maxAhead, MaxWait: gc.maxWait,
			Floor: gc.floor, Reserved: true, Ceiling: gc.ceiling, LowWater: gc.lowWater,
		})
		if err != nil {
			return err
		}
		t.g96, t.gen = g, g
	case Format128:
		g, err := id128.NewGenerator(id128.Config{
			Worker: uint16(id),
			Clock:  gc.clock, Policy: gc.policy, MaxAhead: gc.maxAhead, MaxWait: gc.maxWait,
			Floor: gc.floor, Reserved: true, Ceiling: gc.ceiling, LowWater: gc.lowWater,
		})
		if err != nil {
			return err
		}
		t.g128, t.gen = g, g
	default:
		return fmt.Errorf("%w: unknown format %q (want id64, id80, id96 or id128)", ErrDefinition, d.Format)
	}
	return nil
}

// maxWorkerID returns the highest worker ID that has a node in d's format,
// which a Source of a fixed ID (workerid.Static) may hold even beyond
// WorkerIDs.
func (d Definition) maxWorkerID() uint64 {
	switch d.Format {
	case Format80:
		return id80.MaxPartition
	case Format96:
		return 1<<32 - 2
	case Format128:
		return id128.MaxWorker
	}
	return d.Layout.MaxNode()
}
