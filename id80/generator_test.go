package id80_test

import (
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id80"
)

var start = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func newGen(t testing.TB, cfg id80.Config) *id80.Generator {
	t.Helper()
	g, err := id80.NewGenerator(cfg)
	if err != nil {
		t.Fatalf("NewGenerator: %v", err)
	}
	return g
}

func TestNewGenerator_Invalid(t *testing.T) {
	tests := []struct {
		name string
		cfg  id80.Config
		want error
	}{
		{"min above max", id80.Config{SequenceMin: 10, SequenceMax: 5}, id80.ErrSequenceBounds},
		{"pool too small", id80.Config{SequenceMin: 10, SequenceMax: 12}, id80.ErrSequenceBounds},
		{"snapshot past the format", id80.Config{Snapshot: &id80.Snapshot{WallHi: 1 << 40}}, id80.ErrSnapshot},
		{"negative snapshot", id80.Config{Snapshot: &id80.Snapshot{WallSafe: -1}}, id80.ErrSnapshot},
		{"unknown policy", id80.Config{Policy: 42}, floe.ErrUnknownPolicy},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := id80.NewGenerator(tc.cfg); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestGenerator_Parts(t *testing.T) {
	clk := floetest.NewClock(start)
	g := newGen(t, id80.Config{Partition: id80.Partition{'A', 10}, Clock: clk})
	id, err := g.New(7)
	if err != nil {
		t.Fatal(err)
	}
	p := id.Parts()
	if !p.Time.Equal(start) || p.Meta != 7 || p.Partition != (id80.Partition{'A', 10}) || p.Sequence != 0 || p.TickTock {
		t.Errorf("Parts = %+v", p)
	}
}

// TestGenerator_Unique issues from many goroutines into one partition split
// between two sequence shards, on the real clock, with shards small enough
// to run out within a tick.
func TestGenerator_Unique(t *testing.T) {
	for _, policy := range []floe.Policy{floe.Wait, floe.Fail, floe.Borrow, floe.TickTock} {
		t.Run(policy.String(), func(t *testing.T) {
			part := id80.Partition{'P', 0}
			gens := []*id80.Generator{
				newGen(t, id80.Config{Partition: part, SequenceMax: 63, Policy: policy}),
				newGen(t, id80.Config{Partition: part, SequenceMin: 64, SequenceMax: 127, Policy: policy}),
			}
			var turn atomic.Uint32
			floetest.Hammer(t, 8, 400, func() (id80.ID, error) {
				return gens[turn.Add(1)%2].New(1)
			}, nil)
		})
	}
}

// TestGenerator_Rewind rewinds the clock by a tick, a second and an hour
// under each policy: tick-tock keeps issuing on the other timeline, the
// others wait, fail or borrow; nothing repeats.
func TestGenerator_Rewind(t *testing.T) {
	for _, policy := range []floe.Policy{floe.Wait, floe.Fail, floe.Borrow, floe.TickTock} {
		for _, back := range []time.Duration{id80.TimeUnit, time.Second, time.Hour} {
			t.Run(policy.String()+" "+back.String(), func(t *testing.T) {
				clk := floetest.NewClock(start)
				g := newGen(t, id80.Config{Clock: clk, Policy: policy, MaxAhead: 2 * time.Second})
				check := floetest.NewChecker[id80.ID](100)
				for range 20 {
					clk.Step(time.Millisecond)
					id, err := g.New(0)
					if err != nil {
						t.Fatal(err)
					}
					check.Add(id)
				}
				clk.Rewind(back)
				id, err := g.New(0)
				wantErr := policy == floe.Fail || back == time.Hour && policy != floe.TickTock
				if wantErr {
					if !errors.Is(err, floe.ErrClockBackwards) {
						t.Fatalf("got %v, %v; want ErrClockBackwards", id, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if policy == floe.TickTock && !id.TickTock() {
					t.Errorf("no timeline switch after the rewind: %v", id.Parts())
				}
				check.Add(id)
				for range 50 {
					id, err := g.New(0)
					if err != nil {
						t.Fatal(err)
					}
					check.Add(id)
					clk.Step(time.Millisecond)
				}
				if err := check.Err(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestGenerator_Overflow(t *testing.T) {
	clk := floetest.NewClock(start)
	notes := make(chan floe.Overflow, 8)
	g := newGen(t, id80.Config{Clock: clk, SequenceMax: 3, Overflow: notes})
	for range 9 { // 4 per tick: two stalls
		if _, err := g.New(0); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(notes); got != 2 {
		t.Fatalf("got %d notices, want 2", got)
	}
	if n := <-notes; n.Count != 1 || n.Ticks != 1 || n.Now.IsZero() {
		t.Errorf("notice = %+v", n)
	}
	if got := g.Stats().Exhausted; got != 2 {
		t.Errorf("Exhausted = %d, want 2", got)
	}
}

// TestGenerator_SnapshotRestore restores a generator from a snapshot taken
// when it stopped, on a clock set back, and checks it issues only later IDs.
func TestGenerator_SnapshotRestore(t *testing.T) {
	for _, policy := range []floe.Policy{floe.Wait, floe.Borrow, floe.TickTock} {
		t.Run(policy.String(), func(t *testing.T) {
			clk := floetest.NewClock(start)
			g := newGen(t, id80.Config{Partition: id80.Partition{1, 2}, Clock: clk, Policy: policy, SequenceMin: 100, SequenceMax: 200})
			check := floetest.NewChecker[id80.ID](200)
			for range 50 {
				id, _ := g.New(0)
				check.Add(id)
			}
			snap := g.Snapshot()
			b, err := json.Marshal(snap)
			if err != nil {
				t.Fatal(err)
			}
			var back id80.Snapshot
			if err := json.Unmarshal(b, &back); err != nil || back != snap {
				t.Fatalf("snapshot JSON round trip: %v, %+v != %+v", err, back, snap)
			}
			clk.Rewind(10 * time.Millisecond)
			r := newGen(t, id80.Config{Clock: clk, Policy: policy, Snapshot: &back})
			if r.Partition() != g.Partition() || r.SequenceMin() != 100 || r.SequenceMax() != 200 {
				t.Errorf("restored partition %v bounds [%d, %d]", r.Partition(), r.SequenceMin(), r.SequenceMax())
			}
			for range 50 {
				id, err := r.New(0)
				if err != nil {
					t.Fatal(err)
				}
				check.Add(id)
			}
			if err := check.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestNew_Package(t *testing.T) {
	const n = 10000
	ids := make([]id80.ID, n)
	for i := range ids {
		ids[i] = id80.New(byte(i))
	}
	if err := floetest.Unique(ids); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(ids[0].Time()); d < -time.Second || d > time.Minute {
		t.Errorf("first ID's time %v is %v from now", ids[0].Time(), d)
	}
	if a, b := id80.NewPartition(), id80.NewPartition(); a == b {
		t.Errorf("NewPartition returned %v twice", a)
	}
}

func TestGenerator_Ceiling(t *testing.T) {
	clk := floetest.NewClock(start)
	now := uint64(start.Sub(id80.Epoch) / id80.TimeUnit)
	g := newGen(t, id80.Config{Clock: clk, Reserved: true, Ceiling: now})
	if _, err := g.New(0); err != nil {
		t.Fatal(err)
	}
	clk.Step(id80.TimeUnit)
	if _, err := g.New(0); !errors.Is(err, floe.ErrCeiling) {
		t.Fatalf("got %v, want ErrCeiling", err)
	}
	<-g.Need()
	g.RaiseCeiling(now + 10)
	if id, err := g.New(0); err != nil || id.Timestamp() != now+1 {
		t.Fatalf("after raising: %v, %v; want timestamp %d", id.Parts(), err, now+1)
	}
	if g.Ceiling() != now+10 {
		t.Errorf("Ceiling() = %d", g.Ceiling())
	}
}
