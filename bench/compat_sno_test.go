package bench

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id80"
	"github.com/muyo/sno"
)

// compareSno reports every field on which the floe ID id and the sno ID s,
// meant to be the same ID, disagree.
func compareSno(t *testing.T, id id80.ID, s sno.ID) {
	t.Helper()
	if got, want := [id80.Size]byte(s), [id80.Size]byte(id); got != want {
		t.Errorf("bytes: sno %x, floe %x", got, want)
	}
	if got, want := s.String(), id.String(); got != want {
		t.Errorf("text: sno %q, floe %q", got, want)
	}
	if got, want := s.Time(), id.Time(); !got.Equal(want) {
		t.Errorf("%s: time: sno %v, floe %v", id, got, want)
	}
	if r := id.Time().Sub(id80.Epoch) % id80.TimeUnit; r != 0 {
		t.Errorf("%s: floe time %v is %v past a 4 ms unit", id, id.Time(), r)
	}
	// sno's Timestamp is in Unix nanoseconds, floe's in 4 ms units since
	// the epoch.
	if got, want := s.Timestamp(), id80.Epoch.UnixNano()+int64(id.Timestamp())*int64(id80.TimeUnit); got != want {
		t.Errorf("%s: timestamp: sno %d ns, floe %d units = %d ns", id, got, id.Timestamp(), want)
	}
	if got, want := s[4]&1 == 1, id.TickTock(); got != want {
		t.Errorf("%s: tick-tock: sno bit %v, floe %v", id, got, want)
	}
	if got, want := s.Meta(), id.Meta(); got != want {
		t.Errorf("%s: meta: sno %d, floe %d", id, got, want)
	}
	if got, want := [2]byte(s.Partition()), [2]byte(id.Partition()); got != want {
		t.Errorf("%s: partition: sno %x, floe %x", id, got, want)
	}
	if got, want := s.Sequence(), id.Sequence(); got != want {
		t.Errorf("%s: sequence: sno %d, floe %d", id, got, want)
	}
}

// floeInSno reads a floe ID with sno, from its text and from its bytes, and
// checks both readings against it.
func floeInSno(t *testing.T, id id80.ID) sno.ID {
	t.Helper()
	fromText, err := sno.FromEncodedString(id.String())
	if err != nil {
		t.Fatalf("sno.FromEncodedString(%q): %v", id, err)
	}
	fromBytes, err := sno.FromBinaryBytes(id.Bytes())
	if err != nil {
		t.Fatalf("sno.FromBinaryBytes(%x): %v", id.Bytes(), err)
	}
	if fromText != fromBytes {
		t.Errorf("sno reads %q as %x and its bytes as %x", id, [10]byte(fromText), [10]byte(fromBytes))
	}
	compareSno(t, id, fromText)
	return fromText
}

// snoInFloe reads a sno ID with floe, from its text and from its bytes, and
// checks both readings against it.
func snoInFloe(t *testing.T, s sno.ID) id80.ID {
	t.Helper()
	fromText, err := id80.Parse(s.String())
	if err != nil {
		t.Fatalf("id80.Parse(%q): %v", s, err)
	}
	fromBytes, err := id80.FromBytes(s.Bytes())
	if err != nil {
		t.Fatalf("id80.FromBytes(%x): %v", s.Bytes(), err)
	}
	if fromText != fromBytes {
		t.Errorf("floe reads %q as %x and its bytes as %x", s, fromText, fromBytes)
	}
	compareSno(t, fromText, s)
	return fromText
}

func TestSno_FloeIDsParseInSno(t *testing.T) {
	tests := []struct {
		name  string
		start time.Time
		cfg   id80.Config
		metas []byte
		n     int // IDs to issue; zero means 12
	}{
		{
			name:  "zero partition at the epoch",
			start: id80.Epoch,
			metas: []byte{0},
		},
		{
			name:  "top partition and metabyte",
			start: time.Date(2024, 6, 1, 12, 34, 56, 789_000_000, time.UTC),
			cfg:   id80.Config{Partition: id80.PartitionFromUint16(id80.MaxPartition)},
			metas: []byte{255, 254},
		},
		{
			name:  "small sequence shard",
			start: time.Date(2031, 2, 3, 4, 5, 6, 7_000_000, time.UTC),
			cfg:   id80.Config{Partition: id80.Partition{'P', 1}, SequenceMin: 1000, SequenceMax: 1003},
			metas: []byte{1, 2, 3},
		},
		{
			name:  "top of the sequence space",
			start: time.Date(2050, 12, 31, 23, 59, 59, 999_000_000, time.UTC),
			cfg:   id80.Config{Partition: id80.PartitionFromUint16(0x1234), SequenceMin: 65530, SequenceMax: id80.MaxSequence},
			metas: []byte{0x80},
		},
		{
			name:  "last timestamp",
			start: id80.Epoch.Add(id80.MaxTimestamp * id80.TimeUnit),
			cfg:   id80.Config{Partition: id80.PartitionFromUint16(7), SequenceMin: 0, SequenceMax: 3},
			metas: []byte{42},
			n:     4, // one tick: the format's time ends there
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := floetest.NewClock(tt.start)
			cfg := tt.cfg
			cfg.Clock = clock
			g, err := id80.NewGenerator(cfg)
			if err != nil {
				t.Fatal(err)
			}
			n := tt.n
			if n == 0 {
				n = 12
			}
			seqMax := cfg.SequenceMax
			if seqMax == 0 {
				seqMax = id80.MaxSequence
			}
			for i := range n {
				id, err := g.New(tt.metas[i%len(tt.metas)])
				if err != nil {
					t.Fatalf("New #%d: %v", i, err)
				}
				s := floeInSno(t, id)
				if s.Partition() != sno.Partition(cfg.Partition) {
					t.Errorf("%s: sno reads partition %x, generator has %x", id, s.Partition(), cfg.Partition)
				}
				if q := s.Sequence(); q < cfg.SequenceMin || q > seqMax {
					t.Errorf("%s: sno reads sequence %d outside [%d, %d]", id, q, cfg.SequenceMin, seqMax)
				}
				if i%5 == 4 {
					clock.Step(id80.TimeUnit)
				}
			}
		})
	}
}

