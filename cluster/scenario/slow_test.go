//go:build unix

package scenario_test

import (
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/faultproxy"
)

// The holder's etcd traffic is slowed past the TTL, or its replies are cut
// while its requests (reservations, keepalives) still reach etcd: either
// way it stops issuing within the TTL of the fault, though etcd may have
// applied writes it never saw, and whoever holds its worker ID next starts
// above every tick it issued. Once the network heals it serves again.
func TestScenario_SlowAndOneWay(t *testing.T) {
	tests := []struct {
		name  string
		fault func(p *faultproxy.Proxy)
	}{
		// A round trip of 1.5 TTL: every reply arrives after the deadline
		// of the renewal it answers.
		{"replies delayed past the TTL", func(p *faultproxy.Proxy) { p.Delay(ttl * 3 / 4) }},
		{"one-way cut of the replies", func(p *faultproxy.Proxy) { p.Cut(faultproxy.ToClient, true) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const id, spare = 3, 7
			ec := etcdtest.Start(t, 3)
			ns := defineDefault(t, ec.Client(t), "slow")
			ns.holdAllBut(t, id)

			proxies, viaProxies := proxyAll(t, ec)
			led := floedproc.NewLedger()
			a := floedproc.Start(t, bin, "a", etcdNode(viaProxies, "slow", "a")...)
			mustReady(t, a, 5*time.Second)
			b := floedproc.Start(t, bin, "b", etcdNode(ec.Endpoints(), "slow", "b")...)
			fa := startFeed(t, led, a, "a", feedOpts{})
			fb := startFeed(t, led, b, "b", feedOpts{})
			time.Sleep(time.Second)

			for _, p := range proxies {
				tt.fault(p)
			}
			fault := time.Now()
			notReady, ok := waitNotReady(a, fault, ttl+2*time.Second)
			if !ok || notReady > ttl+time.Second {
				t.Fatalf("a still answered ready to a poll sent %v after the fault, want not ready within %v", notReady.Round(time.Millisecond), ttl+time.Second)
			}
			// Give b its chance at the worker ID, should a's etcd lease
			// end, then heal.
			time.Sleep(ttl + time.Second)
			before := fa.received("a", time.Time{}, time.Now())
			if len(before) == 0 {
				t.Fatal("a issued nothing before the fault")
			}
			// When a's last answered request was sent: load may delay a
			// reply, not when it was asked for.
			lastA, _ := fa.lastSent("a", time.Time{}, time.Time{})
			t.Logf("a was last seen ready %v after the fault and served a request sent last %v after it",
				notReady.Round(time.Millisecond), lastA.Sub(fault).Round(time.Millisecond))
			if d := lastA.Sub(fault); d > ttl {
				t.Errorf("a served a request sent %v after the fault, longer than the TTL %v", d, ttl)
			}
			_, aHi, _ := tickRange(before)
			if bs := fb.all("b"); len(bs) > 0 {
				lo, _, n := tickRange(bs)
				t.Logf("b took worker ID %d %v after the fault and issued %d IDs", id, bs[0].at.Sub(fault).Round(time.Millisecond), n)
				if lo <= aHi {
					t.Errorf("b issued tick %d, not above a's last tick %d", lo, aHi)
				}
			} else {
				t.Logf("b did not take worker ID %d: a's etcd lease outlived the fault's first %v", id, ttl+time.Second)
			}

			for _, p := range proxies {
				p.Heal()
				// Replies held back by the delay are stale: drop them.
				p.Reset()
			}
			healed := time.Now()
			ns.free(t, spare)
			again, ok := fa.waitServed("a", healed, 15*time.Second)
			if !ok {
				t.Fatalf("a issued nothing within 15 s of the heal, with worker ID %d free; /readyz: %v", spare, a.Ready())
			}
			t.Logf("a served again %v after the heal", again.at.Sub(healed).Round(time.Millisecond))
			time.Sleep(300 * time.Millisecond)
			fa.halt()
			fb.halt()
			// Whoever held worker ID id after the fault started above a.
			aboveAfterFault(t, id, aHi, fa.received("a", healed, time.Time{}), fb.all("b"))
			checkLedger(t, led)
		})
	}
}
