package sequencer

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
)

// Format names the ID format a sequence issues.
type Format string

// The formats.
const (
	Format64 Format = "id64"
	Format80 Format = "id80"
	Format96 Format = "id96"
	// Format128 is id128, RFC 9562 version-7 UUIDs.
	Format128 Format = "id128"
)

// MaxWorkerIDs caps the worker IDs of a sequence: a claim probes them, so
// their number stays small. 65,536 covers every id64 layout's nodes up to
// 16 bits, id80's partitions and id128's worker IDs.
const MaxWorkerIDs = 1 << 16

// Definition is what every holder of a sequence agrees on: everything that,
// changed, could make new IDs collide with old ones, but the node, which
// comes from the worker ID each holder claims.
//
// A worker ID maps to a node of the format:
//
//	id64  the layout's node, datacenter<<WorkerBits | worker: worker IDs
//	      0..Layout.MaxNode (at most MaxWorkerIDs of them)
//	id80  the partition: worker IDs 0..65535
//	id96  the node minus one: worker ID 0 is node 1, since id96 keeps node 0
//	      for random nodes; worker IDs 0..65535
//	id128 the worker field: worker IDs 0..65535
//
// A Definition is a plain value, safe to copy.
type Definition struct {
	// Format is the ID format; empty means id64.
	Format Format
	// Layout is the id64 layout; the zero Layout means id64.Twitter. It
	// must be zero for the other formats.
	Layout id64.Layout
}

// Snowcast returns the definition of a noctarius/snowcast sequencer created
// with epoch and nodes logical nodes (snowcast's createSequencer): an id64
// sequence on id64.Snowcast(nodes) with that epoch. nodes must lie in
// 128..8192; the zero epoch means the Twitter epoch. The error wraps
// ErrDefinition and id64.ErrSnowcastNodes.
func Snowcast(epoch time.Time, nodes int) (Definition, error) {
	l, err := id64.Snowcast(nodes)
	if err != nil {
		return Definition{}, fmt.Errorf("%w: %w", ErrDefinition, err)
	}
	if !epoch.IsZero() {
		l.Epoch = epoch
	}
	d := Definition{Format: Format64, Layout: l}
	if err := d.Validate(); err != nil {
		return Definition{}, err
	}
	return d, nil
}

// canonical returns d with its defaults filled in.
func (d Definition) canonical() Definition {
	if d.Format == "" {
		d.Format = Format64
	}
	if d.Format == Format64 && d.Layout == (id64.Layout{}) {
		d.Layout = id64.Twitter
	}
	return d
}

// Validate reports whether d is a definition a sequence can have. Its
// errors wrap ErrDefinition, and for an id64 layout the layout's own
// errors (see id64.Layout.Validate).
func (d Definition) Validate() error {
	d = d.canonical()
	switch d.Format {
	case Format64:
		if err := d.Layout.Validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrDefinition, err)
		}
		return nil
	case Format80, Format96, Format128:
		if d.Layout != (id64.Layout{}) {
			return fmt.Errorf("%w: a layout for format %s (only id64 takes one)", ErrDefinition, d.Format)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown format %q (want id64, id80, id96 or id128)", ErrDefinition, d.Format)
}

// spec is the JSON of a Spec.
type spec struct {
	Format Format       `json:"format"`
	Layout *id64.Layout `json:"layout,omitempty"`
}

// Spec returns the text a catalog records for d (workerid.Sequence.Spec):
// its format and, for id64, its layout with the epoch in UTC, as JSON.
// Every holder compares it byte for byte.
func (d Definition) Spec() (string, error) {
	if err := d.Validate(); err != nil {
		return "", err
	}
	d = d.canonical()
	sp := spec{Format: d.Format}
	if d.Format == Format64 {
		l := d.Layout
		l.Epoch = l.Epoch.UTC()
		sp.Layout = &l
	}
	b, err := json.Marshal(sp)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrDefinition, err)
	}
	return string(b), nil
}

// ParseSpec returns the Definition whose Spec is s. Anything but a
// canonical spec (unknown fields, other spacing, trailing data) is an
// error wrapping ErrDefinition.
func ParseSpec(s string) (Definition, error) {
	var sp spec
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sp); err != nil {
		return Definition{}, fmt.Errorf("%w: spec %q: %w", ErrDefinition, s, err)
	}
	d := Definition{Format: sp.Format}
	if sp.Layout != nil {
		if sp.Format != Format64 {
			return Definition{}, fmt.Errorf("%w: spec %q: a layout for format %s", ErrDefinition, s, sp.Format)
		}
		d.Layout = *sp.Layout
	}
	got, err := d.Spec()
	if err != nil {
		return Definition{}, err
	}
	if got != s {
		return Definition{}, fmt.Errorf("%w: spec %q is not canonical (want %q)", ErrDefinition, s, got)
	}
	return d, nil
}

// WorkerIDs returns how many worker IDs d has room for: the nodes of its
// id64 layout (snowcast's 128..8192 is this choice), at most MaxWorkerIDs,
// or MaxWorkerIDs for id80, id96 and id128.
func (d Definition) WorkerIDs() int {
	d = d.canonical()
	if d.Format == Format64 {
		return int(min(d.Layout.MaxNode()+1, MaxWorkerIDs))
	}
	return MaxWorkerIDs
}

// TickTime returns the start of tick, a time field value of d's format
// (id64: the layout's ticks; id80: its 4 ms timestamps; id96: its 2^17 ns
// ticks since the Unix epoch; id128: Unix milliseconds).
func (d Definition) TickTime(tick uint64) time.Time { return d.ticks().tickTime(tick) }

// End returns when d's format runs out of time.
func (d Definition) End() time.Time { return d.ticks().end() }

func (d Definition) ticks() ticks {
	d = d.canonical()
	switch d.Format {
	case Format80:
		return ticks{id80.Epoch, id80.TimeUnit, id80.MaxTimestamp}
	case Format96:
		return ticks{time.Unix(0, 0), 1 << 17, id96.MaxTick}
	case Format128:
		return ticks{time.Unix(0, 0), id128.TickUnit, id128.MaxTick}
	}
	return ticks{d.Layout.Epoch, d.Layout.Unit, d.Layout.MaxTick()}
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

// tickTime returns the start of tick. It adds in steps that fit a
// time.Duration: the time since the epoch of id96's ticks after 2262 does
// not.
func (k ticks) tickTime(tick uint64) time.Time {
	t := k.epoch
	step := uint64(math.MaxInt64 / k.unit)
	for ; tick > step; tick -= step {
		t = t.Add(time.Duration(step) * k.unit)
	}
	return t.Add(time.Duration(tick) * k.unit)
}

// end is when the format's time runs out.
func (k ticks) end() time.Time { return k.tickTime(k.last + 1) }