func TestSno_FloeTickTockParsesInSno(t *testing.T) {
	clock := floetest.NewClock(time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC))
	g, err := id80.NewGenerator(id80.Config{
		Partition: id80.PartitionFromUint16(0xbeef),
		Clock:     clock,
		Policy:    floe.TickTock,
	})
	if err != nil {
		t.Fatal(err)
	}
	before, err := g.New(5)
	if err != nil {
		t.Fatal(err)
	}
	clock.Rewind(time.Second)
	var after []id80.ID
	for range 3 {
		id, err := g.New(5)
		if err != nil {
			t.Fatal(err)
		}
		after = append(after, id)
	}
	if before.TickTock() {
		t.Fatalf("%s: tick-tock set before any regression", before)
	}
	floeInSno(t, before)
	for _, id := range after {
		if !id.TickTock() {
			t.Fatalf("%s: tick-tock not set after the clock went back", id)
		}
		s := floeInSno(t, id)
		if s[4]&1 != 1 {
			t.Errorf("%s: sno bytes %x lack the tick-tock bit", id, [10]byte(s))
		}
		if got, want := s.Time(), clock.Now().Truncate(id80.TimeUnit); !got.Equal(want) {
			t.Errorf("%s: sno time %v, clock reads %v", id, got, want)
		}
	}
}

