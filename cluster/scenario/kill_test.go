//go:build unix

package scenario_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/schedtest"
)

// The holder of the only free worker ID is killed (SIGKILL, so it releases
// nothing): a standby serves that worker ID again within the TTL and a
// second, strictly above the dead holder's durable reservation.
func TestScenario_HolderKilled(t *testing.T) {
	const id = 3
	ec := etcdtest.Start(t, 1)
	ns := defineDefault(t, ec.Client(t), "killed")
	ns.holdAllBut(t, id)

	led := floedproc.NewLedger()
	a := floedproc.Start(t, bin, "a", etcdNode(ec.Endpoints(), "killed", "a")...)
	mustReady(t, a, 5*time.Second)
	b := floedproc.Start(t, bin, "b", etcdNode(ec.Endpoints(), "killed", "b")...)
	fa := startFeed(t, led, a, "a", feedOpts{})
	fb := startFeed(t, led, b, "b", feedOpts{})
	// Long enough for b's claim retries to back off to their longest, and
	// a random phase of them at the kill.
	time.Sleep(time.Second + rand.N(time.Second))
	if b.Ready() {
		t.Fatal("b is ready while a holds the only free worker ID")
	}

	a.Kill()
	killed := time.Now()
	takeover := boundFrom(schedtest.Now(), ttl+time.Second, ttl)
	r, last := ns.reservationOf(t, id, "a")
	first, ok := fb.waitServed("b", killed, 10*time.Second)
	if !ok {
		t.Fatalf("b issued nothing within 10 s of a's kill")
	}
	took := first.at.Sub(killed)
	t.Logf("worker ID %d served again by the standby %v after the kill (lease TTL %v)", id, took.Round(time.Millisecond), ttl)
	if ok, want := takeover.check(took); !ok {
		t.Errorf("worker ID %d served again %v after the kill, want within TTL + 1 s = %s", id, took, want)
	}
	time.Sleep(500 * time.Millisecond)
	fa.halt()
	fb.halt()

	_, aHi, aN := tickRange(fa.all("a"))
	bLo, _, bN := tickRange(fb.all("b"))
	if aN == 0 || bN == 0 {
		t.Fatalf("a issued %d IDs, b %d", aN, bN)
	}
	if last != 0 {
		t.Errorf("a killed left a last tick %d in its reservation, as if released", last)
	}
	if aHi > r {
		t.Errorf("a issued tick %d above its durable reservation %d", aHi, r)
	}
	if bLo <= r {
		t.Errorf("b's first tick %d is not above a's reservation %d", bLo, r)
	}
	for node, n := range nodes(fb.all("b")) {
		if node != id {
			t.Errorf("b issued %d IDs of worker ID %d, want %d", n, node, id)
		}
	}
	checkLedger(t, led)
}
