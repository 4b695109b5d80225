package docs_test

import (
	"fmt"
	"math/big"
	"math/bits"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
)

// formatsDoc is the guide whose tables these tests hold to the code.
const formatsDoc = "docs/formats.md"

// formatFacts is what the code says of a format or id64 preset: a row of
// the guide's table of formats.
type formatFacts struct {
	timeBits, nodeBits, seqBits int
	tick                        time.Duration
	perTick                     uint64 // IDs per tick per node
	perSecond                   uint64 // IDs per second per node
	nodes                       uint64
	epoch, end                  time.Time
	seqFirst                    bool // the sequence lies above the node
}

// formatPresets are the id64 layouts that -layout flags name, every one of them a
// row of the tables.
var formatPresets = []string{
	"twitter", "icicle", "icicle2", "redisgen", "instagram", "discord",
	"sonyflake", "hazelcast", "js53", "snowcast-128", "snowcast-256", "snowcast-512", "snowcast-1024",
	"snowcast-2048", "snowcast-4096", "snowcast-8192",
}

// facts64 returns the facts of an id64 layout, from its methods.
func facts64(l id64.Layout) formatFacts {
	perTick := l.MaxSequence() + 1
	return formatFacts{
		timeBits: l.TimeBits, nodeBits: l.NodeBits(), seqBits: l.SequenceBits,
		tick:      l.Unit,
		perTick:   perTick,
		perSecond: idsPerSecond(perTick, l.Unit),
		nodes:     l.MaxNode() + 1,
		epoch:     l.Epoch,
		end:       l.End(),
		seqFirst:  l.Order == id64.TimeSequenceNode && l.NodeBits() > 0,
	}
}

// facts80 returns id80's facts, from its constants and its last ID.
func facts80(t *testing.T) formatFacts {
	last, err := id80.Compose(id80.Parts{Timestamp: id80.MaxTimestamp, Sequence: id80.MaxSequence})
	if err != nil {
		t.Fatal(err)
	}
	return formatFacts{
		timeBits:  bits.Len64(id80.MaxTimestamp),
		nodeBits:  8 * len(id80.Partition{}),
		seqBits:   bits.Len16(id80.MaxSequence),
		tick:      id80.TimeUnit,
		perTick:   id80.MaxSequence + 1,
		perSecond: idsPerSecond(id80.MaxSequence+1, id80.TimeUnit),
		nodes:     1 << (8 * len(id80.Partition{})),
		epoch:     id80.Epoch,
		end:       last.Time().Add(id80.TimeUnit),
	}
}

// facts96 returns id96's facts, from its constants and its last ID.
func facts96(t *testing.T) formatFacts {
	last, err := id96.Compose(id96.Parts{Tick: id96.MaxTick, Node: ^uint32(0), Sequence: id96.MaxSequence})
	if err != nil {
		t.Fatal(err)
	}
	return formatFacts{
		timeBits:  bits.Len64(id96.MaxTick),
		nodeBits:  bits.Len32(last.Node()),
		seqBits:   bits.Len16(id96.MaxSequence),
		tick:      id96.TickUnit,
		perTick:   id96.MaxSequence + 1,
		perSecond: idsPerSecond(id96.MaxSequence+1, id96.TickUnit),
		nodes:     uint64(last.Node()) + 1,
		epoch:     time.Unix(0, 0).UTC(),
		end:       last.Time().Add(id96.TickUnit),
	}
}

// facts128 returns id128's facts, from its constants: the end is when its
// 48-bit field of Unix milliseconds runs out.
func facts128() formatFacts {
	return formatFacts{
		timeBits:  bits.Len64(id128.MaxTick),
		nodeBits:  bits.Len16(id128.MaxWorker),
		seqBits:   bits.Len32(id128.MaxCounter),
		tick:      id128.TickUnit,
		perTick:   id128.MaxCounter + 1,
		perSecond: idsPerSecond(id128.MaxCounter+1, id128.TickUnit),
		nodes:     id128.MaxWorker + 1,
		epoch:     time.Unix(0, 0).UTC(),
		end:       time.UnixMilli(id128.MaxTick + 1).UTC(),
	}
}

