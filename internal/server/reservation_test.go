package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/prometheus/client_golang/prometheus"
)

// TestServer_ReservationKeepsAhead serves ten minutes of a fake clock and
// checks the documented bounds of the reservation: never more than a window
// ahead of the clock (the most a crash can cost), never less than half a
// window once the keeper has answered, and one write per 7/16 of a window.
func TestServer_ReservationKeepsAhead(t *testing.T) {
	const window = time.Second
	clock := floetest.NewClock(start)
	store := newMemStore()
	s, addr := newTestServer(t, Config{Clock: clock, Store: store, Window: window})
	c := dialNoeq(t, addr, "")
	checker := floetest.NewChecker[uint64](0)
	headroom := func() time.Duration {
		r := store.get("default").Reserved
		return id64.Twitter.Epoch.Add(time.Duration(r+1) * time.Millisecond).Sub(clock.Now())
	}
	var least, most time.Duration = window, 0
	// Ten minutes of clock in 100 ms steps: the keeper must follow, and no
	// ID may pass the durable reservation.
	for i := range 6000 {
		clock.Step(100 * time.Millisecond)
		ids, err := c.get(10)
		if err != nil {
			t.Fatal(err)
		}
		checker.Add(ids...)
		r := store.get("default").Reserved
		for _, id := range ids {
			if tick := id64.Twitter.Parts(id64.ID(id)).Tick; tick > r {
				t.Fatalf("ID at tick %d above the durable reservation %d", tick, r)
			}
		}
		if h := headroom(); h > window {
			t.Fatalf("step %d: reservation %v ahead of the clock, more than the %v window a crash may cost; stats %+v", i, h, window, s.seqs()[0].stats())
		}
		// The keeper answers the new tick in the background.
		deadline := time.Now().Add(10 * time.Second)
		for headroom() < window/2 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		h := headroom()
		least, most = min(least, h), max(most, h)
		if h < window/2 {
			t.Fatalf("reservation only %v ahead of the clock, less than half the %v window", h, window)
		}
	}
	if err := checker.Err(); err != nil {
		t.Fatal(err)
	}
	seq := s.seqs()[0]
	// One write per 7/16 of a window while serving, and a few to spare for
	// the first reservation and the steps that raced the keeper.
	if w, most := seq.sq.Stats().Writes, uint64(600*16/7+10); w > most {
		t.Errorf("%d store writes for 600 s with a 1 s window, want at most %d: one per 7/16 of a window", w, most)
	}
	t.Logf("%d store writes for 600 s of serving with a 1 s window; headroom %v..%v", seq.sq.Stats().Writes, least, most)
}

func TestServer_ReservationFailureStopsIssuing(t *testing.T) {
	clock := floetest.NewClock(start)
	store := newMemStore()
	// MaxWait bounds a request's wait for the keeper. The test checks that
	// issuing stops at the reservation and resumes once the store does, not
	// how soon the keeper writes: 20 ms, as it was, failed the request
	// after the recovery whenever a loaded machine ran the keeper late.
	// The request past the ceiling waits the 1 s out once.
	s, addr := newTestServer(t, Config{Clock: clock, Store: store, Window: time.Second, MaxWait: time.Second})
	store.setFail(errors.New("disk full"))
	r := store.get("default").Reserved
	c := dialNoeq(t, addr, "")
	// Until the ceiling the node serves; past it, it closes the connection.
	clock.Step(3 * time.Second)
	if _, err := c.get(1); err == nil {
		t.Fatal("served an ID beyond a reservation that could not be written")
	}
	if s.Ready() == nil {
		t.Error("ready while the reservation cannot be extended")
	}
	if got := store.get("default").Reserved; got != r {
		t.Fatalf("reservation moved from %d to %d while failing", r, got)
	}
	store.setFail(nil)
	c = dialNoeq(t, addr, "")
	ids, err := c.get(1)
	if err != nil {
		t.Fatalf("after the store recovered: %v", err)
	}
	if tick := id64.Twitter.Parts(id64.ID(ids[0])).Tick; tick > store.get("default").Reserved {
		t.Fatalf("tick %d above the reservation", tick)
	}
}

