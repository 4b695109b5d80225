package id64_test

import (
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
)

var start = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func newGen(t testing.TB, cfg id64.Config) *id64.Generator {
	t.Helper()
	g, err := id64.NewGenerator(cfg)
	if err != nil {
		t.Fatalf("NewGenerator: %v", err)
	}
	return g
}

func TestNewGenerator_Invalid(t *testing.T) {
	tests := []struct {
		name string
		cfg  id64.Config
		want error
	}{
		{"worker out of range", id64.Config{Worker: 32}, id64.ErrWorkerRange},
		{"datacenter out of range", id64.Config{Datacenter: 32}, id64.ErrDatacenterRange},
		{"tick-tock", id64.Config{Policy: floe.TickTock}, floe.ErrPolicyUnsupported},
		{"bad layout", id64.Config{Layout: id64.Layout{TimeBits: 41}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := id64.NewGenerator(tc.cfg)
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestGenerator_NextParts(t *testing.T) {
	clk := floetest.NewClock(start)
	g := newGen(t, id64.Config{Datacenter: 3, Worker: 17, Clock: clk})
	id, err := g.Next()
	if err != nil {
		t.Fatal(err)
	}
	got := id64.Twitter.Parts(id)
	if got.Datacenter != 3 || got.Worker != 17 || got.Sequence != 0 || !got.Time.Equal(start) {
		t.Errorf("Parts = %+v, want datacenter 3, worker 17, sequence 0, time %v", got, start)
	}
}

// TestGenerator_Unique issues from many goroutines on the real clock, with a
// layout whose 4-bit sequence runs out every millisecond.
func TestGenerator_Unique(t *testing.T) {
	layout := id64.Layout{Epoch: id64.Twitter.Epoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 10, SequenceBits: 4}
	for _, policy := range []floe.Policy{floe.Wait, floe.Fail, floe.Borrow} {
		t.Run(policy.String(), func(t *testing.T) {
			g := newGen(t, id64.Config{Layout: layout, Worker: 5, Policy: policy})
			const workers, each = 8, 500
			check := floetest.NewChecker[id64.ID](workers * each)
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					ids := make([]id64.ID, 0, each)
					for range each / 5 {
						id, err := g.Next()
						if err != nil {
							t.Error(err)
							return
						}
						ids = append(ids, id)
						var batch [4]id64.ID
						if _, err := g.NextN(batch[:]); err != nil {
							t.Error(err)
							return
						}
						ids = append(ids, batch[:]...)
					}
					if err := floetest.Increasing(ids, id64.ID.Compare); err != nil {
						t.Error(err)
					}
					check.Add(ids...)
				})
			}
			wg.Wait()
			if err := check.Err(); err != nil {
				t.Fatal(err)
			}
			if got := g.Stats().Issued; got != workers*each {
				t.Errorf("Issued = %d, want %d", got, workers*each)
			}
		})
	}
}

// TestGenerator_Rewind rewinds a fake clock by a tick, a second and an hour
// under each policy, and checks that IDs never repeat or go back.
func TestGenerator_Rewind(t *testing.T) {
	for _, policy := range []floe.Policy{floe.Wait, floe.Fail, floe.Borrow} {
		for _, back := range []time.Duration{time.Millisecond, time.Second, time.Hour} {
			t.Run(policy.String()+" "+back.String(), func(t *testing.T) {
				clk := floetest.NewClock(start)
				g := newGen(t, id64.Config{Clock: clk, Policy: policy, MaxAhead: 2 * time.Second})
				var ids []id64.ID
				for range 10 {
					id, err := g.Next()
					if err != nil {
						t.Fatal(err)
					}
					ids = append(ids, id)
				}
				clk.Rewind(back)
				id, err := g.Next()
				wantErr := policy == floe.Fail || back == time.Hour
				if wantErr {
					if !errors.Is(err, floe.ErrClockBackwards) {
						t.Fatalf("got %v, %v; want ErrClockBackwards", id, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
				if err := floetest.Increasing(ids, id64.ID.Compare); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestGenerator_Floor(t *testing.T) {
	clk := floetest.NewClock(start)
	floor, err := id64.Twitter.Tick(start.Add(2 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	g := newGen(t, id64.Config{Clock: clk, Floor: floor})
	id, err := g.Next()
	if err != nil {
		t.Fatal(err)
	}
	if got := id64.Twitter.Parts(id).Tick; got <= floor {
		t.Errorf("tick %d at or below floor %d", got, floor)
	}
	if g.LastTick() <= floor {
		t.Errorf("LastTick %d at or below floor %d", g.LastTick(), floor)
	}
}

func TestGenerator_Ceiling(t *testing.T) {
	clk := floetest.NewClock(start)
	now, _ := id64.Twitter.Tick(start)
	g := newGen(t, id64.Config{Clock: clk, Reserved: true, Ceiling: now})
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
	g.RaiseCeiling(now + 100)
	if _, err := g.Next(); err != nil {
		t.Fatal(err)
	}
}

func TestGenerator_NextNPartialOnError(t *testing.T) {
	clk := floetest.NewClock(start)
	now, _ := id64.Twitter.Tick(start)
	g := newGen(t, id64.Config{Clock: clk, Reserved: true, Ceiling: now})
	dst := make([]id64.ID, 5000) // more than one tick holds
	n, err := g.NextN(dst)
	if n != 4096 || !errors.Is(err, floe.ErrCeiling) {
		t.Fatalf("NextN = %d, %v; want 4096, ErrCeiling", n, err)
	}
	if err := floetest.Increasing(dst[:n], id64.ID.Compare); err != nil {
		t.Fatal(err)
	}
}

// TestGenerator_Mastodon generates and decodes IDs of a layout whose time
// spans more than a time.Duration: Mastodon's timestamp_id, 48 bits of
// milliseconds since 1970 and 16 bits of sequence.
func TestGenerator_Mastodon(t *testing.T) {
	l, err := id64.ParseLayout("48t/16s 1ms since 1970-01-01 unsigned")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.End().Format(time.RFC3339Nano), "10889-08-02T05:31:50.656Z"; got != want {
		t.Errorf("End() = %s, want %s", got, want)
	}
	clk := floetest.NewClock(start)
	g := newGen(t, id64.Config{Layout: l, Clock: clk})
	ids := make([]id64.ID, 3)
	if _, err := g.NextN(ids); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		// Mastodon: (unix milliseconds << 16) | sequence.
		if want := id64.ID(uint64(start.UnixMilli())<<16 | uint64(i)); id != want {
			t.Errorf("ID %d = %d, want %d", i, id, want)
		}
		p := l.Parts(id)
		if !p.Time.Equal(start) || p.Sequence != uint64(i) || p.Tick != uint64(start.UnixMilli()) {
			t.Errorf("Parts(%d) = %+v, want time %v, sequence %d", id, p, start, i)
		}
	}
	// The last tick a Duration since the epoch reaches is still generated.
	late := time.Unix(0, math.MaxInt64).Add(-time.Second)
	clk.Set(late)
	id, err := g.Next()
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Time(id); !got.Equal(late.Truncate(time.Millisecond)) {
		t.Errorf("Time = %v, want %v", got, late.Truncate(time.Millisecond))
	}
}

// TestGenerator_SequenceFirst generates IDs of layouts whose sequence comes
// before the node, with Next and NextN, and checks them against the
// formulas of sonyflake and Hazelcast.
func TestGenerator_SequenceFirst(t *testing.T) {
	tests := []struct {
		name    string
		layout  id64.Layout
		worker  uint64
		formula func(tick, seq uint64) uint64
	}{
		{"sonyflake", id64.Sonyflake, 513, func(tick, seq uint64) uint64 { return tick<<24 | seq<<16 | 513 }},
		{"hazelcast", id64.Hazelcast, 65535, func(tick, seq uint64) uint64 { return tick<<22 | seq<<16 | 65535 }},
		{"split node", id64.Layout{Epoch: start.Add(-time.Hour), Unit: time.Millisecond, TimeBits: 41, DatacenterBits: 3, WorkerBits: 5, SequenceBits: 14, Order: id64.TimeSequenceNode},
			29, func(tick, seq uint64) uint64 { return tick<<22 | seq<<8 | 29 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := floetest.NewClock(start)
			g := newGen(t, id64.Config{Layout: tc.layout, Worker: tc.worker, Clock: clk, Policy: floe.Fail})
			tick, err := tc.layout.Tick(start)
			if err != nil {
				t.Fatal(err)
			}
			first, err := g.Next()
			if err != nil {
				t.Fatal(err)
			}
			rest := make([]id64.ID, tc.layout.MaxSequence())
			if n, err := g.NextN(rest); err != nil || n != len(rest) {
				t.Fatalf("NextN = %d, %v; want %d", n, err, len(rest))
			}
			for i, id := range append([]id64.ID{first}, rest...) {
				if want := tc.formula(tick, uint64(i)); uint64(id) != want {
					t.Fatalf("ID %d = %d, want %d", i, id, want)
				}
				p := tc.layout.Parts(id)
				if p.Sequence != uint64(i) || p.Worker != tc.worker || p.Tick != tick {
					t.Fatalf("Parts(%d) = %+v, want tick %d, worker %d, sequence %d", id, p, tick, tc.worker, i)
				}
			}
		})
	}
}

// TestGenerator_JS53 makes every ID of JS53's last tick: all lie below 2^53,
// and at End the generator stops.
func TestGenerator_JS53(t *testing.T) {
	last := id64.JS53.End().Add(-time.Millisecond)
	clk := floetest.NewClock(last)
	g := newGen(t, id64.Config{Layout: id64.JS53, Worker: 31, Clock: clk, Policy: floe.Fail})
	ids := make([]id64.ID, id64.JS53.MaxSequence()+1)
	if n, err := g.NextN(ids); err != nil || n != len(ids) {
		t.Fatalf("NextN = %d, %v; want %d", n, err, len(ids))
	}
	for _, id := range ids {
		if id >= 1<<53 {
			t.Fatalf("ID %d at %v is not below 2^53", id, last)
		}
	}
	if got := ids[len(ids)-1]; got != 1<<53-1 {
		t.Errorf("last ID = %d, want 2^53-1", got)
	}
	clk.Set(id64.JS53.End())
	if _, err := g.Next(); !errors.Is(err, floe.ErrTimeExhausted) {
		t.Errorf("Next at End = %v, want %v", err, floe.ErrTimeExhausted)
	}
}
