//go:build unix

package scenario_test

import (
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/faultproxy"
	"github.com/floeid/floe/internal/schedtest"
)

// A black hole between the holder and every etcd member (the holder talks
// to etcd through fault proxies): the holder goes not ready within the TTL,
// a standby takes its worker ID above its reservation, and once the
// network heals the holder claims again, another ID, and serves.
func TestScenario_Partition(t *testing.T) {
	const id, spare = 3, 7
	ec := etcdtest.Start(t, 3)
	ns := defineDefault(t, ec.Client(t), "partition")
	ns.holdAllBut(t, id)

	proxies, viaProxies := proxyAll(t, ec)
	led := floedproc.NewLedger()
	a := floedproc.Start(t, bin, "a", etcdNode(viaProxies, "partition", "a")...)
	mustReady(t, a, 5*time.Second)
	b := floedproc.Start(t, bin, "b", etcdNode(ec.Endpoints(), "partition", "b")...)
	fa := startFeed(t, led, a, "a", feedOpts{})
	fb := startFeed(t, led, b, "b", feedOpts{})
	time.Sleep(time.Second)

	for _, p := range proxies {
		p.Blackhole(true)
	}
	cut := time.Now()
	notReady, first, lastA := cutOff(t, a, fa, fb, "etcd", cut)
	t.Logf("partitioned from etcd, a was last seen ready %v after the cut and served a request sent last %v after it; b served worker ID %d %v after the cut: %v without it",
		notReady.Round(time.Millisecond), lastA.Sub(cut).Round(time.Millisecond), id,
		first.at.Sub(cut).Round(time.Millisecond), first.at.Sub(lastA).Round(time.Millisecond))
	if d := lastA.Sub(cut); d > ttl {
		t.Errorf("a served a request sent %v after it was cut off, longer than the TTL %v", d, ttl)
	}
	bFloor := claimedFloor(t, b)
	time.Sleep(time.Second)

	for _, p := range proxies {
		p.Heal()
	}
	healed := time.Now()
	back := boundFrom(schedtest.Now(), healBound, healWaits)
	ns.free(t, spare)
	again, ok := fa.waitServed("a", healed, 15*time.Second)
	if !ok {
		t.Fatalf("a issued nothing within 15 s of the heal, with worker ID %d free; /readyz: %v", spare, a.Ready())
	}
	t.Logf("a served again %v after the heal", again.at.Sub(healed).Round(time.Millisecond))
	if ok, want := back.check(again.at.Sub(healed)); !ok {
		t.Errorf("a served again %v after the heal, want within %s", again.at.Sub(healed), want)
	}
	time.Sleep(300 * time.Millisecond)
	fa.halt()
	fb.halt()

	if _, hi, n := tickRange(fa.received("a", time.Time{}, healed)); n == 0 || hi > bFloor {
		t.Errorf("a issued %d IDs before the heal, up to tick %d; want some, at most b's floor %d", n, hi, bFloor)
	}
	for node, n := range nodes(fa.received("a", healed, time.Time{})) {
		if node != spare {
			t.Errorf("a issued %d IDs of worker ID %d after the heal, want %d", n, node, spare)
		}
	}
	if lo, _, _ := tickRange(fb.all("b")); lo <= bFloor {
		t.Errorf("b issued tick %d, not above its floor %d", lo, bFloor)
	}
	checkLedger(t, led)
}

// proxyAll puts a fault proxy in front of every member of ec, for a node
// to reach etcd through, and returns them with their addresses. They
// close when the test ends.
func proxyAll(t *testing.T, ec *etcdtest.Cluster) ([]*faultproxy.Proxy, []string) {
	t.Helper()
	var proxies []*faultproxy.Proxy
	var addrs []string
	for _, ep := range ec.Endpoints() {
		p, err := faultproxy.Listen(ep)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		proxies = append(proxies, p)
		addrs = append(addrs, p.Addr())
	}
	return proxies, addrs
}

// cutOff waits for a, cut off from its coordinator (from) at cut, to go
// not ready within the TTL plus 1 s (no poll sent later sees it ready),
// and for b to serve within 10 s. It returns when the last poll that saw
// a ready was sent, from cut, b's first batch after the cut, and when the
// last request a answered (so far) was sent: a "stops by" check compares
// that with its deadline, since load may delay a reply, not a request.
func cutOff(t *testing.T, a *floedproc.Proc, fa, fb *feed, from string, cut time.Time) (notReady time.Duration, first batch, lastA time.Time) {
	t.Helper()
	notReady, ok := waitNotReady(a, cut, ttl+2*time.Second)
	if !ok || notReady > ttl+time.Second {
		t.Fatalf("a still answered ready to a poll sent %v after it was cut off from %s, want not ready within %v", notReady.Round(time.Millisecond), from, ttl+time.Second)
	}
	first, ok = fb.waitServed("b", cut, 10*time.Second)
	if !ok {
		t.Fatal("b issued nothing within 10 s of a's partition")
	}
	lastA, ok = fa.lastSent("a", time.Time{}, time.Time{})
	if !ok {
		t.Fatal("a issued nothing before the partition")
	}
	return notReady, first, lastA
}
