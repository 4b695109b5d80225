package clockseq

import (
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
)

// TestNewReading checks which reading a Seq takes of each clock: the
// monotonic clock's cheaper reading only for ticks of at least 25 times its
// bound, its precise reading below that.
func TestNewReading(t *testing.T) {
	tests := []struct {
		name        string
		clock       floe.Clock
		unit        time.Duration
		wantPrecise bool
		wantNanos   bool
	}{
		{"monotonic, 1 ms", floe.MonotonicClock, time.Millisecond, false, true},
		{"monotonic, id96's 131 µs", floe.MonotonicClock, 1 << 17, false, true},
		{"monotonic, 100 µs", floe.MonotonicClock, 100 * time.Microsecond, false, true},
		{"monotonic, 99 µs", floe.MonotonicClock, 99 * time.Microsecond, true, true},
		{"monotonic, 1 ns", floe.MonotonicClock, 1, true, true},
		{"system, 1 ns", floe.SystemClock, 1, false, true},
		{"fake, 1 ns", floetest.NewClock(time.Unix(0, 0)), 1, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newReading(tc.clock, int64(tc.unit))
			_, gotPrecise := r.nanos.(precise)
			if gotPrecise != tc.wantPrecise || (r.nanos != nil) != tc.wantNanos {
				t.Errorf("precise %v, nanos %v; want %v, %v", gotPrecise, r.nanos != nil, tc.wantPrecise, tc.wantNanos)
			}
			if d := time.Duration(r.now() - tc.clock.Now().UnixNano()); d > time.Second || d < -time.Second {
				t.Errorf("reading is %v off the clock's Now", d)
			}
		})
	}
}
