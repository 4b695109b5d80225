package client_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
)

// TestClient_PrefetchLateRefill: a refill's reply lands late, after a call
// has come for more IDs than the buffer holds. The refill's IDs were drawn
// before any the call can be given, so the call must not get newer IDs
// ahead of them: the IDs one goroutine receives increase throughout.
func TestClient_PrefetchLateRefill(t *testing.T) {
	release := make(chan struct{})
	var replies atomic.Int64
	s := newFake(t, fakeConfig{onReply: func(s *fakeServer, n int) {
		if replies.Add(1) == 2 { // the refill
			<-release
		}
	}})
	c := newClient(t, []string{s.Addr}, client.WithPrefetch(10, time.Hour))
	ctx := context.Background()
	var got []id64.ID
	next := func() {
		t.Helper()
		id, err := c.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, id)
	}
	// The first call asks for 11 IDs; the 7th leaves 4 of 10 buffered and
	// sends the refill; the 11th empties the buffer.
	for range 11 {
		next()
	}
	waitFor(t, "the refill's IDs to be drawn", func() bool { return replies.Load() == 2 })
	var done atomic.Bool
	var call sync.WaitGroup
	call.Go(func() {
		id, err := c.Next(ctx)
		if err != nil {
			t.Error(err)
		}
		got = append(got, id)
		done.Store(true)
	})
	waitFor(t, "the 12th call to queue or return", func() bool { return c.Queued() == 1 || done.Load() })
	close(release)
	call.Wait()
	waitFor(t, "the refill to land", func() bool { return c.Flights() == 0 })
	for range 10 {
		next()
	}
	if err := floetest.Increasing(got, id64.ID.Compare); err != nil {
		t.Errorf("one goroutine's IDs: %v\n%v", err, got)
	}
}

// TestClient_Order checks the order the client promises, against floed's
// server: when a call returns before another begins, in any goroutine,
// the later call's IDs are all greater. Goroutines mix Next and NextN of
// sizes from 1 to 1,000, with and without prefetch.
func TestClient_Order(t *testing.T) {
	tests := []struct {
		name string
		opts []client.Option
	}{
		{"batched", nil},
		{"pool of one", []client.Option{client.WithPoolSize(1)}},
		{"prefetch", []client.Option{client.WithPrefetch(64, time.Minute)}},
		{"prefetch pool of one", []client.Option{client.WithPrefetch(64, time.Minute), client.WithPoolSize(1)}},
		{"prefetch larger than a flight", []client.Option{client.WithPrefetch(5000, time.Minute)}},
	}
	addr := startFloed(t, 1, "")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, []string{addr}, tc.opts...)
			const workers, each = 8, 400
			var clock atomic.Int64 // orders the starts and ends of calls
			calls := make([][]orderedCall, workers)
			check := floetest.NewChecker[id64.ID](workers * each * 20)
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(w), 1))
					sizes := []int{1, 1, 1, 1, 5, 255, 300, 1000}
					buf := make([]id64.ID, 1000)
					for range each {
						ids := buf[:sizes[rng.IntN(len(sizes))]]
						start := clock.Add(1)
						var err error
						if len(ids) == 1 {
							ids[0], err = c.Next(context.Background())
						} else {
							_, err = c.NextN(context.Background(), ids)
						}
						end := clock.Add(1)
						if err != nil {
							t.Errorf("worker %d: %v", w, err)
							return
						}
						if err := floetest.Increasing(ids, id64.ID.Compare); err != nil {
							t.Errorf("worker %d, one call: %v", w, err)
						}
						check.Add(ids...)
						calls[w] = append(calls[w], orderedCall{start, end, ids[0], ids[len(ids)-1]})
					}
				})
			}
			wg.Wait()
			if err := check.Err(); err != nil {
				t.Error(err)
			}
			if err := callsInOrder(slices.Concat(calls...)); err != nil {
				t.Error(err)
			}
		})
	}
}

// orderedCall is one call of TestClient_Order: when it began and ended,
// and its lowest and highest ID.
type orderedCall struct {
	start, end int64
	lo, hi     id64.ID
}

// callsInOrder returns an error when a call's IDs are not all above those
// of every call that ended before it began.
func callsInOrder(calls []orderedCall) error {
	byEnd := slices.Clone(calls)
	slices.SortFunc(byEnd, func(a, b orderedCall) int { return int(a.end - b.end) })
	slices.SortFunc(calls, func(a, b orderedCall) int { return int(a.start - b.start) })
	var top orderedCall // the call with the highest ID among those ended
	i := 0
	for _, b := range calls {
		for ; i < len(byEnd) && byEnd[i].end < b.start; i++ {
			if byEnd[i].hi > top.hi {
				top = byEnd[i]
			}
		}
		if top.end > 0 && b.lo <= top.hi {
			return fmt.Errorf("a call that began at %d got %d, not above %d of a call that ended at %d", b.start, b.lo, top.hi, top.end)
		}
	}
	return nil
}
