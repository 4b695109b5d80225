package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
)

func runInspect(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("inspect", stderr)
	layout := fs.String("layout", "twitter", "layout of decimal (id64) IDs: twitter, icicle, instagram, discord or snowcast-N")
	format := fs.String("format", "", "decode as this format only: id64, id80 or id96 (default: tell from the text)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch *format {
	case "", "id64", "id80", "id96":
	default:
		return fmt.Errorf("-format %q: want id64, id80 or id96", *format)
	}
	l, err := id64.LayoutByName(*layout)
	if err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("no IDs given")
	}
	var failed error
	for _, arg := range fs.Args() {
		lines, err := inspect(arg, *format, l, *layout)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", arg, err)
			failed = errors.New("some IDs could not be decoded")
			continue
		}
		fmt.Fprintln(stdout, strings.Join(lines, "\n"))
	}
	return failed
}

// inspect decodes s as format, or tells the format from the text: decimal
// digits are an id64 of the given layout, 16 characters of [2-9a-x] an id80
// (sno) and other 16 characters an id96 (guid). Text valid as both an id80 and
// an id96 is shown as both, the one whose time lies nearer to now first.
func inspect(s, format string, l id64.Layout, layoutName string) ([]string, error) {
	if format == "id64" || format == "" && s != "" && strings.Trim(s, "0123456789") == "" {
		id, err := id64.Parse(s)
		if err != nil {
			return nil, err
		}
		if err := l.CheckID(id); err != nil {
			return nil, err
		}
		p := l.Parts(id)
		return []string{fmt.Sprintf("%s id64 layout=%s time=%s tick=%d datacenter=%d worker=%d sequence=%d",
			s, layoutName, stamp(p.Time), p.Tick, p.Datacenter, p.Worker, p.Sequence)}, nil
	}
	type decoded struct {
		line string
		off  time.Duration // distance of the ID's time from now
	}
	var found []decoded
	var errs []error
	if format != "id96" {
		if id, err := id80.Parse(s); err == nil {
			p := id.Parts()
			found = append(found, decoded{fmt.Sprintf("%s id80 time=%s ticktock=%t meta=%d partition=%d sequence=%d",
				s, stamp(p.Time), p.TickTock, p.Meta, p.Partition.Uint16(), p.Sequence), distance(p.Time)})
		} else {
			errs = append(errs, err)
		}
	}
	if format != "id80" {
		if id, err := id96.Parse(s); err == nil {
			p := id.Parts()
			found = append(found, decoded{fmt.Sprintf("%s id96 time=%s drift=%d node=%d sequence=%d",
				s, stamp(p.Time), p.Drift, p.Node, p.Sequence), distance(p.Time)})
		} else {
			errs = append(errs, err)
		}
	}
	if found == nil {
		return nil, fmt.Errorf("not an id64, id80 or id96 ID: %w", errors.Join(errs...))
	}
	if len(found) == 2 && found[1].off < found[0].off {
		found[0], found[1] = found[1], found[0]
	}
	lines := make([]string, len(found))
	for i, d := range found {
		lines[i] = d.line
	}
	return lines, nil
}

func distance(t time.Time) time.Duration {
	d := time.Since(t)
	if d < 0 {
		return -d
	}
	return d
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
