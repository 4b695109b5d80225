package client

import (
	"testing"
	"time"
)

func TestOptions_Backoff(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name     string
		min, max time.Duration
		attempt  int
		want     time.Duration
	}{
		{"first", 10 * ms, time.Second, 1, 10 * ms},
		{"doubles", 10 * ms, time.Second, 3, 40 * ms},
		{"capped", 10 * ms, time.Second, 8, time.Second},
		{"no overflow", 10 * ms, time.Second, 200, time.Second},
		{"no wait", 0, 0, 5, 0},
		{"attempt 0", 10 * ms, time.Second, 0, 10 * ms},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := defaults()
			o.backoffMin, o.backoffMax, o.jitter = tc.min, tc.max, 0
			if got := o.backoff(tc.attempt); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			o.jitter = 0.5
			for range 100 {
				if got := o.backoff(tc.attempt); got < tc.want/2 || got > tc.want*3/2 {
					t.Fatalf("with jitter 0.5: got %v, want %v ± 50%%", got, tc.want)
				}
			}
		})
	}
	o := defaults()
	o.delay = func(attempt int) time.Duration { return time.Duration(attempt) * ms }
	if got := o.backoff(7); got != 7*ms {
		t.Errorf("delay func: got %v, want 7ms", got)
	}
}
