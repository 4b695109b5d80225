package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
)

// stdin is where inspect reads IDs when given none or "-".
var stdin io.Reader = os.Stdin

// maxLine bounds a line of IDs read from stdin.
const maxLine = 64 << 10

func runInspect(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("inspect", stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: floe inspect "+synopses["inspect"])
		fmt.Fprintln(stderr, "\nDecodes each ID: its format, time and parts. With no ID, or with -, reads IDs from stdin, one a line.")
		fmt.Fprintln(stderr, "Decimal text is an id64 of -layout; negative decimal text (after --) is one in its signed 64-bit form,")
		fmt.Fprintln(stderr, "for a layout that uses the top bit. 16 other characters are an id80 (sno) or an id96 (guid). Text that")
		fmt.Fprintln(stderr, "is both gives both readings, the likely one first: its time lies inside its format's life and not")
		fmt.Fprintln(stderr, "in the future. -format keeps one.")
		fmt.Fprintln(stderr, "\nA UUID (8-4-4-4-12 hexadecimal digits, in any case, in braces, after urn:uuid: or as 32 digits) of")
		fmt.Fprintln(stderr, "version 7 is an id128, read with its time, counter, worker and random bits; the last three mean")
		fmt.Fprintln(stderr, "something only in IDs floe made. Any other UUID gives its version, variant, kind and time, if it")
		fmt.Fprintln(stderr, "has one: versions 1 and 6 to 100 ns, 7 to the millisecond, 2 truncated. -format uuid reads a")
		fmt.Fprintln(stderr, "version-7 UUID as any other.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	layout := fs.String("layout", "twitter", "layout of decimal (id64) IDs: "+id64.LayoutHelp)
	format := fs.String("format", "", "decode as this format only: id64, id80, id96, id128 or uuid (default: tell from the text)")
	out := fs.String("o", "text", "output: text (a line per reading) or json (an object per reading, one a line)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch *format {
	case "", "id64", "id80", "id96", "id128", "uuid":
	default:
		return fmt.Errorf("-format %q: want id64, id80, id96, id128 or uuid", *format)
	}
	if *out != "text" && *out != "json" {
		return fmt.Errorf("-o %q: want text or json", *out)
	}
	l, err := parseLayoutFlag("-layout", *layout)
	if err != nil {
		return err
	}
	in := inspector{layout: l, label: layoutLabel(*layout, l), format: *format, now: time.Now}
	w := inspectWriter{stdout: stdout, stderr: stderr, json: *out == "json"}
	ids := fs.Args()
	if len(ids) == 0 {
		ids = []string{"-"}
	}
	for _, s := range ids {
		if s != "-" {
			if err := w.write(s, in); err != nil {
				return err
			}
			continue
		}
		if err := inspectLines(stdin, in, &w); err != nil {
			return err
		}
	}
	if w.failed > 0 {
		return fmt.Errorf("%d of the IDs could not be decoded", w.failed)
	}
	return nil
}

// inspectLines decodes the IDs of r, one a line, as each line arrives.
// Blank lines are skipped; spaces around an ID are not part of it.
func inspectLines(r io.Reader, in inspector, w *inspectWriter) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		if err := w.write(s, in); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("stdin: line %d is longer than %d bytes", line+1, maxLine)
		}
		return fmt.Errorf("stdin: %w", err)
	}
	return nil
}

// inspectWriter prints the readings of IDs as text or JSON lines.
type inspectWriter struct {
	stdout, stderr io.Writer
	json           bool
	failed         int // IDs that could not be decoded
}

// write decodes s and prints its readings, or why it has none: on stderr
// as text, on stdout as a JSON object {"id", "error"}. Only a failure to
// write is returned.
func (w *inspectWriter) write(s string, in inspector) error {
	found, err := in.inspect(s)
	if err != nil {
		w.failed++
		if w.json {
			return json.NewEncoder(w.stdout).Encode(struct {
				ID    string `json:"id"`
				Error string `json:"error"`
			}{s, err.Error()})
		}
		_, err := fmt.Fprintf(w.stderr, "%s: %v\n", s, err)
		return err
	}
	for _, r := range found {
		if w.json {
			if err := json.NewEncoder(w.stdout).Encode(r.json); err != nil {
				return err
			}
			continue
		}
		line := s + " " + r.text
		if len(found) > 1 {
			line += fmt.Sprintf(" likely=%t", r.likely)
		}
		if _, err := fmt.Fprintln(w.stdout, line); err != nil {
			return err
		}
	}
	return nil
}

