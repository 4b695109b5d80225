package sequencer_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid/workeridtest"
)

func TestSequencer_NeverAboveReservation(t *testing.T) {
	const window = time.Second
	clock := floetest.NewClock(start)
	ns := workeridtest.NewMemSource(1)
	// MaxWait bounds a call's wait for the keeper to extend the
	// reservation. The test checks where issuing stops, not how soon the
	// keeper writes: 20 ms, as it was, failed calls whose keeper a loaded
	// machine ran late. 1 s leaves it that time (the call refused below
	// waits it out once).
	sq := open(t, sequencer.Config{Source: ns, Clock: clock, Window: window, MaxWait: time.Second})
	checker := floetest.NewChecker[id64.ID](0)
	// Two minutes of the clock in 50 ms steps: the keeper follows, and no
	// ID passes the durable reservation.
	for range 2400 {
		clock.Step(50 * time.Millisecond)
		ids := next64(t, sq, 20)
		checker.Add(ids...)
		r := ns.Holder(0).Reserved()
		for _, id := range ids {
			if tick(id) > r {
				t.Fatalf("ID at tick %d above the durable reservation %d", tick(id), r)
			}
		}
		if h := sq.Stats().Headroom; h > window {
			t.Fatalf("reservation %v ahead of the clock, more than the %v window", h, window)
		}
	}
	if err := checker.Err(); err != nil {
		t.Fatal(err)
	}
	// The coordinator refuses every write: issuing stops at the last R.
	ns.Refuse(errors.New("coordinator out of reach"))
	r := ns.Holder(0).Reserved()
	clock.Step(3 * window)
	var ce *floe.CeilingError
	if _, err := sq.Next64(); !errors.As(err, &ce) {
		t.Fatalf("Next64 past a reservation that cannot be extended = %v, want a *floe.CeilingError", err)
	}
	if got := ns.Holder(0).Reserved(); got != r {
		t.Fatalf("reservation moved from %d to %d while refused", r, got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for sq.Ready() == nil || sq.Stats().WriteErrors == 0 {
		if time.Now().After(deadline) {
			t.Fatal("ready while the reservation cannot be extended")
		}
		time.Sleep(time.Millisecond)
	}
	if err := sq.Ready(); !strings.Contains(err.Error(), "cannot be extended") {
		t.Errorf("Ready() = %v, want the reservation named", err)
	}
	// The coordinator is back: the keeper's next try extends R, and
	// issuing resumes.
	ns.Refuse(nil)
	_, err := sq.Next64()
	for deadline := time.Now().Add(10 * time.Second); err != nil && time.Now().Before(deadline); {
		_, err = sq.Next64()
	}
	if err != nil {
		t.Fatalf("Next64 after the coordinator came back: %v", err)
	}
}
