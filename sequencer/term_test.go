package sequencer_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid/workeridtest"
)

func TestSequencer_StartsAboveFloor(t *testing.T) {
	base, _ := id64.Twitter.Tick(start)
	tests := []struct {
		name string
		// prepare leaves the worker ID as a previous holder did and
		// returns the floor the next holder must start above.
		prepare func(t *testing.T, ns *workeridtest.MemSource) uint64
		floor   time.Time
	}{
		{"above the recorded reservation", func(t *testing.T, ns *workeridtest.MemSource) uint64 {
			l, _ := ns.Claim(context.Background())
			if err := l.Reserve(context.Background(), base+2000); err != nil {
				t.Fatal(err)
			}
			ns.Lose(l.ID()) // a crash: nothing recorded but R
			return base + 2000
		}, time.Time{}},
		{"above the last tick of a clean release", func(t *testing.T, ns *workeridtest.MemSource) uint64 {
			l, _ := ns.Claim(context.Background())
			if err := l.Reserve(context.Background(), base+2000); err != nil {
				t.Fatal(err)
			}
			l.Release(context.Background(), base+100)
			return base + 100
		}, time.Time{}},
		{"above the time of death", func(t *testing.T, ns *workeridtest.MemSource) uint64 {
			return base + 1500
		}, id64.Twitter.TickTime(base + 1500)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := workeridtest.NewMemSource(1)
			floor := tt.prepare(t, ns)
			clock := floetest.NewClock(start)
			sq := open(t, sequencer.Config{Source: ns, Clock: clock, Floor: tt.floor})
			err := sq.Ready()
			if !errors.Is(err, sequencer.ErrNotReady) || !strings.Contains(err.Error(), "behind the reservation") {
				t.Errorf("Ready() with the clock behind the floor = %v, want ErrNotReady naming it", err)
			}
			// Policy Wait waits on the clock, which the fake one skips.
			id, err := sq.Next64()
			if err != nil {
				t.Fatal(err)
			}
			if got := tick(id); got != floor+1 {
				t.Errorf("first ID at tick %d, want right above the floor %d", got, floor)
			}
			if err := sq.Ready(); err != nil {
				t.Errorf("Ready() once past the floor = %v", err)
			}
		})
	}
}

// TestSequencer_ReleaseCoversCallsInProgress issues from several
// goroutines while the sequencer loses its lease, detaches, attaches and
// finally closes: no ID repeats, and the last tick of the final release is
// at or above every ID returned, so the next holder repeats none.
func TestSequencer_ReleaseCoversCallsInProgress(t *testing.T) {
	clock := floetest.NewClock(start)
	ns := workeridtest.NewMemSource(1)
	sq := open(t, sequencer.Config{Source: ns, Clock: clock, Policy: floe.Borrow, MaxAhead: time.Hour})
	ctx := context.Background()
	var wg sync.WaitGroup
	got := make([][]id64.ID, 4)
	var issued atomic.Int64
	stop := make(chan struct{})
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if id, err := sq.Next64(); err == nil {
					got[g] = append(got[g], id)
					issued.Add(1)
				} else if errors.Is(err, sequencer.ErrClosed) {
					return
				}
			}
		}()
	}
	// Each term issues some IDs before the next change, however the
	// goroutines are scheduled: on a busy machine they may not have run
	// at all by the time the loop would otherwise end.
	for i := range 20 {
		clock.Step(time.Millisecond)
		if i%2 == 0 {
			ns.Lose(0)
		} else {
			sq.Detach(ctx)
			sq.Attach(ctx)
		}
		waitState(t, sq, sequencer.Serving)
		mark := issued.Load()
		for deadline := time.Now().Add(10 * time.Second); issued.Load() == mark; runtime.Gosched() {
			if time.Now().After(deadline) {
				t.Fatalf("term %d: no ID issued in 10 s while serving", i)
			}
		}
	}
	if err := sq.Close(ctx); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	l, err := ns.Claim(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var all []id64.ID
	for _, ids := range got {
		all = append(all, ids...)
	}
	if len(all) == 0 {
		t.Fatal("no IDs issued")
	}
	if err := floetest.Unique(all); err != nil {
		t.Fatal(err)
	}
	for _, id := range all {
		if tick(id) > l.Floor() {
			t.Fatalf("ID at tick %d returned, above the last tick %d the release recorded", tick(id), l.Floor())
		}
	}
}