// inspector decodes the text of IDs.
type inspector struct {
	layout id64.Layout // of id64 IDs
	label  string      // the layout as text output names it
	format string      // "" (tell from the text), id64, id80, id96, id128 or uuid
	now    func() time.Time
}

// reading is one way to decode a text: as one format.
type reading struct {
	text   string // the parts, as key=value pairs
	json   readingJSON
	time   time.Time
	end    time.Time // when the format's time runs out
	likely bool
}

// readingJSON is a reading as -o json prints it: the ID, its format, its
// parts as the HTTP API's /v1/inspect names them, and whether it is the
// likely reading of its text. Fields that are not the format's are left
// out.
type readingJSON struct {
	ID         string  `json:"id"`
	Format     string  `json:"format"`
	Layout     string  `json:"layout,omitempty"`
	Version    *int    `json:"version,omitempty"` // of a UUID
	Variant    string  `json:"variant,omitempty"` // of a UUID
	Kind       string  `json:"kind,omitempty"`    // of a UUID
	Time       string  `json:"time,omitempty"`    // RFC 3339, past the year 9999 too; empty for a UUID that has none
	Tick       *uint64 `json:"tick,omitempty"`
	Timestamp  *uint64 `json:"timestamp,omitempty"`
	TickTock   *bool   `json:"ticktock,omitempty"`
	Meta       *uint8  `json:"meta,omitempty"`
	Partition  *uint16 `json:"partition,omitempty"`
	Drift      *uint8  `json:"drift,omitempty"`
	Datacenter *uint64 `json:"datacenter,omitempty"`
	Worker     *uint64 `json:"worker,omitempty"`
	Node       *uint64 `json:"node,omitempty"`
	Sequence   *uint64 `json:"sequence,omitempty"`
	Counter    *uint32 `json:"counter,omitempty"` // of an id128
	Random     *uint64 `json:"random,omitempty"`  // of an id128
	Likely     bool    `json:"likely"`
}

// futureSlack is how far ahead of this machine's clock a time may lie and
// still be plausible: the clocks of the machines that made the IDs may run
// a little ahead.
const futureSlack = time.Hour

// inspect decodes s as in.format, or tells the format from the text:
// decimal digits are an id64 of in.layout, 16 characters of [2-9a-x] an id80
// (sno) and 16 characters of [.0-9A-Za-z_] an id96 (guid); text of a UUID's
// length is an id128 when it is a version-7 UUID, any other UUID else. Text valid as
// both an id80 and an id96 gives both readings, ranked by plausibility: a
// reading whose time lies in its format's life and not in the future comes
// first, then the one whose time lies nearer to now. The first reading is
// likely when it is plausible. With no reading, the error says why s is
// none of the formats tried.
func (in inspector) inspect(s string) ([]reading, error) {
	formats := []string{in.format}
	if in.format == "" {
		formats = []string{"id80", "id96"}
		if digits := strings.TrimPrefix(s, "-"); digits != "" && strings.Trim(digits, "0123456789") == "" {
			formats = []string{"id64"}
		}
		if uuidLength(s) {
			formats = []string{"uuid"}
		}
	}
	var found []reading
	var why []string
	for _, f := range formats {
		var r reading
		var err error
		switch f {
		case "id64":
			r, err = in.read64(s)
		case "id80":
			r, err = read80(s)
		case "id96":
			r, err = read96(s)
		case "id128":
			r, err = read128(s)
		case "uuid":
			r, err = readUUID(s, in.format == "")
		}
		if err != nil {
			why = append(why, f+": "+reason(err))
			continue
		}
		found = append(found, r)
	}
	if found == nil {
		if in.format == "" && len(formats) > 1 {
			// s is not all digits: id64's error says which byte is not;
			// nor of a UUID's length.
			_, err := id64.Parse(s)
			why = append([]string{"id64: " + reason(err)}, why...)
			_, err = id128.ParseUUID(s)
			why = append(why, "uuid: "+reason(err))
			return nil, fmt.Errorf("not an ID of any format: %s", strings.Join(why, "; "))
		}
		return nil, errors.New(strings.Join(why, "; "))
	}
	now := in.now()
	plausible := func(r reading) bool { return !r.time.After(now.Add(futureSlack)) && r.time.Before(r.end) }
	distance := func(r reading) time.Duration { return max(now.Sub(r.time), r.time.Sub(now)) }
	slices.SortStableFunc(found, func(a, b reading) int {
		if pa, pb := plausible(a), plausible(b); pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		return int(min(max(distance(a)-distance(b), -1), 1))
	})
	found[0].likely = plausible(found[0])
	for i := range found {
		found[i].json.Likely = found[i].likely
	}
	return found, nil
}

