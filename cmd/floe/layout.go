package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/floeid/floe/id64"
)

// parseLayoutFlag reads the value of the layout flag named flag, as
// id64.ParseLayout does, and names the flag in its error.
func parseLayoutFlag(flag, value string) (id64.Layout, error) {
	l, err := id64.ParseLayout(value)
	if err != nil {
		return id64.Layout{}, fmt.Errorf("%s: %w", flag, err)
	}
	return l, nil
}

// layoutLabel is how output names a layout given as value: a preset by its
// name, any other layout as its text, quoted.
func layoutLabel(value string, l id64.Layout) string {
	if !strings.Contains(value, "/") {
		return value
	}
	return strconv.Quote(l.String())
}

// layoutPresets are the presets "floe layout" describes when given no
// layout: every name LayoutByName knows, snowcast-N by its default size.
var layoutPresets = []string{
	"twitter", "icicle", "icicle2", "redisgen", "instagram", "discord",
	"sonyflake", "hazelcast", "js53", "snowcast-8192",
}

func runLayout(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("layout", stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: floe layout "+synopses["layout"])
		fmt.Fprintln(stderr, "\nDescribes each id64 layout, a preset's name or a layout written out: its fields from the top,")
		fmt.Fprintln(stderr, "tick, epoch, end (when its time runs out), IDs per tick and per second of a node, and nodes.")
		fmt.Fprintln(stderr, "With no layout, describes every preset. A layout is "+id64.LayoutHelp+".")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	out := fs.String("o", "text", "output: text (a block per layout) or json (an object per layout, one a line)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out != "text" && *out != "json" {
		return fmt.Errorf("-o %q: want text or json", *out)
	}
	names := fs.Args()
	if len(names) == 0 {
		names = layoutPresets
	}
	for i, name := range names {
		l, err := id64.ParseLayout(name)
		if err != nil {
			return err
		}
		d := describeLayout(layoutLabel(name, l), l)
		if *out == "json" {
			enc := json.NewEncoder(stdout)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(d); err != nil {
				return err
			}
			continue
		}
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if err := d.writeText(stdout); err != nil {
			return err
		}
	}
	return nil
}

// layoutField is one field of a layout and its width.
type layoutField struct {
	Field string `json:"field"`
	Bits  int    `json:"bits"`
}

// layoutFacts is what "floe layout" prints of a layout.
type layoutFacts struct {
	Layout       string        `json:"layout"`         // as given: a preset's name, or the text quoted
	Text         string        `json:"text"`           // as Layout.String writes it
	Fields       []layoutField `json:"fields"`         // from the top, fields of width 0 left out
	ZeroBits     int           `json:"zero_bits"`      // always-0 bits above the fields: the sign bit of a signed layout, and more
	Tick         string        `json:"tick"`           // a Go duration
	Epoch        string        `json:"epoch"`          // RFC 3339, UTC
	End          string        `json:"end"`            // when the time runs out, RFC 3339, UTC (the year may pass 9999)
	Years        float64       `json:"years"`          // from epoch to end, in years of 365.2425 days
	PerTick      uint64        `json:"ids_per_tick"`   // per node
	PerSecond    float64       `json:"ids_per_second"` // per node
	Nodes        uint64        `json:"nodes"`
	Datacenters  uint64        `json:"datacenters,omitempty"` // when the node is split
	Workers      uint64        `json:"workers,omitempty"`     // per datacenter, when the node is split
	MaxID        string        `json:"max_id"`                // the largest ID the layout can hold, decimal
	perSecondStr string
}

// describeLayout returns the facts of l, which label names.
func describeLayout(label string, l id64.Layout) layoutFacts {
	var fields []layoutField
	seq := layoutField{"sequence", l.SequenceBits}
	if l.Order == id64.TimeSequenceNode && l.NodeBits() > 0 {
		fields = append(fields, layoutField{"time", l.TimeBits}, seq)
	} else {
		fields = append(fields, layoutField{"time", l.TimeBits})
	}
	if l.DatacenterBits > 0 {
		fields = append(fields, layoutField{"datacenter", l.DatacenterBits})
	}
	if l.WorkerBits > 0 {
		fields = append(fields, layoutField{"worker", l.WorkerBits})
	}
	if l.Order != id64.TimeSequenceNode || l.NodeBits() == 0 {
		fields = append(fields, seq)
	}
	perTick := l.MaxSequence() + 1
	// IDs per second: perTick × 1e9 / Unit, exact when a second is a
	// whole number of ticks' worth of IDs.
	rate := new(big.Rat).SetFrac(new(big.Int).Mul(new(big.Int).SetUint64(perTick), big.NewInt(int64(time.Second))), big.NewInt(int64(l.Unit)))
	perSecond, _ := rate.Float64()
	perSecondStr := rate.RatString()
	if !rate.IsInt() {
		perSecondStr = "about " + strconv.FormatFloat(perSecond, 'f', 0, 64)
	}
	span, _ := new(big.Float).Mul(new(big.Float).SetUint64(l.MaxTick()), big.NewFloat(float64(l.Unit))).Float64()
	f := layoutFacts{
		Layout:       label,
		Text:         l.String(),
		Fields:       fields,
		ZeroBits:     64 - l.TimeBits - l.NodeBits() - l.SequenceBits,
		Tick:         l.Unit.String(),
		Epoch:        stamp(l.Epoch),
		End:          stamp(l.End()),
		Years:        math.Floor(span/(365.2425*24*float64(time.Hour))*10) / 10,
		PerTick:      perTick,
		PerSecond:    perSecond,
		Nodes:        l.MaxNode() + 1,
		MaxID:        l.MaxID().String(),
		perSecondStr: perSecondStr,
	}
	if l.DatacenterBits > 0 && l.WorkerBits > 0 {
		f.Datacenters, f.Workers = l.MaxDatacenter()+1, l.MaxWorker()+1
	}
	return f
}

// writeText prints f as aligned "name  value" lines.
func (f layoutFacts) writeText(w io.Writer) error {
	var fields []string
	for _, fl := range f.Fields {
		fields = append(fields, fmt.Sprintf("%s %d", fl.Field, fl.Bits))
	}
	bits := strings.Join(fields, ", ")
	switch f.ZeroBits {
	case 0:
	case 1:
		bits = "sign bit 0, " + bits
	default:
		bits = fmt.Sprintf("%d bits 0, ", f.ZeroBits) + bits
	}
	nodes := strconv.FormatUint(f.Nodes, 10)
	if f.Datacenters > 0 {
		nodes += fmt.Sprintf(" (%d datacenters of %d workers)", f.Datacenters, f.Workers)
	}
	lines := [][2]string{
		{"layout", f.Layout},
		{"text", f.Text},
		{"bits", bits},
		{"tick", f.Tick},
		{"epoch", f.Epoch},
		{"end", fmt.Sprintf("%s (%.1f years)", f.End, f.Years)},
		{"IDs per tick", fmt.Sprintf("%d per node", f.PerTick)},
		{"IDs per second", f.perSecondStr + " per node"},
		{"nodes", nodes},
		{"largest ID", f.MaxID},
	}
	for _, l := range lines {
		if _, err := fmt.Fprintf(w, "%-15s %s\n", l[0], l[1]); err != nil {
			return err
		}
	}
	return nil
}