// TestServer_Restart restarts a server on the same store with the clock set
// back an hour and checks each policy's behaviour, and that no ID repeats.
func TestServer_Restart(t *testing.T) {
	tests := []struct {
		name   string
		policy floe.Policy
		ahead  time.Duration
		clean  bool
		serves bool
	}{
		{"wait refuses an hour behind", floe.Wait, 0, false, false},
		{"fail refuses", floe.Fail, 0, false, false},
		{"borrow within max-ahead serves", floe.Borrow, 2 * time.Hour, false, true},
		{"borrow beyond max-ahead refuses", floe.Borrow, time.Minute, false, false},
		{"clean stop then wait refuses", floe.Wait, 0, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := newMemStore()
			clock := floetest.NewClock(start)
			cfg := Config{Store: store, Clock: clock, Policy: tc.policy, MaxAhead: tc.ahead, MaxWait: 50 * time.Millisecond, Logger: quietLogger(),
				Sequences: []SequenceConfig{{Name: "default"}}}
			s1, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]id64.ID, 1000)
			if err := fill(s1, ids); err != nil {
				t.Fatal(err)
			}
			if tc.clean {
				err = s1.Shutdown(context.Background())
			} else {
				err = s1.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			clock.Rewind(time.Hour)
			reg := prometheus.NewRegistry()
			cfg.Registry = reg
			s2, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			more := make([]id64.ID, 1000)
			err = fill(s2, more)
			if tc.serves != (err == nil) {
				t.Fatalf("serves: %v (%v), want %v", err == nil, err, tc.serves)
			}
			if err != nil {
				var ce *floe.ClockError
				if !errors.As(err, &ce) {
					t.Errorf("error %v, want a *floe.ClockError", err)
				}
				if s2.Ready() == nil {
					t.Error("ready while the clock is behind the reservation")
				}
				// Every request is refused: one regression, however many,
				// and the gauge says how far behind the clock is.
				for range 3 {
					fill(s2, more[:1])
				}
				if got := gathered(t, reg, "floe_clock_regressions_total"); got != 1 {
					t.Errorf("floe_clock_regressions_total %v while refusing an hour behind, want 1", got)
				}
				if got := gathered(t, reg, "floe_clock_behind_seconds"); got < 3590 || got > 3610 {
					t.Errorf("floe_clock_behind_seconds %v, want about 3600", got)
				}
				return
			}
			// Borrow serves ahead of the clock, which the gauge shows.
			if got := gathered(t, reg, "floe_clock_behind_seconds"); got < 3590 || got > 3610 {
				t.Errorf("floe_clock_behind_seconds %v borrowing an hour ahead, want about 3600", got)
			}
			if more[0] <= ids[len(ids)-1] {
				t.Errorf("after the restart %d, not above %d", more[0], ids[len(ids)-1])
			}
			if err := floetest.Unique(append(ids, more...)); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestServer_CleanStopRecordsLast(t *testing.T) {
	store := newMemStore()
	clock := floetest.NewClock(start)
	cfg := Config{Store: store, Clock: clock, Window: 10 * time.Second, Logger: quietLogger(), Sequences: []SequenceConfig{{Name: "default"}}}
	s1, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]id64.ID, 5)
	if err := fill(s1, ids); err != nil {
		t.Fatal(err)
	}
	if err := s1.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec := store.get("default")
	last := id64.Twitter.Parts(ids[4]).Tick
	if rec.Last != last || rec.Reserved < last+10000-1 { // a 10 s window from the first tick
		t.Fatalf("record %+v: want Last %d and the reservation kept", rec, last)
	}
	// The next start begins right above Last, not after the window.
	clock.Step(time.Millisecond)
	s2, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if err := s2.Ready(); err != nil {
		t.Fatalf("not ready right after a clean stop: %v", err)
	}
	if got := store.get("default"); got.Last != 0 {
		t.Errorf("the running server left the clean-stop mark: %+v", got)
	}
}

// TestServer_ClaimLogSaysHowThePreviousRunEnded checks the claim's log line
// across a first start, a crash (Close records nothing) and a clean stop.
func TestServer_ClaimLogSaysHowThePreviousRunEnded(t *testing.T) {
	store := newMemStore()
	clock := floetest.NewClock(start)
	shutdown := func(s *Server) error { return s.Shutdown(context.Background()) }
	tests := []struct {
		name      string
		stop      func(*Server) error // how the previous server stops
		wantClean bool
		wantFirst bool
	}{
		{"first start", nil, false, true},
		{"after a crash", (*Server).Close, false, false},
		{"after a clean stop", shutdown, true, false},
		{"after a crash again", (*Server).Close, false, false},
	}
	var prev *Server
	for _, tc := range tests {
		if tc.stop != nil {
			if err := tc.stop(prev); err != nil {
				t.Fatal(err)
			}
		}
		var buf logBuffer
		cfg := Config{Store: store, Clock: clock, Window: time.Second, Logger: buf.logger(),
			Sequences: []SequenceConfig{{Name: "default"}}}
		clock.Step(2 * time.Second) // past the last reservation
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		claims := buf.lines(t, "worker ID claimed")
		if len(claims) != 1 {
			t.Fatalf("%s: %d claims logged, want 1", tc.name, len(claims))
		}
		clean, ok1 := claims[0]["clean_stop"].(bool)
		first, ok2 := claims[0]["first_use"].(bool)
		if !ok1 || !ok2 {
			t.Fatalf("%s: no clean_stop and first_use in the claim's log line: %v", tc.name, claims[0])
		}
		if clean != tc.wantClean || first != tc.wantFirst {
			t.Errorf("%s: clean_stop=%v first_use=%v, want %v and %v", tc.name, clean, first, tc.wantClean, tc.wantFirst)
		}
		prev = s
	}
	prev.Close()
}
