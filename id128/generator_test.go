package id128_test

import (
	"errors"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id128"
)

var start = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func newGen(t testing.TB, cfg id128.Config) *id128.Generator {
	t.Helper()
	g, err := id128.NewGenerator(cfg)
	if err != nil {
		t.Fatalf("NewGenerator: %v", err)
	}
	return g
}

func TestNewGenerator_Invalid(t *testing.T) {
	tests := []struct {
		name string
		cfg  id128.Config
		want error
	}{
		{"tick-tock", id128.Config{Policy: floe.TickTock}, floe.ErrPolicyUnsupported},
		{"unknown policy", id128.Config{Policy: 9}, floe.ErrUnknownPolicy},
		{"floor past the end", id128.Config{Floor: id128.MaxTick}, nil},
		{"negative wait", id128.Config{MaxWait: -1}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := id128.NewGenerator(tc.cfg)
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestGenerator_Fields(t *testing.T) {
	clk := floetest.NewClock(start.Add(1500 * time.Microsecond))
	g := newGen(t, id128.Config{Worker: 0xbeef, Clock: clk})
	if g.Worker() != 0xbeef {
		t.Errorf("Worker() = %#x", g.Worker())
	}
	for i := range 3 {
		id, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		p := id.Parts()
		if want := start.Add(time.Millisecond); !p.Time.Equal(want) || p.Tick != uint64(want.UnixMilli()) {
			t.Errorf("ID %d: Time %v, Tick %d, want %v", i, p.Time, p.Tick, want)
		}
		if p.Worker != 0xbeef || p.Counter != uint32(i) {
			t.Errorf("ID %d: Parts %+v, want worker 0xbeef, counter %d", i, p, i)
		}
		if id[6]>>4 != 7 || id[8]>>6 != 2 {
			t.Errorf("ID %d = %v: version %d, variant bits %b", i, id, id[6]>>4, id[8]>>6)
		}
		if back, err := id128.Parse(id.String()); err != nil || back != id {
			t.Errorf("Parse(%v) = %v, %v", id, back, err)
		}
	}
	if g.LastTick() != uint64(start.UnixMilli())+1 {
		t.Errorf("LastTick() = %d", g.LastTick())
	}
}

// TestGenerator_CounterRunsOut issues more IDs than one millisecond's
// counter holds on a clock that does not move by itself: under Wait the
// generator waits for the next millisecond, under Borrow it takes it ahead.
func TestGenerator_CounterRunsOut(t *testing.T) {
	for _, policy := range []floe.Policy{floe.Wait, floe.Borrow} {
		t.Run(policy.String(), func(t *testing.T) {
			clk := floetest.NewClock(start)
			g := newGen(t, id128.Config{Worker: 1, Clock: clk, Policy: policy})
			ids := make([]id128.ID, 2*(id128.MaxCounter+1)+5)
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
			if err := floetest.Increasing(ids, id128.ID.Compare); err != nil {
				t.Fatal(err)
			}
			last := ids[len(ids)-1].Parts()
			if last.Tick != uint64(start.UnixMilli())+2 || last.Counter != 4 {
				t.Errorf("last ID %+v, want tick start+2, counter 4", last)
			}
			// Under Wait the callers stall on the spent counter; under Borrow
			// they take the next millisecond ahead of the clock.
			st := g.Stats()
			if got := map[floe.Policy]uint64{floe.Wait: st.Exhausted, floe.Borrow: st.Borrowed}[policy]; got != 2 {
				t.Errorf("Stats %+v: want 2 exhausted (wait) or borrowed (borrow) milliseconds", st)
			}
		})
	}
}

func TestGenerator_NextN(t *testing.T) {
	clk := floetest.NewClock(start)
	g := newGen(t, id128.Config{Worker: 7, Clock: clk})
	first, err := g.Next()
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]id128.ID, id128.MaxCounter+100)
	n, err := g.NextN(ids)
	if err != nil || n != len(ids) {
		t.Fatalf("NextN = %d, %v", n, err)
	}
	more, err := g.AppendNext(ids[:len(ids):len(ids)], 3)
	if err != nil || len(more) != len(ids)+3 {
		t.Fatalf("AppendNext = %d IDs, %v", len(more), err)
	}
	all := append([]id128.ID{first}, more...)
	if err := floetest.Unique(all); err != nil {
		t.Fatal(err)
	}
	if err := floetest.Increasing(all, id128.ID.Compare); err != nil {
		t.Fatal(err)
	}
	for _, id := range all {
		if id.Worker() != 7 || id[6]>>4 != 7 || id[8]>>6 != 2 {
			t.Fatalf("ID %v: worker %d, bad version or variant", id, id.Worker())
		}
	}
	if all[1].Counter() != 1 {
		t.Errorf("NextN's first counter %d, want 1", all[1].Counter())
	}
}

func TestGenerator_Unique(t *testing.T) {
	for _, policy := range []floe.Policy{floe.Wait, floe.Fail, floe.Borrow} {
		t.Run(policy.String(), func(t *testing.T) {
			g := newGen(t, id128.Config{Policy: policy})
			floetest.Hammer(t, 8, 2000, g.Next, id128.ID.Compare)
		})
	}
}

func TestGenerator_Rewind(t *testing.T) {
	for _, policy := range []floe.Policy{floe.Wait, floe.Fail, floe.Borrow} {
		for _, back := range []time.Duration{time.Millisecond, time.Second, time.Hour} {
			t.Run(policy.String()+" "+back.String(), func(t *testing.T) {
				clk := floetest.NewClock(start)
				g := newGen(t, id128.Config{Worker: 9, Clock: clk, Policy: policy, MaxAhead: 2 * time.Second})
				var ids []id128.ID
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
				if err := floetest.Increasing(append(ids, id), id128.ID.Compare); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestGenerator_Floor(t *testing.T) {
	clk := floetest.NewClock(start)
	floor := uint64(start.UnixMilli()) + 5
	g := newGen(t, id128.Config{Worker: 2, Clock: clk, Policy: floe.Borrow, Floor: floor})
	id, err := g.Next()
	if err != nil {
		t.Fatal(err)
	}
	if id.Tick() != floor+1 {
		t.Errorf("first tick %d, want floor+1 = %d", id.Tick(), floor+1)
	}
}

func TestGenerator_Ceiling(t *testing.T) {
	clk := floetest.NewClock(start)
	now := uint64(start.UnixMilli())
	g := newGen(t, id128.Config{Worker: 3, Clock: clk, Reserved: true, Ceiling: now})
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

func TestGenerator_Allocs(t *testing.T) {
	g := newGen(t, id128.Config{Worker: 1})
	buf := make([]byte, 0, id128.EncodedLen)
	ids := make([]id128.ID, 0, 64)
	tests := []struct {
		name string
		op   func()
	}{
		{"Next", func() { _, _ = g.Next() }},
		{"Next and AppendText", func() {
			id, _ := g.Next()
			buf, _ = id.AppendText(buf[:0])
		}},
		{"AppendNext", func() { ids, _ = g.AppendNext(ids[:0], 64) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := testing.AllocsPerRun(100, tc.op); got != 0 {
				t.Errorf("%v allocations, want 0", got)
			}
		})
	}
}
