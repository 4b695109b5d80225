package server

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
)

// generator is what a sequence needs of the generator of its format. The
// library's generators share the reservation methods; the format-specific
// ones are adapted below.
type generator interface {
	// fill64 fills dst with 64-bit IDs (id64 only).
	fill64(dst []id64.ID) (int, error)
	// appendText appends one new ID's text to dst.
	appendText(dst []byte) ([]byte, error)

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

// newGenerator returns the generator of sc and the canonical definition that
// a Store records for it.
func newGenerator(sc SequenceConfig, gc genConfig) (generator, error) {
	switch sc.Format {
	case Format64, "":
		g, err := id64.NewGenerator(id64.Config{
			Layout: sc.Layout, Datacenter: sc.Datacenter, Worker: sc.Worker,
			Clock: gc.clock, Policy: gc.policy, MaxAhead: gc.maxAhead, MaxWait: gc.maxWait,
			Floor: gc.floor, Reserved: true, Ceiling: gc.ceiling, LowWater: gc.lowWater,
		})
		if err != nil {
			return nil, err
		}
		return gen64{g}, nil
	case Format80:
		if sc.Node > id80.MaxPartition {
			return nil, fmt.Errorf("%w: id80 partition %d above %d", ErrConfig, sc.Node, id80.MaxPartition)
		}
		g, err := id80.NewGenerator(id80.Config{
			Partition: id80.PartitionFromUint16(uint16(sc.Node)),
			Clock:     gc.clock, Policy: gc.policy, MaxAhead: gc.maxAhead, MaxWait: gc.maxWait,
			Floor: gc.floor, Reserved: true, Ceiling: gc.ceiling, LowWater: gc.lowWater,
		})
		if err != nil {
			return nil, err
		}
		return gen80{g}, nil
	case Format96:
		if sc.Node == 0 || sc.Node > 1<<32-1 {
			return nil, fmt.Errorf("%w: id96 node %d not in 1..%d (0 would be random)", ErrConfig, sc.Node, uint64(1<<32-1))
		}
		g, err := id96.NewGenerator(id96.Config{
			Node:  uint32(sc.Node),
			Clock: gc.clock, Policy: gc.policy, MaxAhead: gc.maxAhead, MaxWait: gc.maxWait,
			Floor: gc.floor, Reserved: true, Ceiling: gc.ceiling, LowWater: gc.lowWater,
		})
		if err != nil {
			return nil, err
		}
		return gen96{g}, nil
	}
	return nil, fmt.Errorf("%w: sequence %q: unknown format %q (want id64, id80 or id96)", ErrConfig, sc.Name, sc.Format)
}

// describe returns sc's spec (what a cluster records for it: everything
// that, changed, could make new IDs collide with old ones, but the node),
// its definition (the spec and its fixed node, what a local state file
// records) and the ticks of its format.
func describe(sc SequenceConfig) (spec, def string, k ticks, err error) {
	switch sc.Format {
	case Format64, "":
		l := sc.Layout
		if l == (id64.Layout{}) {
			l = id64.Twitter
		}
		if err := l.Validate(); err != nil {
			return "", "", ticks{}, fmt.Errorf("sequence %q: %w", sc.Name, err)
		}
		def := fmt.Sprintf("id64 layout=%q datacenter=%d worker=%d", l.String(), sc.Datacenter, sc.Worker)
		return encodeSpec(Format64, &l), def, ticks{l.Epoch, l.Unit, l.MaxTick()}, nil
	case Format80:
		return encodeSpec(Format80, nil), fmt.Sprintf("id80 partition=%d", sc.Node), ticks{id80.Epoch, id80.TimeUnit, id80.MaxTimestamp}, nil
	case Format96:
		return encodeSpec(Format96, nil), fmt.Sprintf("id96 node=%d", sc.Node), ticks{time.Unix(0, 0), 1 << 17, id96.MaxTick}, nil
	}
	return "", "", ticks{}, fmt.Errorf("%w: sequence %q: unknown format %q (want id64, id80 or id96)", ErrConfig, sc.Name, sc.Format)
}

// Spec returns the definition a cluster records for sc: its format and
// layout (with the epoch and tick unit) as JSON, without the node. Every
// node that serves a named sequence must have the same spec.
func Spec(sc SequenceConfig) (string, error) {
	spec, _, _, err := describe(sc)
	return spec, err
}

// spec is the JSON of a Spec.
type spec struct {
	Format Format       `json:"format"`
	Layout *id64.Layout `json:"layout,omitempty"`
}

func encodeSpec(f Format, l *id64.Layout) string {
	if l != nil {
		c := *l
		c.Epoch = c.Epoch.UTC()
		l = &c
	}
	b, _ := json.Marshal(spec{f, l})
	return string(b)
}

// SequenceFromSpec returns the SequenceConfig of a sequence named name
// with the Spec text s, as a cluster's catalog records it.
func SequenceFromSpec(name, s string) (SequenceConfig, error) {
	var sp spec
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sp); err != nil {
		return SequenceConfig{}, fmt.Errorf("%w: sequence %q: spec %q: %w", ErrConfig, name, s, err)
	}
	sc := SequenceConfig{Name: name, Format: sp.Format}
	if sp.Layout != nil {
		if sp.Format != Format64 {
			return SequenceConfig{}, fmt.Errorf("%w: sequence %q: a layout for format %s", ErrConfig, name, sp.Format)
		}
		sc.Layout = *sp.Layout
	}
	got, err := Spec(sc)
	if err != nil {
		return SequenceConfig{}, err
	}
	if got != s {
		return SequenceConfig{}, fmt.Errorf("%w: sequence %q: spec %q is not canonical (want %q)", ErrConfig, name, s, got)
	}
	return sc, nil
}

