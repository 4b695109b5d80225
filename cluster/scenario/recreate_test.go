//go:build unix

package scenario_test

import (
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/id64"
)

// A named sequence destroyed and created again while a member that serves
// it is cut off from etcd: the cut-off member cannot hear of the destroy
// and serves the old generation until its lease's deadline, while the
// other member serves the new generation at once. The new generation
// starts above every tick the old one reserved, so the two overlap in
// time without repeating an ID.
func TestScenario_RecreateWhilePartitioned(t *testing.T) {
	const seq = "orders"
	ec := etcdtest.Start(t, 3)
	proxies, viaProxies := proxyAll(t, ec)
	a := floedproc.StartEnv(t, bin, "a", adminEnv, etcdNode(viaProxies, "recreate", "a")...)
	b := floedproc.StartEnv(t, bin, "b", adminEnv, etcdNode(ec.Endpoints(), "recreate", "b")...)
	mustReady(t, a, 5*time.Second)
	mustReady(t, b, 5*time.Second)
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

	// a serves the old generation throughout, as fast as it can.
	led := floedproc.NewLedger()
	var mu sync.Mutex
	var oldTicks []uint64 // ticks a issued after the destroy
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
			ids, code := httpIDs(t, a, seq, 10)
			if code != http.StatusOK {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			led.Add("a", ids...)
			mu.Lock()
			if !destroyed.IsZero() {
				for _, id := range ids {
					oldTicks = append(oldTicks, id64.Twitter.Parts(id64.ID(id)).Tick)
				}
			}
			mu.Unlock()
		}
	})
	time.Sleep(300 * time.Millisecond)

	for _, p := range proxies {
		p.Blackhole(true)
	}
	admin(b, "DELETE", "/v1/admin/sequences/orders", "", http.StatusNoContent)
	mu.Lock()
	destroyed = time.Now()
	mu.Unlock()
	admin(b, "POST", "/v1/admin/sequences", def, http.StatusCreated)
	admin(b, "POST", "/v1/admin/sequences/orders/attach", "", http.StatusAccepted)

	// b serves the new generation while a, unaware, serves the old one.
	var newTicks []uint64
	for time.Since(destroyed) < ttl+window {
		ids, code := httpIDs(t, b, seq, 10)
		if code == http.StatusOK {
			led.Add("b", ids...)
			for _, id := range ids {
				newTicks = append(newTicks, id64.Twitter.Parts(id64.ID(id)).Tick)
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	for _, p := range proxies {
		p.Heal()
	}

	oldHi, newLo := generationBounds(t, oldTicks, newTicks)
	start := id64.Twitter.TickTime(0)
	t.Logf("after the destroy, a served %d IDs of the old generation up to %v; b served %d of the new one from %v",
		len(oldTicks), start.Add(time.Duration(oldHi)*time.Millisecond).Sub(destroyed).Round(time.Millisecond),
		len(newTicks), start.Add(time.Duration(newLo)*time.Millisecond).Sub(destroyed).Round(time.Millisecond))
	if newLo <= oldHi {
		t.Errorf("the new generation issued tick %d, at or below tick %d the old one issued after the destroy", newLo, oldHi)
	}
	if err := led.Err(); err != nil {
		t.Error(err)
	}
}

// generationBounds returns the highest tick the old generation issued after
// the destroy and the lowest the new one issued, and fails the test when
// either issued nothing: then the scenario shows no overlap.
func generationBounds(t *testing.T, oldTicks, newTicks []uint64) (oldHi, newLo uint64) {
	t.Helper()
	if len(oldTicks) == 0 {
		t.Fatal("a issued nothing of the old generation after the destroy: the scenario shows no overlap")
	}
	if len(newTicks) == 0 {
		t.Fatalf("b issued nothing of the new generation within %v of the destroy", ttl+window)
	}
	return slices.Max(oldTicks), slices.Min(newTicks)
}
