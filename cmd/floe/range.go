package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/floeid/floe/id64"
)

func runRange(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("range", stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: floe range "+synopses["range"])
		fmt.Fprintln(stderr, "\nPrints the smallest and the largest id64 ID of -layout from FROM's tick to TO's (default: FROM's),")
		fmt.Fprintln(stderr, "for WHERE id BETWEEN first AND last: first=ID last=ID from=TIME until=TIME, where until is the")
		fmt.Fprintln(stderr, "end of TO's tick. A time is RFC 3339 (2026-11-22T12:00:00Z), a date (midnight UTC) or now.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	layout := fs.String("layout", "twitter", "layout of the IDs: "+id64.LayoutHelp)
	out := fs.String("o", "text", "output: text (key=value) or json (an object)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		return usageError(fs, "want a time FROM, and optionally a time TO")
	}
	if *out != "text" && *out != "json" {
		return fmt.Errorf("-o %q: want text or json", *out)
	}
	l, err := parseLayoutFlag("-layout", *layout)
	if err != nil {
		return err
	}
	from, err := parseTimeArg("FROM", fs.Arg(0))
	if err != nil {
		return err
	}
	to := from
	if fs.NArg() == 2 {
		if to, err = parseTimeArg("TO", fs.Arg(1)); err != nil {
			return err
		}
	}
	r, err := rangeOf(l, from, to)
	if err != nil {
		return err
	}
	if *out == "json" {
		r.Layout = l.String()
		return json.NewEncoder(stdout).Encode(r)
	}
	_, err = fmt.Fprintf(stdout, "first=%s last=%s from=%s until=%s\n", r.First, r.Last, r.From, r.Until)
	return err
}

// idRange is the range of IDs of a time span, as "floe range -o json"
// prints it. IDs are decimal strings, as JSON IDs are everywhere in floe.
type idRange struct {
	Layout string `json:"layout,omitempty"`
	First  string `json:"first"`
	Last   string `json:"last"`
	From   string `json:"from"`  // the start of FROM's tick
	Until  string `json:"until"` // the end of TO's tick, excluded
}

// rangeOf returns the IDs of l from from's tick to to's.
func rangeOf(l id64.Layout, from, to time.Time) (idRange, error) {
	first, last, err := l.Range(from, to)
	if err != nil {
		return idRange{}, err
	}
	return idRange{
		First: first.String(),
		Last:  last.String(),
		From:  stamp(l.Time(first)),
		Until: stamp(l.TickTime(l.Parts(last).Tick + 1)),
	}, nil
}

// parseTimeArg reads the time argument name: RFC 3339, a date (midnight
// UTC) or "now".
func parseTimeArg(name, s string) (time.Time, error) {
	if s == "now" {
		return time.Now(), nil
	}
	layout := time.RFC3339Nano
	if len(s) == len(time.DateOnly) {
		layout = time.DateOnly
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q: want an RFC 3339 time (2026-11-22T12:00:00Z), a date (2026-11-22) or now", name, s)
	}
	return t, nil
}