// maxWorkerIDs caps the worker IDs of a sequence in a cluster: a claim
// probes them, so their number stays small. 65,536 covers every id64
// layout's nodes up to 16 bits and id80's partitions.
const maxWorkerIDs = 1 << 16

// WorkerIDs returns how many worker IDs sc's format and layout have room
// for: the nodes of its id64 layout (snowcast's 128..8192 is this choice),
// id80's partitions, or 65,536 id96 nodes.
func WorkerIDs(sc SequenceConfig) int {
	if sc.Format == Format64 || sc.Format == "" {
		l := cmp.Or(sc.Layout, id64.Twitter)
		return int(min(l.MaxNode()+1, maxWorkerIDs))
	}
	return maxWorkerIDs
}

// StaticID returns the worker ID of sc's fixed node, as a Static source
// holds it: the id64 node (datacenter and worker), the id80 partition, or
// the id96 node minus one.
func StaticID(sc SequenceConfig) (int, error) {
	switch sc.Format {
	case Format64, "":
		l := cmp.Or(sc.Layout, id64.Twitter)
		node, err := l.Node(sc.Datacenter, sc.Worker)
		if err != nil {
			return 0, fmt.Errorf("%w: sequence %q: %w", ErrConfig, sc.Name, err)
		}
		return int(node), nil
	case Format80:
		if sc.Node > id80.MaxPartition {
			return 0, fmt.Errorf("%w: sequence %q: id80 partition %d above %d", ErrConfig, sc.Name, sc.Node, id80.MaxPartition)
		}
		return int(sc.Node), nil
	case Format96:
		if sc.Node == 0 || sc.Node > 1<<32-1 {
			return 0, fmt.Errorf("%w: sequence %q: id96 node %d not in 1..%d (0 would be random)", ErrConfig, sc.Name, sc.Node, uint64(1<<32-1))
		}
		return int(sc.Node - 1), nil
	}
	return 0, fmt.Errorf("%w: sequence %q: unknown format %q (want id64, id80 or id96)", ErrConfig, sc.Name, sc.Format)
}