func TestSno_SnoIDsParseInFloe(t *testing.T) {
	t.Run("package-level New", func(t *testing.T) {
		for _, meta := range []byte{0, 1, 127, 255} {
			snoInFloe(t, sno.New(meta))
		}
	})
	t.Run("generator from a snapshot", func(t *testing.T) {
		partition := sno.Partition{0x12, 0x34}
		sg, err := sno.NewGenerator(&sno.GeneratorSnapshot{
			Partition:   partition,
			SequenceMin: 500,
			SequenceMax: 520,
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 15 {
			id := snoInFloe(t, sg.New(byte(i)))
			if id.Partition() != id80.Partition(partition) {
				t.Errorf("%s: floe reads partition %x, sno generator has %x", id, id.Partition(), partition)
			}
			if q := id.Sequence(); q < 500 || q > 520 {
				t.Errorf("%s: floe reads sequence %d outside [500, 520]", id, q)
			}
			if id.Meta() != byte(i) {
				t.Errorf("%s: floe reads meta %d, want %d", id, id.Meta(), i)
			}
		}
	})
	t.Run("NewWithTime", func(t *testing.T) {
		times := []time.Time{
			id80.Epoch,
			id80.Epoch.Add(3*time.Millisecond + 999*time.Microsecond),
			time.Date(2024, 2, 29, 23, 59, 59, 999_999_999, time.UTC),
			time.Date(2070, 1, 1, 0, 0, 0, 4_000_000, time.UTC),
		}
		for i, tm := range times {
			id := snoInFloe(t, sno.NewWithTime(byte(i), tm))
			want := id80.Epoch.Add(tm.Sub(id80.Epoch).Truncate(id80.TimeUnit))
			if !id.Time().Equal(want) {
				t.Errorf("%s: floe time %v, want %v (%v to the 4 ms unit)", id, id.Time(), want, tm)
			}
		}
	})
}

func TestSno_RandomBytesEncodeAlike(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		var b [id80.Size]byte
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		id, err := id80.FromBytes(b[:])
		if err != nil {
			t.Fatal(err)
		}
		floeInSno(t, id)
		snoInFloe(t, sno.ID(b))
	}
}

// snapshotKeys returns the sorted keys of a JSON object.
func snapshotKeys(t *testing.T, b []byte) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestSno_SnapshotRestoresFloe(t *testing.T) {
	sg, err := sno.NewGenerator(&sno.GeneratorSnapshot{
		Partition:   sno.Partition{0xa1, 0xb2},
		SequenceMin: 100,
		SequenceMax: 60000,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var last id80.ID
	for range 5000 {
		if id := snoInFloe(t, sg.New(9)); id.Compare(last) > 0 {
			last = id
		}
	}
	snap := sg.Snapshot()
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var fs id80.Snapshot
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fs); err != nil {
		t.Fatalf("sno snapshot %s into id80.Snapshot: %v", b, err)
	}
	back, err := json.Marshal(fs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, b) {
		t.Errorf("snapshot JSON: sno %s, floe %s", b, back)
	}
	if got, want := snapshotKeys(t, back), snapshotKeys(t, b); !slices.Equal(got, want) {
		t.Errorf("snapshot keys: floe %v, sno %v", got, want)
	}

	g, err := id80.NewGenerator(id80.Config{Snapshot: &fs, Clock: floe.SystemClock})
	if err != nil {
		t.Fatalf("restoring from sno snapshot %s: %v", b, err)
	}
	if g.Partition() != id80.Partition(snap.Partition) || g.SequenceMin() != snap.SequenceMin || g.SequenceMax() != snap.SequenceMax {
		t.Errorf("restored partition %x, bounds [%d, %d]; snapshot %s", g.Partition(), g.SequenceMin(), g.SequenceMax(), b)
	}
	for range 5000 {
		id, err := g.New(9)
		if err != nil {
			t.Fatal(err)
		}
		if id.Compare(last) <= 0 {
			t.Fatalf("restored generator issued %s, not above sno's last %s (snapshot %s)", id, last, b)
		}
		if q := id.Sequence(); q < 100 || q > 60000 {
			t.Fatalf("%s: sequence %d outside the snapshot's [100, 60000]", id, q)
		}
	}
}

func TestSno_SnapshotRestoresSno(t *testing.T) {
	g, err := id80.NewGenerator(id80.Config{
		Partition:   id80.Partition{0xc3, 0xd4},
		SequenceMin: 100,
		SequenceMax: 60000,
		Clock:       floe.SystemClock,
	})
	if err != nil {
		t.Fatal(err)
	}
	var last id80.ID
	for range 5000 {
		id, err := g.New(9)
		if err != nil {
			t.Fatal(err)
		}
		if id.Compare(last) > 0 {
			last = id
		}
	}
	b, err := json.Marshal(g.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	var ss sno.GeneratorSnapshot
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ss); err != nil {
		t.Fatalf("floe snapshot %s into sno.GeneratorSnapshot: %v", b, err)
	}
	sg, err := sno.NewGenerator(&ss, nil)
	if err != nil {
		t.Fatalf("sno restoring from floe snapshot %s: %v", b, err)
	}
	for range 5000 {
		id := snoInFloe(t, sg.New(9))
		if id.Compare(last) <= 0 {
			t.Fatalf("restored sno generator issued %s, not above floe's last %s (snapshot %s)", id, last, b)
		}
	}
}

func TestSno_TextOrderMatchesByteOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	type entry struct {
		text string
		raw  [id80.Size]byte
		from string
	}
	var ids []entry
	addSno := func(s sno.ID) { ids = append(ids, entry{s.String(), s, "sno"}) }
	addFloe := func(id id80.ID) { ids = append(ids, entry{id.String(), id, "floe"}) }

	span := int64(time.Date(2079, 1, 1, 0, 0, 0, 0, time.UTC).Sub(id80.Epoch))
	for i := range 100 {
		addSno(sno.New(byte(i)))
		addFloe(id80.New(byte(i)))
		addSno(sno.NewWithTime(byte(r.Uint32()), id80.Epoch.Add(time.Duration(r.Int64N(span)))))
	}
	for i := range 20 {
		clock := floetest.NewClock(id80.Epoch.Add(time.Duration(r.Int64N(span))))
		g, err := id80.NewGenerator(id80.Config{
			Partition: id80.PartitionFromUint16(uint16(r.Uint32())),
			Clock:     clock,
			Policy:    floe.TickTock,
		})
		if err != nil {
			t.Fatal(err)
		}
		for j := range 10 {
			if j == 5 {
				clock.Rewind(time.Duration(r.Int64N(int64(time.Second))) + id80.TimeUnit)
			}
			id, err := g.New(byte(i))
			if err != nil {
				t.Fatal(err)
			}
			addFloe(id)
		}
	}

	byText := slices.Clone(ids)
	slices.SortStableFunc(byText, func(a, b entry) int { return strings.Compare(a.text, b.text) })
	for i := 1; i < len(byText); i++ {
		a, b := byText[i-1], byText[i]
		if bytes.Compare(a.raw[:], b.raw[:]) > 0 {
			t.Errorf("text order %q (%s) < %q (%s), byte order %x > %x", a.text, a.from, b.text, b.from, a.raw, b.raw)
		}
		if got := id80.ID(a.raw).Compare(id80.ID(b.raw)); got > 0 {
			t.Errorf("text order %q < %q, id80 Compare %d", a.text, b.text, got)
		}
		if got := sno.ID(a.raw).Compare(sno.ID(b.raw)); got > 0 {
			t.Errorf("text order %q < %q, sno Compare %d", a.text, b.text, got)
		}
	}
}
