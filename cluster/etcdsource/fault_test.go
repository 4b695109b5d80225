package etcdsource_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/internal/faultproxy"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/etcd"
	"github.com/floeid/floe/workerid/workeridtest"
)

// Network faults between a holder and etcd: its client talks to each
// member through a fault proxy, while the next holder and an observer
// talk to etcd directly. Whatever the fault, the holder stops (Done
// closes) no later than its last successful renewal's send time plus the
// TTL, before etcd frees its worker ID, and reserves nothing more; the
// next holder starts at or above everything the first one reserved, and
// above a reservation whose result the first one never learned.
//
// A holder cannot see when its last successful renewal was sent, so the
// bounds are taken from the start of the fault: no renewal sent after it
// succeeds, except, while renewals only slow down, the next one, whose
// reply still arrives within the TTL of its send. Renewals that take more
// than half the TTL cannot keep a lease on send-time deadlines (the next
// one leaves after the reply), so the holder must lose it: a holder that
// dated its deadline from the reply would keep it for ever.
//
// The bounds' waits (the TTL, the renewal interval) are as configured; their
// work (slop, and the round trip and lateness in early) is stretched by the
// slowdown schedtest measured since the case began: as written on an idle
// machine.
func TestLease_Faults(t *testing.T) {
	ec := etcdtest.Start(t, 3)
	const (
		ttl   = 2 * time.Second
		renew = ttl / 3 // the interval of renewals and the default request timeout
		// slop is how late a holder's timer, the watch of its Done and the
		// Reserve's return may be under the race detector on an idle host,
		// stretched by the slowdown measured.
		slop = 250 * time.Millisecond
		// lateness is, beside one renewal interval, how long before the
		// fault the last renewal may have been sent: its round trip and
		// some lateness of its timer, on an idle host, stretched likewise.
		lateness = 300 * time.Millisecond
	)
	blackhole := func(p *faultproxy.Proxy) { p.Blackhole(true) }
	cut := func(dir faultproxy.Direction) func(p *faultproxy.Proxy) {
		return func(p *faultproxy.Proxy) { p.Cut(dir, true) }
	}
	delay := func(d time.Duration) func(p *faultproxy.Proxy) {
		return func(p *faultproxy.Proxy) { p.Delay(d) }
	}
	tests := []struct {
		name    string
		timeout time.Duration // Config.RequestTimeout; zero for TTL/3
		fault   func(p *faultproxy.Proxy)
		reserve bool // a Reserve above Reserved runs into the fault
		// Done closes no sooner than ttl - renew - lateness and no later
		// than within + slop after the fault starts (lateness and slop
		// stretched).
		within time.Duration
		landed bool // the Reserve run into the fault reaches etcd
	}{
		{name: "black hole", fault: blackhole, within: ttl},
		// A Reserve that gets no reply tries again, on another member,
		// until the lease's local deadline: the lease is lost then, not at
		// the first attempt without a reply.
		{name: "black hole during a reserve", fault: blackhole, reserve: true, within: ttl},
		{name: "requests cut during a reserve", fault: cut(faultproxy.ToTarget), reserve: true, within: ttl},
		{name: "replies cut during a reserve", fault: cut(faultproxy.ToClient), reserve: true, within: ttl, landed: true},
		// A round trip of 1.2 s, above TTL/2 and below TTL - TTL/3: a
		// holder dating its deadline from replies would keep its lease.
		{name: "renewals slower than half the TTL", timeout: ttl, fault: delay(600 * time.Millisecond), within: renew + ttl},
		{name: "renewals slower than the TTL", timeout: ttl, fault: delay(1100 * time.Millisecond), within: ttl},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := schedtest.Now()
			prefix := freshPrefix()
			direct := newClient(t, ec.Endpoints())
			ps, addrs := proxies(t, ec.Endpoints())
			srcA := newSource(t, newClient(t, addrs), etcd.Config{Prefix: prefix, IDs: 1, TTL: ttl, RequestTimeout: tt.timeout, Owner: "a"})
			// The next holder's requests get opTimeout, not TTL/3: how soon
			// it claims is bounded below, and a loaded machine's etcd took
			// longer than TTL/3 to grant its lease, which failed the claim.
			srcB := newSource(t, direct, etcd.Config{Prefix: prefix, IDs: 1, TTL: ttl, RequestTimeout: opTimeout, Owner: "b"})
			a := mustClaim(t, srcA)
			mustReserve(t, a, a.Floor()+1000)
			r := a.Reserved()
			freed := deletedWhileHeld(t, direct, ownerKey(prefix, a.ID()), a.Fence()+1, a)
			done := doneAt(a)

			for _, p := range ps {
				tt.fault(p)
			}
			start := time.Now()
			t.Cleanup(func() {
				for _, p := range ps {
					p.Heal()
				}
			})
			var tried uint64
			if tt.reserve {
				tried = r + 1000
				err := a.Reserve(context.Background(), tried)
				var lost *workerid.LeaseLostError
				if !errors.As(err, &lost) {
					t.Fatalf("Reserve into the fault: %v, want a *LeaseLostError", err)
				}
				t.Logf("Reserve into the fault returned after %v: %v", time.Since(start).Round(time.Millisecond), err)
				if got := a.Reserved(); got != r {
					t.Errorf("Reserved() = %d after a Reserve whose result is unknown, want %d", got, r)
				}
			}
			stopped := waitFor(t, done, tt.within+slop+5*time.Second, "the holder's Done")
			took := stopped.Sub(start)
			after, within := ttl-renew-m.Scale(lateness), m.Stretch(tt.within, slop)
			t.Logf("the holder stopped %v after the fault started: %v (bounds [%v, %v], slowdown %.2f)",
				took.Round(time.Millisecond), a.Err(), after.Round(time.Millisecond), within.Round(time.Millisecond), m.Slowdown())
			if took < after || took > within {
				t.Errorf("the holder stopped %v after the fault started, want within [%v, %v]", took, after, within)
			}
			workeridtest.WantLost(t, a, opTimeout)

			// Never over-trusted: etcd frees the worker ID (by the expiry of
			// the etcd lease, or the revocation the holder sends when it
			// stops) only after the holder stopped: when the deletion's
			// event arrives, the holder no longer holds (Done closed, or
			// its local deadline passed).
			var free deletion
			select {
			case free = <-freed:
			case <-time.After(ttl + 5*time.Second):
				t.Fatalf("the owner key's deletion: nothing within %v", ttl+5*time.Second)
			}
			t.Logf("etcd freed the worker ID %v after the holder stopped", free.at.Sub(stopped).Round(time.Millisecond))
			if free.held {
				t.Errorf("etcd freed the worker ID while the holder held it, %v before its local deadline", free.left)
			}

			mb := schedtest.Now()
			b, _ := workeridtest.ClaimUntil(t, srcB, func() time.Duration { return mb.Stretch(ttl, time.Second) }, opTimeout, transient)
			want := r
			if tt.landed {
				// The reservation reached etcd; its reply did not.
				want = tried
			}
			if got := b.Floor(); got != want || got < a.Reserved() {
				t.Errorf("next holder's Floor() = %d, want %d (the lost holder believed %d reserved)", got, want, a.Reserved())
			}
			if b.Fence() <= a.Fence() {
				t.Errorf("next holder's fence %d, not above the lost holder's %d", b.Fence(), a.Fence())
			}
			mustReserve(t, b, b.Floor()+1)
			if err := b.Release(ctxFor(t, 10*time.Second), 0); err != nil {
				t.Fatal(err)
			}
		})
	}
}
