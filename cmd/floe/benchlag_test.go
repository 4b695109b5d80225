package main

import (
	"testing"
	"time"

	"github.com/floeid/floe/id64"
)

func TestBenchLag(t *testing.T) {
	l := id64.Twitter
	sent := l.Epoch.Add(1000 * time.Millisecond) // tick 1000
	at := func(ticks ...uint64) []uint64 {
		var ids []uint64
		for i, tick := range ticks {
			id, err := l.Compose(id64.Parts{Tick: tick, Sequence: uint64(i)})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, uint64(id))
		}
		return ids
	}
	tests := []struct {
		name                   string
		replies                [][]uint64
		wantMin, wantP50       int64
		wantP99, wantMax       int64
		wantStale, wantCounted uint64
	}{
		{"in the tick of the send", [][]uint64{at(1000, 1000, 1000)}, 0, 0, 0, 0, 0, 3},
		{"after the send", [][]uint64{at(1001, 1003)}, -3, -3, -1, -1, 0, 2},
		{"before the send", [][]uint64{at(996, 1000, 1000, 1000)}, 0, 0, 4, 4, 1, 4},
		{"far before, clamped but exact at the ends", [][]uint64{at(1), at(1000)}, 0, 0, 999, 999, 1, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Each reply on a connection of its own, merged as a run does.
			var all benchLag
			for _, ids := range tc.replies {
				var h benchLag
				h.record(l, ids, sent)
				all.merge(&h)
			}
			got := []int64{all.min, all.quantile(500), all.quantile(990), all.max}
			want := []int64{tc.wantMin, tc.wantP50, tc.wantP99, tc.wantMax}
			if got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
				t.Errorf("min, p50, p99, max = %v, want %v", got, want)
			}
			if all.stale != tc.wantStale || all.n != tc.wantCounted {
				t.Errorf("stale %d of %d, want %d of %d", all.stale, all.n, tc.wantStale, tc.wantCounted)
			}
		})
	}
}

// TestBench_TimeLagOfAServer runs floe bench against the real server: no ID
// may name a tick before its request was sent.
func TestBench_TimeLagOfAServer(t *testing.T) {
	n := startAdminNode(t, "")
	for _, args := range [][]string{
		{"-c", "1", "-b", "1", "-d", "300ms"},
		{"-c", "4", "-b", "255", "-pipeline", "4", "-d", "300ms"},
	} {
		code, got, stderr := benchRunJSON(t, n.bin, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		if got.StaleIDs != 0 || got.TimeLag.Max > 0 {
			t.Errorf("%q: %d of %d IDs name a tick before their request's send (lag %+v ticks)", args, got.StaleIDs, got.IDs, got.TimeLag)
		}
		if got.TickSeconds != 0.001 {
			t.Errorf("%q: tick %vs, want the Twitter layout's 0.001", args, got.TickSeconds)
		}
	}
}
