package id96_test

import (
	"errors"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id96"
)

var start = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func newGen(t testing.TB, cfg id96.Config) *id96.Generator {
	t.Helper()
	g, err := id96.NewGenerator(cfg)
	if err != nil {
		t.Fatalf("NewGenerator: %v", err)
	}
	return g
}

func TestNewGenerator_Invalid(t *testing.T) {
	tests := []struct {
		name string
		cfg  id96.Config
		want error
	}{
		{"drift too large", id96.Config{Drift: 8}, id96.ErrDrift},
		{"tick-tock", id96.Config{Policy: floe.TickTock}, floe.ErrPolicyUnsupported},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := id96.NewGenerator(tc.cfg); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestGenerator_Defaults(t *testing.T) {
	g := newGen(t, id96.Config{})
	if g.Node() == 0 || g.Drift() != id96.DefaultDrift {
		t.Errorf("node %d drift %d, want a random node and drift %d", g.Node(), g.Drift(), id96.DefaultDrift)
	}
	clk := floetest.NewClock(start)
	g = newGen(t, id96.Config{Node: 0xdeadbeef, Drift: 5, Clock: clk})
	id, err := g.Next()
	if err != nil {
		t.Fatal(err)
	}
	p := id.Parts()
	if p.Node != 0xdeadbeef || p.Drift != 5 || p.Sequence != 0 || p.Time.After(start) || start.Sub(p.Time) >= id96.TickUnit {
		t.Errorf("Parts = %+v", p)
	}
}

// TestGenerator_NoWrap issues more IDs than one tick's sequence holds on a
// clock that does not move by itself: guid would wrap and repeat, a
// Generator waits for the next tick.
func TestGenerator_NoWrap(t *testing.T) {
	clk := floetest.NewClock(start)
	g := newGen(t, id96.Config{Node: 1, Clock: clk})
	ids := make([]id96.ID, 3*(id96.MaxSequence+1)+5)
	for i := range ids {
		id, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	if err := floetest.Unique(ids); err != nil {
		t.Fatal(err)
	}
	if err := floetest.Increasing(ids, id96.ID.Compare); err != nil {
		t.Fatal(err)
	}
	if got := g.Stats().Exhausted; got != 3 {
		t.Errorf("Exhausted = %d, want 3", got)
	}
	// The 64-bit cast stays unique for one node.
	casts := make([]uint64, len(ids))
	for i, id := range ids {
		casts[i] = id.Uint64()
	}
	if err := floetest.Unique(casts); err != nil {
		t.Fatal(err)
	}
}

func TestGenerator_Unique(t *testing.T) {
	for _, policy := range []floe.Policy{floe.Wait, floe.Fail, floe.Borrow} {
		t.Run(policy.String(), func(t *testing.T) {
			g := newGen(t, id96.Config{Policy: policy})
			floetest.Hammer(t, 8, 2000, g.Next, id96.ID.Compare)
		})
	}
}

func TestGenerator_Rewind(t *testing.T) {
	for _, policy := range []floe.Policy{floe.Wait, floe.Fail, floe.Borrow} {
		for _, back := range []time.Duration{id96.TickUnit, time.Second, time.Hour} {
			t.Run(policy.String()+" "+back.String(), func(t *testing.T) {
				clk := floetest.NewClock(start)
				g := newGen(t, id96.Config{Node: 9, Clock: clk, Policy: policy, MaxAhead: 2 * time.Second})
				var ids []id96.ID
				for range 10 {
					clk.Step(time.Millisecond)
					id, err := g.Next()
					if err != nil {
						t.Fatal(err)
					}
					ids = append(ids, id)
				}
				clk.Rewind(back)
				id, err := g.Next()
				if policy == floe.Fail || back == time.Hour {
					if !errors.Is(err, floe.ErrClockBackwards) {
						t.Fatalf("got %v, %v; want ErrClockBackwards", id, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := floetest.Increasing(append(ids, id), id96.ID.Compare); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestNew_Package(t *testing.T) {
	ids := make([]id96.ID, 10000)
	for i := range ids {
		ids[i] = id96.New()
	}
	if err := floetest.Unique(ids); err != nil {
		t.Fatal(err)
	}
	if err := floetest.Increasing(ids, id96.ID.Compare); err != nil {
		t.Fatal(err)
	}
}

func TestGenerator_Ceiling(t *testing.T) {
	clk := floetest.NewClock(start)
	now := uint64(start.UnixNano()) >> 17
	g := newGen(t, id96.Config{Node: 3, Clock: clk, Reserved: true, Ceiling: now})
	if _, err := g.Next(); err != nil {
		t.Fatal(err)
	}
	clk.Step(time.Millisecond)
	if _, err := g.Next(); !errors.Is(err, floe.ErrCeiling) {
		t.Fatalf("got %v, want ErrCeiling", err)
	}
	select {
	case <-g.Need():
	default:
		t.Error("Need not signalled")
	}
	g.RaiseCeiling(now + 1000)
	if g.Ceiling() != now+1000 {
		t.Errorf("Ceiling() = %d, want %d", g.Ceiling(), now+1000)
	}
	if _, err := g.Next(); err != nil {
		t.Fatal(err)
	}
}

// TestGenerator_ComposeMatchesNewID checks the generator's precomputed
// composition against newID for every drift code.
func TestGenerator_ComposeMatchesNewID(t *testing.T) {
	for drift := id96.Drift(1); drift <= id96.MaxDrift; drift++ {
		clk := floetest.NewClock(start)
		g := newGen(t, id96.Config{Node: 0xa5c3f00d, Drift: drift, Clock: clk})
		for range 3 {
			id, err := g.Next()
			if err != nil {
				t.Fatal(err)
			}
			p := id.Parts()
			want, err := id96.Compose(id96.Parts{Tick: p.Tick, Drift: drift, Node: 0xa5c3f00d, Sequence: p.Sequence})
			if err != nil || want != id || p.Drift != drift || p.Node != 0xa5c3f00d {
				t.Fatalf("drift %d: generated %v (%+v), Compose gives %v, %v", drift, id, p, want, err)
			}
			clk.Step(7 * time.Second)
		}
	}
}