// reason says why a format refused the text of an ID: a parse error's
// reason, without the text and the format, which the output names already.
func reason(err error) string {
	var pe *floe.ParseError
	if errors.As(err, &pe) {
		return pe.Reason()
	}
	return err.Error()
}

// read64 reads s as an id64 of in.layout: decimal digits, or for a layout
// that uses the top bit a negative decimal, the signed 64-bit form in which
// a BIGINT holds the layout's IDs once their time reaches the top bit
// (Instagram's next_id returns them after 2046-06-27).
func (in inspector) read64(s string) (reading, error) {
	signed := ""
	if strings.HasPrefix(s, "-") {
		if !in.layout.Unsigned {
			return reading{}, fmt.Errorf("%s is negative, and the layout %s never is: it does not use the top bit (a negative BIGINT holds an ID of a layout that does, such as instagram)", s, in.label)
		}
	}
	id, err := in.layout.ParseID(s)
	if err != nil {
		return reading{}, err
	}
	if strings.HasPrefix(s, "-") {
		signed = " unsigned=" + id.String()
	}
	p := in.layout.Parts(id)
	return reading{
		text: fmt.Sprintf("id64 layout=%s%s time=%s tick=%d datacenter=%d worker=%d sequence=%d",
			in.label, signed, stamp(p.Time), p.Tick, p.Datacenter, p.Worker, p.Sequence),
		json: readingJSON{ID: id.String(), Format: "id64", Layout: in.layout.String(), Time: stamp(p.Time),
			Tick: &p.Tick, Datacenter: &p.Datacenter, Worker: &p.Worker, Node: &p.Node, Sequence: &p.Sequence},
		time: p.Time,
		end:  in.layout.End(),
	}, nil
}

// id96End is when id96's time runs out: 2^64 ns after the Unix epoch.
var id96End = time.Unix(1<<64/1_000_000_000, 1<<64%1_000_000_000)

func read80(s string) (reading, error) {
	id, err := id80.Parse(s)
	if err != nil {
		return reading{}, err
	}
	p := id.Parts()
	part, seq := p.Partition.Uint16(), uint64(p.Sequence)
	return reading{
		text: fmt.Sprintf("id80 time=%s ticktock=%t meta=%d partition=%d sequence=%d",
			stamp(p.Time), p.TickTock, p.Meta, part, p.Sequence),
		json: readingJSON{ID: s, Format: "id80", Time: stamp(p.Time), Timestamp: &p.Timestamp, TickTock: &p.TickTock,
			Meta: &p.Meta, Partition: &part, Sequence: &seq},
		time: p.Time,
		end:  id80.Epoch.Add(time.Duration(id80.MaxTimestamp+1) * id80.TimeUnit),
	}, nil
}

func read96(s string) (reading, error) {
	id, err := id96.Parse(s)
	if err != nil {
		return reading{}, err
	}
	p := id.Parts()
	node, drift, seq := uint64(p.Node), uint8(p.Drift), uint64(p.Sequence)
	return reading{
		text: fmt.Sprintf("id96 time=%s drift=%d node=%d sequence=%d", stamp(p.Time), p.Drift, p.Node, p.Sequence),
		json: readingJSON{ID: s, Format: "id96", Time: stamp(p.Time), Tick: &p.Tick, Drift: &drift, Node: &node,
			Sequence: &seq},
		time: p.Time,
		end:  id96End,
	}, nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
