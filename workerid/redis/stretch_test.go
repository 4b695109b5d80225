package redis

import (
	"time"

	"github.com/floeid/floe/internal/schedtest"
)

// stretch returns the bound waits + work, its work scaled by the slowdown
// schedtest measured since m. waits are the parts of a bound that load
// does not lengthen (a TTL, a request timeout, a renewal interval); work
// the parts it does (a round trip, a timer's wake-up, the watch of a
// Done). On an idle machine it is waits + work: the bound as written.
func stretch(m schedtest.Mark, waits, work time.Duration) time.Duration {
	return waits + m.Scale(work)
}

// receiveWithin waits for ch until bound() has passed since start, bound
// asked again each time its wait ends (a stretched bound grows with the
// load it measures), and reports whether ch received in time.
func receiveWithin[T any](ch <-chan T, start time.Time, bound func() time.Duration) (T, bool) {
	for {
		left := time.Until(start.Add(bound()))
		if left <= 0 {
			select {
			case v := <-ch:
				return v, true
			default:
				var zero T
				return zero, false
			}
		}
		timer := time.NewTimer(left)
		select {
		case v := <-ch:
			timer.Stop()
			return v, true
		case <-timer.C:
		}
	}
}
