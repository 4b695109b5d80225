package etcdsource_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/etcd"
	"github.com/floeid/floe/workerid/workeridtest"
)

// A holder that goes without a Release, as a killed process does (its
// network gone: the fault proxies between it and etcd close, then its
// client), keeps its worker ID until its etcd lease expires; another
// Source claims it within TTL + 1 s, starting at the gone holder's
// reservation. The gone holder has stopped: its client is closed.
//
// The proxies close first because a client closed alone still reaches
// etcd on its way out: the Source sees its watch end, ends the lease and
// revokes it, best effort, before the connections close, which frees the
// worker ID at once.
func TestLease_HolderGone(t *testing.T) {
	ec := etcdtest.Start(t, 3)
	for _, ttl := range []time.Duration{time.Second, 2 * time.Second} {
		t.Run("ttl "+ttl.String(), func(t *testing.T) {
			prefix := freshPrefix()
			ps, addrs := proxies(t, ec.Endpoints())
			cliA := newClient(t, addrs)
			srcA := newSource(t, cliA, etcd.Config{Prefix: prefix, IDs: 1, TTL: ttl, Owner: "a"})
			// The next holder's requests get opTimeout, not TTL/3: how soon
			// it claims is bounded below, and a loaded machine's etcd took
			// longer than TTL/3 to grant its lease, which failed the claim.
			srcB := newSource(t, newClient(t, ec.Endpoints()), etcd.Config{Prefix: prefix, IDs: 1, TTL: ttl, RequestTimeout: opTimeout, Owner: "b"})
			a := mustClaim(t, srcA)
			mustReserve(t, a, a.Floor()+1000)

			m := schedtest.Now()
			for _, p := range ps {
				p.Close()
			}
			cliA.Close()
			gone := time.Now()
			if _, err := srcB.Claim(ctxFor(t, 10*time.Second)); !errors.Is(err, workerid.ErrExhausted) {
				t.Fatalf("claim right after the holder went: %v, want ErrExhausted until its TTL runs out", err)
			}
			// The TTL is a wait; the second beyond it (etcd's expiry
			// check, the claim) is work, stretched by the slowdown.
			bound := func() time.Duration { return m.Stretch(ttl, time.Second) }
			b, _ := workeridtest.ClaimUntil(t, srcB, bound, opTimeout, transient)
			took := time.Since(gone)
			t.Logf("worker ID %d claimed again %v after its holder went (TTL %v)", b.ID(), took.Round(time.Millisecond), ttl)
			if took > bound() {
				t.Errorf("worker ID claimed again %v after its holder went, want within %v", took, bound())
			}
			if got, want := b.Floor(), a.Reserved(); got != want {
				t.Errorf("next holder's Floor() = %d, want the gone holder's reservation %d", got, want)
			}
			if b.Fence() <= a.Fence() {
				t.Errorf("next holder's fence %d, not above the gone holder's %d", b.Fence(), a.Fence())
			}
			// Its local deadline passed before etcd freed the ID; the TTL
			// more is the lateness allowed its timer: work, stretched.
			if _, ok := schedtest.Receive(a.Done(), time.Now(), func() time.Duration { return m.Stretch(0, ttl) }); !ok {
				t.Fatalf("the gone holder's Done not closed within its TTL %v (stretched: %v) after the claim", ttl, m.Stretch(0, ttl))
			}
			workeridtest.WantLost(t, a, opTimeout)
			mustReserve(t, b, b.Floor()+1)
			if err := b.Release(ctxFor(t, 10*time.Second), 0); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A held lease writes etcd once per reservation window: renewals and
// Reserves at or below Reserved leave the cluster's revision alone, and a
// Reserve above it advances the revision by exactly one, with the tick in
// the reservation key. The cluster is the test's own: nothing else writes.
func TestLease_OneWritePerWindow(t *testing.T) {
	ec := etcdtest.Start(t, 1)
	cli := newClient(t, ec.Endpoints())
	prefix := freshPrefix()
	const ttl = time.Second // renewals every TTL/3 while the test runs
	l := mustClaim(t, newSource(t, newClient(t, ec.Endpoints()), etcd.Config{Prefix: prefix, IDs: 1, TTL: ttl, Owner: "a"}))
	mustReserve(t, l, 1000)

	// state returns the cluster's revision and the reservation recorded.
	state := func(t *testing.T) (int64, uint64) {
		t.Helper()
		resp, err := cli.Get(ctxFor(t, 10*time.Second), reservedKey(prefix, l.ID()))
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Kvs) != 1 {
			t.Fatalf("reservation key: %d keys", len(resp.Kvs))
		}
		var rec struct {
			R uint64 `json:"r"`
		}
		if err := json.Unmarshal(resp.Kvs[0].Value, &rec); err != nil {
			t.Fatalf("reservation key %q: %v", resp.Kvs[0].Value, err)
		}
		return resp.Header.Revision, rec.R
	}

	tests := []struct {
		name   string
		tick   func(r uint64) uint64 // the tick reserved, from Reserved()
		writes int64                 // how far the revision moves
	}{
		{name: "zero", tick: func(uint64) uint64 { return 0 }},
		{name: "one", tick: func(uint64) uint64 { return 1 }},
		{name: "below reserved", tick: func(r uint64) uint64 { return r - 1 }},
		{name: "at reserved", tick: func(r uint64) uint64 { return r }},
		{name: "one above reserved", tick: func(r uint64) uint64 { return r + 1 }, writes: 1},
		{name: "at the new reservation", tick: func(r uint64) uint64 { return r }},
		{name: "a window above reserved", tick: func(r uint64) uint64 { return r + 1000 }, writes: 1},
		{name: "below the new reservation", tick: func(r uint64) uint64 { return r - 999 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rev, r := state(t)
			if got := l.Reserved(); got != r {
				t.Fatalf("Reserved() = %d, reservation key %d", got, r)
			}
			tick := tt.tick(r)
			want := max(r, tick)
			// Again and again for half the TTL, over a renewal or two,
			// which must not write either.
			for start := time.Now(); time.Since(start) < ttl/2; time.Sleep(5 * time.Millisecond) {
				if err := l.Reserve(ctxFor(t, 10*time.Second), tick); err != nil {
					t.Fatalf("Reserve(%d) with Reserved() %d: %v", tick, r, err)
				}
			}
			gotRev, gotR := state(t)
			if gotRev-rev != tt.writes {
				t.Errorf("Reserve(%d) with Reserved() %d: revision %d → %d, moved by %d, want %d", tick, r, rev, gotRev, gotRev-rev, tt.writes)
			}
			if gotR != want || l.Reserved() != want {
				t.Errorf("Reserve(%d) with Reserved() %d: reservation key %d, Reserved() %d; want %d", tick, r, gotR, l.Reserved(), want)
			}
		})
	}
	if err := l.Err(); err != nil {
		t.Fatalf("lease lost: %v", err)
	}
}