// idsPerSecond returns perTick IDs a tick as IDs a second, or 0 when a second
// is not a whole number of them.
func idsPerSecond(perTick uint64, tick time.Duration) uint64 {
	n := new(big.Rat).SetFrac(new(big.Int).SetUint64(perTick*uint64(time.Second)), big.NewInt(int64(tick)))
	if !n.IsInt() || !n.Num().IsUint64() {
		return 0
	}
	return n.Num().Uint64()
}

// TestFormats_Table holds the guide's table of formats to the code: every
// preset and format has a row, and each row's bits, tick, rates, nodes,
// epoch and end date are the code's.
func TestFormats_Table(t *testing.T) {
	rows := mdTable(t, formatsDoc, "format", "time bits")
	want := map[string]formatFacts{"id80": facts80(t), "id96": facts96(t), "id128": facts128()}
	for _, name := range formatPresets {
		l, err := id64.LayoutByName(name)
		if err != nil {
			t.Fatal(err)
		}
		want[name] = facts64(l)
	}
	seen := map[string]bool{}
	for _, row := range rows {
		name := row.code("format")
		f, ok := want[name]
		if !ok {
			t.Errorf("%s: a row for %q, which is no preset or format", row.at, name)
			continue
		}
		seen[name] = true
		row.int(t, "time bits", uint64(f.timeBits))
		row.int(t, "node bits", uint64(f.nodeBits))
		if got := strings.Contains(row.cells["node bits"], "below the sequence"); got != f.seqFirst {
			t.Errorf("%s: node bits %q says the node lies below the sequence: %t, the code says %t", row.at, row.cells["node bits"], got, f.seqFirst)
		}
		row.int(t, "sequence bits", uint64(f.seqBits))
		row.duration(t, "tick", f.tick)
		row.int(t, "IDs per tick per node", f.perTick)
		row.int(t, "IDs per second per node", f.perSecond)
		row.int(t, "nodes", f.nodes)
		row.time(t, "epoch", f.epoch)
		row.time(t, "end", f.end)
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("%s: no row for %s", formatsDoc, name)
		}
	}
}

// TestFormats_LayoutText holds the formatPresets written out to Layout.String,
// and checks that ParseLayout reads each text back as the preset.
func TestFormats_LayoutText(t *testing.T) {
	rows := mdTable(t, formatsDoc, "preset", "as text")
	if len(rows) == 0 {
		t.Fatalf("%s: no table of formatPresets as text", formatsDoc)
	}
	for _, row := range rows {
		l, err := id64.LayoutByName(row.code("preset"))
		if err != nil {
			t.Errorf("%s: %v", row.at, err)
			continue
		}
		text := row.code("as text")
		if text != l.String() {
			t.Errorf("%s: %s written out as %q, want %q", row.at, row.code("preset"), text, l.String())
		}
		if back, err := id64.ParseLayout(text); err != nil || !back.Equal(l) {
			t.Errorf("%s: ParseLayout(%q) = %v, %v; want %v", row.at, text, back, err, l)
		}
	}
}

// TestFormats_SQLTable holds the table that the SQL expressions use to the
// code: each id64 layout's shift (the bits below the time), its epoch in
// Unix milliseconds, and when its IDs pass 2^63 - 1 (never for a signed
// layout).
func TestFormats_SQLTable(t *testing.T) {
	rows := mdTable(t, formatsDoc, "layout", "shift")
	seen := map[string]bool{}
	for _, row := range rows {
		name := row.code("layout")
		var layouts []id64.Layout
		if name == "snowcast-N" { // the row of every snowcast-N
			for _, p := range formatPresets {
				if strings.HasPrefix(p, "snowcast-") {
					l, _ := id64.LayoutByName(p)
					layouts = append(layouts, l)
					seen[p] = true
				}
			}
		} else {
			l, err := id64.LayoutByName(name)
			if err != nil {
				t.Errorf("%s: %v", row.at, err)
				continue
			}
			layouts, seen[name] = []id64.Layout{l}, true
		}
		for _, l := range layouts {
			row.int(t, "shift", uint64(l.NodeBits()+l.SequenceBits))
			row.int(t, "epoch (Unix ms)", uint64(l.Epoch.UnixMilli()))
			const col = "IDs pass 2^63 - 1 from"
			if !l.Unsigned || l.TimeBits+l.NodeBits()+l.SequenceBits < 64 {
				if !strings.HasPrefix(row.cells[col], "never") {
					t.Errorf("%s: %s is %q, want never: the layout's IDs never set the top bit", row.at, col, row.cells[col])
				}
				continue
			}
			// The top bit is the time field's top bit: set from tick 2^(TimeBits-1).
			row.time(t, col, l.TickTime(1<<(l.TimeBits-1)))
		}
	}
	for _, p := range formatPresets {
		if !seen[p] {
			t.Errorf("%s: the table of shifts has no row for %s", formatsDoc, p)
		}
	}
}

