package floe

import (
	"sync"
	"testing"
	"time"
)

// TestMonotonicClock_FirstReading checks that a fresh clock's reading after
// its first lies between wall-clock readings taken around it, within the
// clock's bound: never before them (an ID would name a time before its
// request), and after them by no more than the lead its anchor recorded,
// the time between the anchor's monotonic and wall readings, which a
// preemption between the two lengthens. It is the package's first test,
// so that its reading is the process's first.
func TestMonotonicClock_FirstReading(t *testing.T) {
	for _, c := range []*monotonicClock{{}, {precise: true}} {
		c.UnixNano()
		before := time.Now().UnixNano()
		got := c.UnixNano()
		after := time.Now().UnixNano()
		lead := c.anchor.Load().lead
		if b := int64(c.UnixNanoBound()); got < before-b || got > after+b+lead {
			t.Errorf("precise %v: reading %d after the first not within [%d, %d] (bound %v, anchor's lead %v)",
				c.precise, got, before-b, after+b+lead, c.UnixNanoBound(), time.Duration(lead))
		}
	}
}

// TestMonotonicClock_AnchorLead checks what an anchor's lead bounds: a
// reading from the anchor, at the anchor's own monotonic reading, lies at
// or after the wall clock read just before the anchoring and at most lead
// after the wall clock read just after it. An anchor whose wall reading
// came before its monotonic one would lag the wall clock.
func TestMonotonicClock_AnchorLead(t *testing.T) {
	for _, precise := range []bool{false, true} {
		for range 1000 {
			c := &monotonicClock{precise: precise}
			before := time.Now().UnixNano()
			a := c.sample()
			after := time.Now().UnixNano()
			if a.lead < 0 {
				t.Fatalf("precise %v: anchor %+v: negative lead", precise, a)
			}
			if a.wall < before || a.wall > after {
				t.Fatalf("precise %v: anchor %+v: wall reading not within [%d, %d]", precise, a, before, after)
			}
		}
	}
}

func TestMonotonicClock_NeverDecreases(t *testing.T) {
	for _, c := range []*monotonicClock{{}, {precise: true}} {
		testNeverDecreases(t, c)
	}
}

func testNeverDecreases(t *testing.T, c *monotonicClock) {
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			last := c.Now()
			for range 20000 {
				now := c.Now()
				if now.Before(last) {
					t.Errorf("reading %v after %v", now, last)
					return
				}
				last = now
			}
		})
	}
	wg.Wait()
	if d := time.Since(c.Now()); d > time.Second || d < -time.Second {
		t.Errorf("monotonic clock is %v off the wall clock", d)
	}
}

func TestMonotonicClock_Recheck(t *testing.T) {
	tests := []struct {
		name   string
		offset time.Duration // anchor's wall time relative to the real one
		want   time.Duration // expected reading relative to the real wall clock, within a second
	}{
		{"wall clock moved ahead: catch up", -time.Hour, 0},
		{"wall clock went back: keep counting", time.Hour, time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &monotonicClock{}
			// An anchor due for a recheck at once.
			c.anchor.Store(&anchor{
				wall: time.Now().UnixNano() - int64(recheckEvery) + int64(tc.offset),
				mono: c.mono() - int64(recheckEvery),
			})
			got := time.Duration(c.Now().UnixNano() - time.Now().UnixNano())
			if d := got - tc.want; d > time.Second || d < -time.Second {
				t.Errorf("reading is %v off the wall clock, want %v", got, tc.want)
			}
		})
	}
}

// TestMonotonicClock_Precise checks that the precise reading agrees with the
// cheaper one within the bound the cheaper one states (and a margin for the
// time between the two readings), and states no bound of its own.
func TestMonotonicClock_Precise(t *testing.T) {
	c := &monotonicClock{}
	if got := preciseMonotonic.UnixNanoBound(); got != 0 {
		t.Errorf("precise clock's bound = %v, want 0", got)
	}
	bound := c.UnixNanoBound()
	for range 1000 {
		cheap := c.UnixNano()
		precise := c.PreciseUnixNano()
		// Anchored to the wall clock at different instants: allow the
		// wall clock's own jitter of a millisecond.
		if d := time.Duration(precise - cheap); d > bound+time.Millisecond || d < -bound-time.Millisecond {
			t.Fatalf("precise reading is %v off the cheaper one, bound %v", d, bound)
		}
	}
}

func TestSystemClock(t *testing.T) {
	if d := time.Since(SystemClock.Now()); d < 0 || d > time.Second {
		t.Errorf("SystemClock is %v off", d)
	}
}
