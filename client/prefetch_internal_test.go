package client

import (
	"slices"
	"testing"
	"time"

	"github.com/floeid/floe/id64"
)

// TestBuffer takes IDs across batches, drops stale batches wherever they
// sit (the request of a batch that came later may have gone out earlier,
// as in a failover) and drops IDs that are not above those before them.
func TestBuffer(t *testing.T) {
	const t0 = time.Hour // a reading of Client.clock
	b := buffer{size: 10, validity: time.Second}
	b.push([]id64.ID{10, 11}, t0+500*time.Millisecond)
	b.push([]id64.ID{1, 2, 3}, t0)    // below what is buffered
	b.push([]id64.ID{11, 12, 13}, t0) // sent earlier, came later; 11 is buffered
	b.push([]id64.ID{20, 21}, t0+900*time.Millisecond)
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
		{"across batches", 0, 3, []id64.ID{10, 11, 12}, 3, 7, 7},
		{"the batch sent first goes stale", time.Second, 3, nil, 2, 8, 8},
		{"what is left", time.Second, 2, []id64.ID{20, 21}, 0, 10, 10},
		{"empty", time.Second, 1, nil, 0, 10, 10},
	}
	for _, tc := range tests {
		dst := make([]id64.ID, tc.n)
		ok := b.take(dst, t0+tc.at)
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

// TestBuffer_Floor: the buffer hands out only IDs above every ID handed
// out before, from it or not (raise).
func TestBuffer_Floor(t *testing.T) {
	const t0 = time.Hour
	b := buffer{size: 100, validity: time.Second}
	steps := []struct {
		name  string
		push  []id64.ID
		raise id64.ID
		take  int
		want  []id64.ID // the buffer's IDs after the step
	}{
		{"push", []id64.ID{30, 31}, 0, 0, []id64.ID{30, 31}},
		{"push more", []id64.ID{32, 33, 34, 35}, 0, 0, []id64.ID{30, 31, 32, 33, 34, 35}},
		{"raise into the second batch", nil, 32, 0, []id64.ID{33, 34, 35}},
		{"raise below the floor", nil, 10, 0, []id64.ID{33, 34, 35}},
		{"push across what is buffered", []id64.ID{31, 35, 40}, 0, 0, []id64.ID{33, 34, 35, 40}},
		{"take", nil, 0, 2, []id64.ID{35, 40}},
		{"raise past all", nil, 50, 0, nil},
		{"push below the floor", []id64.ID{41, 49, 50}, 0, 0, nil},
		{"push above", []id64.ID{49, 51}, 0, 0, []id64.ID{51}},
		{"take all", nil, 0, 1, nil},
		{"push below what was taken", []id64.ID{50, 51}, 0, 0, nil},
	}
	for _, st := range steps {
		b.push(st.push, t0)
		b.raise(st.raise)
		if st.take > 0 && !b.take(make([]id64.ID, st.take), t0) {
			t.Fatalf("%s: take %d failed", st.name, st.take)
		}
		var got []id64.ID
		for _, ch := range b.chunks {
			got = append(got, ch.ids...)
		}
		if !slices.Equal(got, st.want) || b.n != len(st.want) {
			t.Fatalf("%s: buffer %v (n %d), want %v", st.name, got, b.n, st.want)
		}
	}
}
