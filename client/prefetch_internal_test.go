package client

import (
	"slices"
	"testing"
	"time"

	"github.com/floeid/floe/id64"
)

// TestBuffer takes IDs across batches and drops stale batches wherever they
// sit: batches from several connections do not arrive in the order their
// requests went out.
func TestBuffer(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b := buffer{size: 10, validity: time.Second}
	b.push([]id64.ID{10, 11}, t0.Add(500*time.Millisecond))
	b.push([]id64.ID{1, 2, 3}, t0) // sent earlier, came later
	b.push([]id64.ID{20, 21}, t0.Add(900*time.Millisecond))
	b.push(nil, t0)

	tests := []struct {
		name  string
		at    time.Duration
		n     int
		want  []id64.ID // nil: not enough
		left  int
		room  int // for a flight with demand
		refil int // without
	}{
		{"across batches", 0, 3, []id64.ID{10, 11, 1}, 4, 6, 6},
		{"the oldest batch goes stale", time.Second, 3, nil, 2, 8, 8},
		{"what is left", time.Second, 2, []id64.ID{20, 21}, 0, 10, 10},
		{"empty", time.Second, 1, nil, 0, 10, 10},
	}
	for _, tc := range tests {
		dst := make([]id64.ID, tc.n)
		ok := b.take(dst, t0.Add(tc.at))
		if ok != (tc.want != nil) || (ok && !slices.Equal(dst, tc.want)) || b.n != tc.left {
			t.Fatalf("%s: got %v, %v, %d left; want %v, %d left", tc.name, ok, dst, b.n, tc.want, tc.left)
		}
		if got := b.room(0, true); got != tc.room {
			t.Errorf("%s: room with demand %d, want %d", tc.name, got, tc.room)
		}
		if got := b.room(0, false); got != tc.refil {
			t.Errorf("%s: room for a refill %d, want %d", tc.name, got, tc.refil)
		}
	}
	if got := b.room(4, false); got != 6 {
		t.Errorf("room with 4 incoming: %d, want 6", got)
	}
	if got := b.room(5, false); got != 0 {
		t.Errorf("room with 5 incoming: %d, want 0 until below half", got)
	}
	off := buffer{}
	if off.take(make([]id64.ID, 1), t0) || off.room(0, true) != 0 {
		t.Error("a buffer of size 0 holds IDs")
	}
}
