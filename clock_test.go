package floe

import (
	"sync"
	"testing"
	"time"
)

func TestMonotonicClock_NeverDecreases(t *testing.T) {
	c := &monotonicClock{}
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
			now := time.Now()
			// An anchor due for a recheck at once.
			c.anchor.Store(&anchor{wall: now.UnixNano() + int64(tc.offset), mono: now, check: 0})
			got := time.Duration(c.Now().UnixNano() - time.Now().UnixNano())
			if d := got - tc.want; d > time.Second || d < -time.Second {
				t.Errorf("reading is %v off the wall clock, want %v", got, tc.want)
			}
		})
	}
}

func TestSystemClock(t *testing.T) {
	if d := time.Since(SystemClock.Now()); d < 0 || d > time.Second {
		t.Errorf("SystemClock is %v off", d)
	}
}
