package etcdsource_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/etcd"
)

// 64 Sources, each a host with a client of its own, race to claim in a
// namespace of 64 worker IDs on three etcd members: every claim succeeds
// with a worker ID of its own, every lease is still held afterwards (it
// reserves), and a 65th claimer finds the namespace exhausted.
func TestSource_Claimers64(t *testing.T) {
	t.Parallel()
	const n = 64
	ec := etcdtest.Start(t, 3)
	prefix := freshPrefix()
	srcs := make([]*etcd.Source, n+1)
	var wg sync.WaitGroup
	for i := range srcs {
		cli := newClient(t, ec.Endpoints())
		// TTL 30 s: a lease outlives the race under the race detector on a
		// loaded machine. RequestTimeout 20 s, where TTL/3 is the default:
		// the test checks that every claim gets an ID of its own, not how
		// soon, and 64 claims at once under load took longer than 3.3 s
		// (TTL 10 s / 3) to read the held IDs.
		srcs[i] = newSource(t, cli, etcd.Config{Prefix: prefix, IDs: n, TTL: 30 * time.Second, RequestTimeout: 20 * time.Second, Owner: fmt.Sprintf("host-%d", i)})
		// Connect before the race, so that it times the claims alone.
		wg.Go(func() {
			// A minute: 64 clients connecting at once on a loaded
			// machine took longer than 10 s; the race is what is timed.
			if _, err := cli.Get(ctxFor(t, time.Minute), prefix); err != nil {
				t.Errorf("client %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	leases := make([]workerid.Lease, n)
	errs := make([]error, n)
	took := make([]time.Duration, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			began := time.Now()
			leases[i], errs[i] = srcs[i].Claim(ctxFor(t, 30*time.Second))
			took[i] = time.Since(began)
		})
	}
	began := time.Now()
	close(start)
	wg.Wait()
	race := time.Since(began)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, l := range leases {
			if l != nil {
				l.Release(ctx, 0)
			}
		}
	})
	slowest := time.Duration(0)
	for _, d := range took {
		slowest = max(slowest, d)
	}
	t.Logf("%d claimers on %d worker IDs: all claims returned %v after the start; the slowest took %v",
		n, n, race.Round(time.Millisecond), slowest.Round(time.Millisecond))

	holder := make(map[int]int) // worker ID → claimer
	for i, err := range errs {
		if err != nil {
			t.Errorf("claimer %d: %v", i, err)
			continue
		}
		id := leases[i].ID()
		if other, ok := holder[id]; ok {
			t.Errorf("worker ID %d claimed by claimers %d and %d", id, other, i)
		}
		holder[id] = i
		if id < 0 || id >= n {
			t.Errorf("claimer %d: worker ID %d outside 0..%d", i, id, n-1)
		}
	}
	if got := len(holder); got != n {
		t.Fatalf("%d claimers hold %d distinct worker IDs, want %d", n, got, n)
	}
	for i, l := range leases {
		wg.Go(func() {
			if err := l.Reserve(ctxFor(t, 10*time.Second), l.Floor()+1000); err != nil {
				t.Errorf("claimer %d, worker ID %d: Reserve after the race: %v", i, l.ID(), err)
			}
			if err := l.Err(); err != nil {
				t.Errorf("claimer %d, worker ID %d: Err() = %v on a held lease", i, l.ID(), err)
			}
		})
	}
	wg.Wait()

	l, err := srcs[n].Claim(ctxFor(t, 10*time.Second))
	if !errors.Is(err, workerid.ErrExhausted) {
		id := -1
		if l != nil {
			id = l.ID()
		}
		t.Fatalf("claim %d of %d worker IDs: worker ID %d, err %v; want ErrExhausted", n+1, n, id, err)
	}
}