// withNode returns sc with the node of worker ID id, the inverse of
// StaticID.
func withNode(sc SequenceConfig, id int) SequenceConfig {
	switch sc.Format {
	case Format64, "":
		l := cmp.Or(sc.Layout, id64.Twitter)
		sc.Datacenter = uint64(id) >> l.WorkerBits
		sc.Worker = uint64(id) & l.MaxWorker()
	case Format80:
		sc.Node = uint64(id)
	case Format96:
		sc.Node = uint64(id) + 1
	}
	return sc
}

// ticks converts times to a format's ticks: units since its epoch, up to
// its last tick. Times before the epoch clamp to tick 0.
type ticks struct {
	epoch time.Time
	unit  time.Duration
	last  uint64
}

func (k ticks) tick(t time.Time) uint64 {
	d := t.Sub(k.epoch)
	if d < 0 {
		return 0
	}
	return uint64(d / k.unit)
}

// tickTime returns the start of tick, clamped where the time since the
// epoch would overflow a time.Duration (id96's ticks after 2262).
func (k ticks) tickTime(tick uint64) time.Time {
	if tick > uint64(math.MaxInt64/k.unit) {
		return k.epoch.Add(math.MaxInt64)
	}
	return k.epoch.Add(time.Duration(tick) * k.unit)
}

// end is when the format's time runs out.
func (k ticks) end() time.Time { return k.tickTime(k.last + 1) }

type gen64 struct{ *id64.Generator }

func (g gen64) fill64(dst []id64.ID) (int, error) { return g.NextN(dst) }
func (g gen64) appendText(dst []byte) ([]byte, error) {
	id, err := g.Next()
	if err != nil {
		return dst, err
	}
	return id.AppendText(dst)
}

// inspect decodes the text of an ID of sc.
func inspect(sc SequenceConfig, s string) (any, error) {
	switch sc.Format {
	case Format80:
		return inspect80(s)
	case Format96:
		return inspect96(s)
	}
	id, err := id64.Parse(s)
	if err != nil {
		return nil, err
	}
	l := cmp.Or(sc.Layout, id64.Twitter)
	if err := l.CheckID(id); err != nil {
		return nil, err
	}
	return struct {
		ID     id64.ID `json:"id"`
		Layout string  `json:"layout"`
		id64.Parts
	}{id, l.String(), l.Parts(id)}, nil
}

type gen80 struct{ *id80.Generator }

func (g gen80) fill64([]id64.ID) (int, error) { return 0, ErrBinaryFormat }
func (g gen80) appendText(dst []byte) ([]byte, error) {
	id, err := g.New(0)
	if err != nil {
		return dst, err
	}
	return id.AppendText(dst)
}
func inspect80(s string) (any, error) {
	id, err := id80.Parse(s)
	if err != nil {
		return nil, err
	}
	p := id.Parts()
	return struct {
		ID        id80.ID   `json:"id"`
		Time      time.Time `json:"time"`
		Timestamp uint64    `json:"timestamp"`
		TickTock  bool      `json:"ticktock"`
		Meta      byte      `json:"meta"`
		Partition uint16    `json:"partition"`
		Sequence  uint16    `json:"sequence"`
	}{id, p.Time, p.Timestamp, p.TickTock, p.Meta, p.Partition.Uint16(), p.Sequence}, nil
}

type gen96 struct{ *id96.Generator }

func (g gen96) fill64([]id64.ID) (int, error) { return 0, ErrBinaryFormat }
func (g gen96) appendText(dst []byte) ([]byte, error) {
	id, err := g.Next()
	if err != nil {
		return dst, err
	}
	return id.AppendText(dst)
}
func inspect96(s string) (any, error) {
	id, err := id96.Parse(s)
	if err != nil {
		return nil, err
	}
	p := id.Parts()
	return struct {
		ID       id96.ID   `json:"id"`
		Time     time.Time `json:"time"`
		Tick     uint64    `json:"tick"`
		Drift    uint8     `json:"drift"`
		Node     uint32    `json:"node"`
		Sequence uint16    `json:"sequence"`
	}{id, p.Time, p.Tick, uint8(p.Drift), p.Node, p.Sequence}, nil
}
