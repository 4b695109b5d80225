package etcdsource_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/etcd"
	"github.com/floeid/floe/workerid/workeridtest"
)

// etcd fails under held leases, on one three-member cluster: its leader
// stops, gracefully or by a crash, then two of the three members crash and
// come back. Each case restarts the members it stopped.
func TestLease_EtcdFailures(t *testing.T) {
	ec := etcdtest.Start(t, 3)
	const (
		ttl   = 2 * time.Second
		renew = ttl / 3 // the interval of renewals and the request timeout
		// slop is the work in a bound beyond the TTL on an idle host: it
		// is stretched by the slowdown schedtest measured (Mark.Stretch).
		slop = 250 * time.Millisecond
	)
	// restart starts the members again, if stopped, when the case ends,
	// and waits for a leader.
	restart := func(t *testing.T, ms ...*etcdtest.Member) {
		t.Cleanup(func() {
			for _, m := range ms {
				if !m.Running() {
					m.Restart(t)
				}
			}
			ec.WaitLeader(t)
		})
	}

	// The leader stops while a lease is held: the lease survives (it
	// reserves once there is a new leader) or, if lost, is reported lost;
	// never do two Sources hold the worker ID at once: a Source claims it
	// only once the holder's etcd lease is gone, and then the holder stops
	// by itself within the TTL and reserves nothing more.
	leaderTests := []struct {
		name string
		stop func(m *etcdtest.Member)
	}{
		{"leader stopped", (*etcdtest.Member).Stop},
		{"leader crashed", (*etcdtest.Member).Crash},
	}
	for _, tt := range leaderTests {
		t.Run(tt.name, func(t *testing.T) {
			m := schedtest.Now()
			prefix := freshPrefix()
			srcA := newSource(t, newClient(t, ec.Endpoints()), etcd.Config{Prefix: prefix, IDs: 1, TTL: ttl, Owner: "a"})
			// The next holder's requests get opTimeout, not TTL/3: how soon
			// it claims is bounded below, and a loaded machine's etcd took
			// longer than TTL/3 to grant its lease, which failed the claim.
			srcB := newSource(t, newClient(t, ec.Endpoints()), etcd.Config{Prefix: prefix, IDs: 1, TTL: ttl, RequestTimeout: opTimeout, Owner: "b"})
			a := mustClaim(t, srcA)
			mustReserve(t, a, a.Floor()+1000)

			leader := ec.WaitLeader(t)
			stopped := time.Now()
			tt.stop(leader)
			restart(t, leader)
			returned := time.Since(stopped)
			next := ec.WaitLeader(t)
			t.Logf("leader %s down (the stop returned after %v); %s led %v after the stop began",
				leader.Name, returned.Round(time.Millisecond), next.Name, time.Since(stopped).Round(time.Millisecond))

			err := a.Reserve(ctxFor(t, 10*time.Second), a.Reserved()+1000)
			var lost *workerid.LeaseLostError
			switch {
			case err == nil:
				t.Logf("the lease survived: it reserved %v after the leader went down", time.Since(stopped).Round(time.Millisecond))
			case errors.As(err, &lost):
				t.Logf("the lease was lost: %v", err)
			default:
				t.Fatalf("Reserve after the new leader: %v, want nil or a *LeaseLostError", err)
			}

			b, err := claimSettled(t, srcB, m)
			switch {
			case err == nil:
				// etcd freed the worker ID: the holder must stop by itself.
				t.Logf("another Source claimed the worker ID %v after the leader went down", time.Since(stopped).Round(time.Millisecond))
				bound := func() time.Duration { return m.Stretch(ttl, slop) }
				if _, ok := schedtest.Receive(a.Done(), time.Now(), bound); !ok {
					t.Fatalf("the holder still holds the worker ID %v after another Source claimed it", bound())
				}
				workeridtest.WantLost(t, a, opTimeout)
			default:
				// ErrExhausted: the holder's etcd lease stands. The holder
				// gives the worker ID back, or, lost, lets it expire.
				if held(a) {
					if err := a.Release(ctxFor(t, 10*time.Second), 0); err != nil && !errors.As(err, &lost) {
						t.Fatalf("Release: %v", err)
					}
				}
				b, _ = workeridtest.ClaimUntil(t, srcB, func() time.Duration { return m.Stretch(ttl, time.Second) }, opTimeout, transient)
				if err := a.Reserve(ctxFor(t, 10*time.Second), 1<<63); err == nil {
					t.Fatal("the first holder reserved after the next one claimed")
				}
			}
			if got := b.Floor(); got < a.Reserved() {
				t.Errorf("next holder's Floor() = %d, below the first holder's reservation %d", got, a.Reserved())
			}
			if b.Fence() <= a.Fence() {
				t.Errorf("next holder's fence %d, not above the first holder's %d", b.Fence(), a.Fence())
			}
			mustReserve(t, b, b.Floor()+1)
			if err := b.Release(ctxFor(t, 10*time.Second), 0); err != nil {
				t.Fatal(err)
			}
		})
	}

	// Two of the three members crash: a Reserve fails (it cannot commit,
	// so no other holder can start below it), an idle holder stops within
	// the TTL by its own deadline, and a claim fails. Once the members are
	// back, fresh claims take every worker ID again within TTL + 3 s, each
	// at or above its last holder's reservation.
	t.Run("quorum lost and restored", func(t *testing.T) {
		prefix := freshPrefix()
		cfg := func(owner string) etcd.Config {
			return etcd.Config{Prefix: prefix, IDs: 3, TTL: ttl, Owner: owner}
		}
		idle := mustClaim(t, newSource(t, newClient(t, ec.Endpoints()), cfg("idle")))
		mustReserve(t, idle, idle.Floor()+1000)
		busy := mustClaim(t, newSource(t, newClient(t, ec.Endpoints()), cfg("busy")))
		mustReserve(t, busy, busy.Floor()+2000)
		srcC := newSource(t, newClient(t, ec.Endpoints()), cfg("c"))
		idleDone := doneAt(idle)

		leader := ec.WaitLeader(t)
		down := []*etcdtest.Member{leader}
		for _, m := range ec.Members() {
			if m != leader && len(down) < 2 {
				down = append(down, m)
			}
		}
		mq := schedtest.Now()
		for _, m := range down {
			m.Crash()
		}
		lostAt := time.Now()
		restart(t, down...)

		// A Reserve tries again, on another member, until the lease's
		// local deadline; an error no attempt can mend (the member it
		// reached stopped) returns sooner, and leaves the lease to its
		// deadline.
		r := busy.Reserved()
		err := busy.Reserve(context.Background(), r+1000)
		took := time.Since(lostAt)
		if err == nil {
			t.Fatal("Reserve without a quorum succeeded")
		}
		t.Logf("Reserve without a quorum failed after %v: %v", took.Round(time.Millisecond), err)
		if bound := mq.Stretch(ttl, slop); took > bound {
			t.Errorf("Reserve without a quorum took %v, want within the TTL %v (+ %v)", took, ttl, bound-ttl)
		}
		if got := busy.Reserved(); got != r {
			t.Errorf("Reserved() = %d after a failed Reserve, want %d", got, r)
		}
		workeridtest.WantLost(t, busy, opTimeout)

		stopped := waitFor(t, idleDone, ttl+5*time.Second, "the idle holder's Done")
		t.Logf("the idle holder stopped %v after the quorum was lost: %v", stopped.Sub(lostAt).Round(time.Millisecond), idle.Err())
		if d, bound := stopped.Sub(lostAt), mq.Stretch(ttl, slop); d > bound {
			t.Errorf("the idle holder stopped %v after the quorum was lost, want within %v", d, bound)
		}
		workeridtest.WantLost(t, idle, opTimeout)
		if l, err := srcC.Claim(ctxFor(t, 10*time.Second)); err == nil {
			t.Fatalf("claimed worker ID %d without a quorum", l.ID())
		}

		for _, m := range down {
			m.Restart(t)
		}
		ec.WaitLeader(t)
		restored := time.Now()
		mr := schedtest.Now()
		// A revocation the lost holders sent without a quorum may still
		// commit once it is back (a proposal's fate is unknown), and so may
		// the failed Reserve: their worker IDs are free at once or when
		// their etcd leases expire, and the floors are at or above the
		// reservations.
		bound := map[int]uint64{idle.ID(): idle.Reserved(), busy.ID(): busy.Reserved()}
		claimed := make(map[int]bool)
		// The claims after the restore give each request opTimeout, not
		// TTL/3: the members just restored may take longer than that to
		// grant a lease on a loaded machine, and what is checked is that
		// every worker ID is claimed again in the bound, at its floor.
		restoredCfg := cfg("d")
		restoredCfg.RequestTimeout = opTimeout
		srcD := newSource(t, newClient(t, ec.Endpoints()), restoredCfg)
		for range cfg("").IDs {
			l, _ := workeridtest.ClaimUntil(t, srcD, func() time.Duration { return mr.Stretch(ttl, 3*time.Second) }, opTimeout, transient)
			if claimed[l.ID()] {
				t.Fatalf("claimed worker ID %d twice", l.ID())
			}
			claimed[l.ID()] = true
			want := bound[l.ID()]
			t.Logf("claimed worker ID %d %v after the restore: floor %d, its last holder reserved %d",
				l.ID(), time.Since(restored).Round(time.Millisecond), l.Floor(), want)
			if l.Floor() < want {
				t.Errorf("worker ID %d: Floor() = %d, below its lost holder's reservation %d", l.ID(), l.Floor(), want)
			}
			mustReserve(t, l, l.Floor()+1)
		}
	})
}

// claimSettled claims from src and returns the lease or an error wrapping
// workerid.ErrExhausted. Other errors, which a member that is going down
// may return for a while (a request it took when it stopped, a request
// timeout), make it try again every 20 ms, for up to 5 s on an idle
// host: the new leader's election and the old one's way out are work, so
// the 5 s are stretched by the slowdown measured since m.
func claimSettled(t *testing.T, src workerid.Source, m schedtest.Mark) (workerid.Lease, error) {
	t.Helper()
	start := time.Now()
	for {
		l, err := src.Claim(ctxFor(t, 10*time.Second))
		if err == nil || errors.Is(err, workerid.ErrExhausted) {
			return l, err
		}
		if took, bound := time.Since(start), m.Stretch(0, 5*time.Second); took > bound {
			t.Fatalf("Claim after the leader went down, for %v (bound %v): %v", took, bound, err)
		}
		t.Logf("Claim after the leader went down: %v; trying again", err)
		time.Sleep(20 * time.Millisecond)
	}
}
