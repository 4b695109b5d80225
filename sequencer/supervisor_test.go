package sequencer_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
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
