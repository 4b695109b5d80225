package sequencer_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
)

func TestSequencer_LossStopsIssuing(t *testing.T) {
	tests := []struct {
		name string
		// lose ends the sequencer's lease and returns a function that
		// lets it claim the worker ID again.
		lose func(t *testing.T, ns *workeridtest.MemSource, clock *floetest.Clock) (again func())
	}{
		{"taken over", func(t *testing.T, ns *workeridtest.MemSource, clock *floetest.Clock) func() {
			thief := ns.Steal(0)
			return func() { thief.Release(context.Background(), 0) }
		}},
		{"a reservation of unknown result", func(t *testing.T, ns *workeridtest.MemSource, clock *floetest.Clock) func() {
			ns.Refuse(&workerid.LeaseLostError{ID: 0, Fence: 1, Err: errors.New("timeout")})
			clock.Step(time.Second) // the keeper must write
			return func() {
				ns.Refuse(nil)
				ns.Lose(0) // the coordinator frees the ID
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := floetest.NewClock(start)
			ns := workeridtest.NewMemSource(1)
			sq := open(t, sequencer.Config{Source: ns, Clock: clock, Window: time.Second})
			checker := floetest.NewChecker[id64.ID](0)
			checker.Add(next64(t, sq, 100)...)
			again := tt.lose(t, ns, clock)
			r := ns.Holder(0).Reserved()
			waitState(t, sq, sequencer.Claiming)
			_, err := sq.Next64()
			var nr *sequencer.NotReadyError
			if !errors.As(err, &nr) || nr.State != sequencer.Claiming || !errors.Is(err, sequencer.ErrNotReady) {
				t.Fatalf("Next64 after the loss = %v, want a *NotReadyError while claiming", err)
			}
			if got := sq.Stats().Losses; got != 1 {
				t.Errorf("Losses = %d, want 1", got)
			}
			// Claimed again in the background, it starts above R.
			again()
			waitState(t, sq, sequencer.Serving)
			ids := next64(t, sq, 100)
			if tick(ids[0]) <= r {
				t.Errorf("first ID after the new claim at tick %d, not above R %d", tick(ids[0]), r)
			}
			checker.Add(ids...)
			if err := checker.Err(); err != nil {
				t.Fatal(err)
			}
			if st := sq.Stats(); st.Claims != 2 || st.WorkerID != 0 {
				t.Errorf("stats %+v, want 2 claims and worker ID 0", st)
			}
		})
	}
}

// blindCatalog is a catalog whose reads can fail, as when it is out of
// reach: once blind is set, Get fails; WaitGone never tells. Create,
// Destroy and the Sources still work, as on another member.
type blindCatalog struct {
	*workeridtest.MemCatalog
	blind atomic.Bool
}

func (c *blindCatalog) Get(ctx context.Context, name string) (workerid.Sequence, error) {
	if c.blind.Load() {
		return workerid.Sequence{}, errors.New("catalog out of reach")
	}
	return c.MemCatalog.Get(ctx, name)
}

func (c *blindCatalog) WaitGone(ctx context.Context, name string, gen int64) error {
	<-ctx.Done()
	return ctx.Err()
}

// A lease whose cause says the sequence was destroyed (it wraps
// workerid.ErrNotFound) ends the term as a destroy, not a loss, even when
// the catalog cannot be read: no WARN or ERROR line, Destroys 1, Losses 0,
// no failed write, and the sequencer shows Destroyed.
func TestSequencer_DestroyCauseIsNoLoss(t *testing.T) {
	destroyed := fmt.Errorf("%w: the sequence was destroyed", workerid.ErrNotFound)
	tests := []struct {
		name string
		end  func(t *testing.T, cat *workeridtest.MemCatalog, ns *workeridtest.MemSource, clock *floetest.Clock)
	}{
		{"the lease ended by a destroy", func(t *testing.T, cat *workeridtest.MemCatalog, _ *workeridtest.MemSource, _ *floetest.Clock) {
			if err := cat.Destroy(context.Background(), "orders"); err != nil { // by another member
				t.Fatal(err)
			}
		}},
		{"a reservation refused by a destroy", func(t *testing.T, _ *workeridtest.MemCatalog, ns *workeridtest.MemSource, clock *floetest.Clock) {
			ns.Refuse(&workerid.LeaseLostError{ID: 0, Fence: 1, Err: destroyed})
			clock.Step(time.Second) // the keeper must write
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := floetest.NewClock(start)
			mem := workeridtest.NewMemCatalog(1)
			var nss []*workeridtest.MemSource
			sources := func(seq workerid.Sequence) (workerid.Source, error) {
				src, err := mem.Source(seq)
				if ns, ok := src.(*workeridtest.MemSource); ok {
					nss = append(nss, ns)
				}
				return src, err
			}
			cat := &blindCatalog{MemCatalog: mem}
			var logs workeridtest.Logs
			sq := open(t, sequencer.Config{Catalog: cat, Sources: sources, Clock: clock, Window: time.Second, Logger: logs.Logger()})
			next64(t, sq, 10)
			cat.blind.Store(true)
			tt.end(t, mem, nss[0], clock)
			waitState(t, sq, sequencer.Destroyed)
			st := sq.Stats()
			if st.Destroys != 1 || st.Losses != 0 || st.WriteErrors != 0 {
				t.Errorf("Destroys %d, Losses %d, WriteErrors %d; want 1, 0, 0", st.Destroys, st.Losses, st.WriteErrors)
			}
			if got := logs.AtLeast(slog.LevelWarn); len(got) != 0 {
				t.Errorf("logged at WARN or above: %q, want nothing", got)
			}
			if t.Failed() {
				t.Logf("the sequencer logged:\n%s", logs.String())
			}
		})
	}
}

// downSource is a MemSource whose claims fail while down is set, as with a
// coordinator out of reach; it counts them.
type downSource struct {
	*workeridtest.MemSource
	down   atomic.Bool
	failed atomic.Int64
}

func (ds *downSource) Claim(ctx context.Context) (workerid.Lease, error) {
	if ds.down.Load() {
		ds.failed.Add(1)
		return nil, errors.New("coordinator out of reach")
	}
	return ds.MemSource.Claim(ctx)
}

// TestSequencer_ClaimRetryAfterFault: after a run of failed claims, long
// enough for the back-off to reach its cap, a sequencer serves again well
// under a second after the coordinator answers again; the failures log
// one ERROR line, not one each.
func TestSequencer_ClaimRetryAfterFault(t *testing.T) {
	clock := floetest.NewClock(start)
	ds := &downSource{MemSource: workeridtest.NewMemSource(1)}
	var logs workeridtest.Logs
	sq := open(t, sequencer.Config{Source: ds, Clock: clock, Window: time.Second, Logger: logs.Logger()})
	next64(t, sq, 10)
	ds.down.Store(true)
	ds.Lose(0)
	waitState(t, sq, sequencer.Claiming)
	// Seven failed claims: the back-off has doubled from 50 ms to its cap
	// (with a 2 s cap, the next wait was 2 s).
	for deadline := time.Now().Add(30 * time.Second); ds.failed.Load() < 7; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d failed claims in 30 s, want 7", ds.failed.Load())
		}
	}
	m := schedtest.Now()
	ds.down.Store(false)
	healed := time.Now()
	waitState(t, sq, sequencer.Serving)
	// The bound is the back-off's cap, a wait (250 ms), plus the claim and
	// the state's watch: work, 750 ms on an idle machine, stretched by the
	// slowdown schedtest measured. A cap of 2 s, the defect, took longer.
	const backoffCap = 250 * time.Millisecond
	if d, bound := time.Since(healed), backoffCap+m.Scale(time.Second-backoffCap); d > bound {
		t.Errorf("serving again %v after the coordinator answered again, want within %v (1 s on an idle machine)", d, bound)
	}
	if got := logs.Count(slog.LevelError, "claiming a worker ID failed; claiming again"); got != 1 {
		t.Errorf("%d ERROR lines for 7 failed claims, want 1:\n%s", got, logs.String())
	}
}
