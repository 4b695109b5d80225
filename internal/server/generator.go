package server

import (
	"cmp"
	"fmt"
	"time"

	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
	"github.com/floeid/floe/sequencer"
)

// definitionOf returns the cluster-wide definition of sc, its defaults
// filled in: format and layout, without the node.
func definitionOf(sc SequenceConfig) sequencer.Definition {
	d := sequencer.Definition{Format: cmp.Or(sc.Format, Format64)}
	if d.Format == Format64 {
		d.Layout = cmp.Or(sc.Layout, id64.Twitter)
	}
	return d
}

// localDefinition returns what a local state file records for sc: its
// definition and its fixed node.
func localDefinition(sc SequenceConfig, d sequencer.Definition) string {
	switch d.Format {
	case Format80:
		return fmt.Sprintf("id80 partition=%d", sc.Node)
	case Format96:
		return fmt.Sprintf("id96 node=%d", sc.Node)
	case Format128:
		return fmt.Sprintf("id128 worker=%d", sc.Node)
	}
	return fmt.Sprintf("id64 layout=%q datacenter=%d worker=%d", d.Layout.String(), sc.Datacenter, sc.Worker)
}

// Spec returns the definition a cluster records for sc: its format and
// layout (with the epoch and tick unit) as JSON, without the node. Every
// node that serves a named sequence must have the same spec.
func Spec(sc SequenceConfig) (string, error) {
	s, err := definitionOf(sc).Spec()
	if err != nil {
		return "", fmt.Errorf("%w: sequence %q: %w", ErrConfig, sc.Name, err)
	}
	return s, nil
}

// SequenceFromSpec returns the SequenceConfig of a sequence named name
// with the Spec text s, as a cluster's catalog records it.
func SequenceFromSpec(name, s string) (SequenceConfig, error) {
	d, err := sequencer.ParseSpec(s)
	if err != nil {
		return SequenceConfig{}, fmt.Errorf("%w: sequence %q: %w", ErrConfig, name, err)
	}
	return SequenceConfig{Name: name, Format: d.Format, Layout: d.Layout}, nil
}

// maxWorkerIDs caps the worker IDs of a sequence in a cluster.
const maxWorkerIDs = sequencer.MaxWorkerIDs

// WorkerIDs returns how many worker IDs sc's format and layout have room
// for: the nodes of its id64 layout (snowcast's 128..8192 is this choice),
// id80's partitions, or 65,536 id96 nodes or id128 workers.
func WorkerIDs(sc SequenceConfig) int { return definitionOf(sc).WorkerIDs() }

// StaticID returns the worker ID of sc's fixed node, as a Static source
// holds it: the id64 node (datacenter and worker), the id80 partition, or
// the id96 node minus one, or the id128 worker (see sequencer.Definition).
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
	case Format128:
		if sc.Node > id128.MaxWorker {
			return 0, fmt.Errorf("%w: sequence %q: id128 worker %d above %d", ErrConfig, sc.Name, sc.Node, id128.MaxWorker)
		}
		return int(sc.Node), nil
	}
	return 0, fmt.Errorf("%w: sequence %q: unknown format %q (want id64, id80, id96 or id128)", ErrConfig, sc.Name, sc.Format)
}

// inspect decodes the text of an ID of sc.
func inspect(sc SequenceConfig, s string) (any, error) {
	switch sc.Format {
	case Format80:
		return inspect80(s)
	case Format96:
		return inspect96(s)
	case Format128:
		return inspect128(s)
	}
	l := cmp.Or(sc.Layout, id64.Twitter)
	id, err := l.ParseID(s)
	if err != nil {
		return nil, err
	}
	p := l.Parts(id)
	return struct {
		ID     id64.ID `json:"id"`
		Layout string  `json:"layout"`
		// Time shadows p.Time, whose MarshalJSON fails past the year 9999,
		// where the time of a long layout's IDs may lie.
		Time string `json:"time"`
		id64.Parts
	}{id, l.String(), p.Time.UTC().Format(time.RFC3339Nano), p}, nil
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

func inspect128(s string) (any, error) {
	id, err := id128.Parse(s)
	if err != nil {
		return nil, err
	}
	p := id.Parts()
	return struct {
		ID      id128.ID  `json:"id"`
		Time    time.Time `json:"time"`
		Tick    uint64    `json:"tick"`
		Counter uint32    `json:"counter"`
		Worker  uint16    `json:"worker"`
		Random  uint64    `json:"random"`
	}{id, p.Time, p.Tick, p.Counter, p.Worker, p.Random}, nil
}
