//go:build unix

package scenario_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/schedtest"
)

// A named sequence destroyed and created again, through the admin API of
// one member, while the other member that serves it is cut off from the
// API server (a black hole through its own fault proxy): the cut-off
// member cannot hear of the destroy, and serves the old generation until
// its lease's deadline, while the other serves the new generation at
// once. The destroy tombstones the cut-off member's Lease with the
// reservation it holds, and records the highest as the old generation's
// retired tick: the new generation starts above it, so the two overlap in
// time without repeating an ID. Once healed, the cut-off member finds its
// generation gone and stops for good.
func TestKube_RecreateWhilePartitioned(t *testing.T) {
	const seq = "orders"
	k := startKube(t, "recreate")
	viaProxy, proxy := k.proxied(t)
	a := floedproc.StartEnv(t, bin, "a", adminEnv, k.kubeNode(viaProxy, "a")...)
	b := floedproc.StartEnv(t, bin, "b", adminEnv, k.kubeNode(k.kubeconfig(t), "b")...)
	mustReady(t, a, 10*time.Second)
	mustReady(t, b, 10*time.Second)
	admin := func(p *floedproc.Proc, method, path, body string, want int) {
		t.Helper()
		if code, resp, err := p.Do(method, path, body); err != nil || code != want {
			t.Fatalf("%s: %s %s %s: %d %s %v, want %d", p.Name, method, path, body, code, resp, err, want)
		}
	}
	def := `{"name":"orders","format":"id64","layout":"twitter"}`
	admin(b, "POST", "/v1/admin/sequences", def, http.StatusCreated)
	admin(a, "POST", "/v1/admin/sequences/orders/attach", "", http.StatusAccepted)
	if !floedproc.WaitFor(5*time.Second, func() bool { return adminSeq(t, a, seq).Ready }) {
		t.Fatalf("a does not serve orders: %+v", adminSeq(t, a, seq))
	}
	oldGen := adminSeq(t, a, seq).Gen

	// a serves the old generation throughout, as fast as it can.
	led := floedproc.NewLedger()
	var mu sync.Mutex
	var oldTicks []uint64 // ticks a issued after the destroy
	var aBatches []batch
	var destroyed time.Time
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			sent := time.Now()
			ids, code := httpIDs(t, a, seq, 10)
			if code != http.StatusOK {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			led.Add("a", ids...)
			mu.Lock()
			aBatches = append(aBatches, batch{who: "a", sent: sent, at: time.Now(), ids: ids})
			if !destroyed.IsZero() {
				for _, id := range ids {
					oldTicks = append(oldTicks, id64.Twitter.Parts(id64.ID(id)).Tick)
				}
			}
			mu.Unlock()
		}
	})
	time.Sleep(300 * time.Millisecond)

	proxy.Blackhole(true)
	cut := time.Now()
	admin(b, "DELETE", "/v1/admin/sequences/orders", "", http.StatusNoContent)
	mu.Lock()
	destroyed = time.Now()
	mu.Unlock()
	t.Logf("b destroyed orders %v after a was cut off", destroyed.Sub(cut).Round(time.Millisecond))
	admin(b, "POST", "/v1/admin/sequences", def, http.StatusCreated)
	admin(b, "POST", "/v1/admin/sequences/orders/attach", "", http.StatusAccepted)

	// b serves the new generation while a, unaware, serves the old one.
	var newTicks []uint64
	var bBatches []batch
	for time.Since(destroyed) < ttl+window {
		sent := time.Now()
		ids, code := httpIDs(t, b, seq, 10)
		if code == http.StatusOK {
			led.Add("b", ids...)
			bBatches = append(bBatches, batch{who: "b", sent: sent, at: time.Now(), ids: ids})
			for _, id := range ids {
				newTicks = append(newTicks, id64.Twitter.Parts(id64.ID(id)).Tick)
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	mu.Lock()
	// When a's last request was sent: load may delay its reply, not
	// when a issued it.
	lastA := aBatches[len(aBatches)-1].sent
	mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cur, err := k.catalog(t, k.rc).Get(ctx, seq)
	if err != nil {
		t.Fatal(err)
	}
	proxy.Heal()

	oldHi, newLo := generationBounds(t, oldTicks, newTicks)
	start := id64.Twitter.TickTime(0)
	t.Logf("after the destroy, a served %d IDs of generation %d up to %v, the last %v after it was cut off; b served %d of generation %d from %v; the retired tick of generation %d was %v after the destroy",
		len(oldTicks), oldGen, start.Add(time.Duration(oldHi)*time.Millisecond).Sub(destroyed).Round(time.Millisecond), lastA.Sub(cut).Round(time.Millisecond),
		len(newTicks), cur.Gen, start.Add(time.Duration(newLo)*time.Millisecond).Sub(destroyed).Round(time.Millisecond),
		cur.Retired.Gen, start.Add(time.Duration(cur.Retired.Tick)*time.Millisecond).Sub(destroyed).Round(time.Millisecond))
	if cur.Gen <= oldGen || cur.Retired.Gen != oldGen {
		t.Errorf("after the re-create: generation %d, retired %d; want a generation above %d, which retired", cur.Gen, cur.Retired.Gen, oldGen)
	}
	if oldHi > cur.Retired.Tick {
		t.Errorf("the old generation issued tick %d after the destroy, above its retired tick %d", oldHi, cur.Retired.Tick)
	}
	if newLo <= cur.Retired.Tick {
		t.Errorf("the new generation issued tick %d, at or below the old one's retired tick %d", newLo, cur.Retired.Tick)
	}
	if d := lastA.Sub(cut); d > ttl+kubeStopSlop {
		t.Errorf("a served a request sent %v after it was cut off, longer than the TTL %v", d, ttl)
	}

	// Healed, a reads that its generation is gone and stops serving it.
	// By the last poll sent that still found it serving, against the
	// bound stretched by the load since the heal.
	healed := time.Now()
	left := boundFrom(schedtest.Now(), healBound+time.Second, healWaits)
	held, _ := waitEnd(healed, 30*time.Second, func() (bool, bool) {
		s := adminSeq(t, a, seq)
		return true, s.Gen == oldGen && s.Ready
	})
	if ok, want := left.check(held); !ok {
		t.Errorf("a still served generation %d to a poll sent %v after the heal, want not after %s: %+v", oldGen, held.Round(time.Millisecond), want, adminSeq(t, a, seq))
	}
	t.Logf("a left generation %d %v after the heal: %+v", oldGen, time.Since(healed).Round(time.Millisecond), adminSeq(t, a, seq))
	checkStamps(t, append(aBatches, bBatches...))
	checkLedger(t, led)
}