// mdRow is a row of a Markdown table: its cells by column heading.
type mdRow struct {
	at    string // file:line
	cells map[string]string
}

// mdTable returns the rows of the table in the Markdown file name whose
// heading row starts with the headings first and second.
func mdTable(t *testing.T, name, first, second string) []mdRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, line := range lines {
		head := splitMDRow(line)
		if len(head) < 2 || head[0] != first || head[1] != second {
			continue
		}
		var rows []mdRow
		for n := i + 2; n < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[n]), "|"); n++ {
			cells := splitMDRow(lines[n])
			if len(cells) != len(head) {
				t.Fatalf("%s:%d: %d cells, the heading has %d", name, n+1, len(cells), len(head))
			}
			r := mdRow{at: fmt.Sprintf("%s:%d", name, n+1), cells: map[string]string{}}
			for j, h := range head {
				r.cells[h] = cells[j]
			}
			rows = append(rows, r)
		}
		return rows
	}
	t.Fatalf("%s: no table with the headings %q, %q", name, first, second)
	return nil
}

// splitMDRow returns the cells of a table row, trimmed; nil for a line that
// is not one.
func splitMDRow(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || len(line) < 2 {
		return nil
	}
	cells := strings.Split(line[1:len(line)-1], "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// code returns the cell of col without its code span's backquotes.
func (r mdRow) code(col string) string { return strings.Trim(r.cells[col], "`") }

var mdLeadingNumber = regexp.MustCompile(`^[0-9][0-9,]*`)

// int checks that the cell of col starts with the number want, written
// with or without thousands separators.
func (r mdRow) int(t *testing.T, col string, want uint64) {
	t.Helper()
	cell := r.cells[col]
	digits := strings.ReplaceAll(mdLeadingNumber.FindString(cell), ",", "")
	got, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		t.Errorf("%s: %s is %q, want a number: %d", r.at, col, cell, want)
		return
	}
	if got != want {
		t.Errorf("%s: %s is %d, the code says %d", r.at, col, got, want)
	}
}

// duration checks that the cell of col starts with the duration want,
// written as a number, a space and a unit ("1 ms", "131.072 µs").
func (r mdRow) duration(t *testing.T, col string, want time.Duration) {
	t.Helper()
	cell := r.cells[col]
	f := strings.Fields(cell)
	var got time.Duration
	var err error
	if len(f) < 2 {
		err = fmt.Errorf("no unit")
	} else {
		got, err = time.ParseDuration(f[0] + f[1])
	}
	if err != nil {
		t.Errorf("%s: %s is %q, want a duration (%v): %v", r.at, col, cell, want, err)
		return
	}
	if got != want {
		t.Errorf("%s: %s is %v, the code says %v", r.at, col, got, want)
	}
}

// time checks that the cell of col starts with the instant want, in RFC
// 3339.
func (r mdRow) time(t *testing.T, col string, want time.Time) {
	t.Helper()
	cell := r.cells[col]
	word, _, _ := strings.Cut(cell, " ")
	got, err := time.Parse(time.RFC3339Nano, word)
	if err != nil && word == want.UTC().Format(time.RFC3339Nano) {
		return // past the year 9999, which time.Parse does not read
	}
	if err != nil {
		t.Errorf("%s: %s is %q, want an RFC 3339 time (%s): %v", r.at, col, cell, want.UTC().Format(time.RFC3339Nano), err)
		return
	}
	if !got.Equal(want) {
		t.Errorf("%s: %s is %s, the code says %s", r.at, col, word, want.UTC().Format(time.RFC3339Nano))
	}
}
