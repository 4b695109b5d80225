//go:build unix

package scenario_test

import (
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/schedtest"
)

// The holder shuts down gracefully (SIGTERM): it records the last tick it
// issued and releases its worker ID, and a standby serves that ID at once,
// above that last tick rather than above the whole reservation.
func TestScenario_GracefulHandoff(t *testing.T) {
	const id = 3
	ec := etcdtest.Start(t, 1)
	ns := defineDefault(t, ec.Client(t), "handoff")
	ns.holdAllBut(t, id)

	led := floedproc.NewLedger()
	a := floedproc.Start(t, bin, "a", etcdNode(ec.Endpoints(), "handoff", "a")...)
	mustReady(t, a, 5*time.Second)
	b := floedproc.Start(t, bin, "b", etcdNode(ec.Endpoints(), "handoff", "b")...)
	fa := startFeed(t, led, a, "a", feedOpts{})
	fb := startFeed(t, led, b, "b", feedOpts{})
	time.Sleep(time.Second)

	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	handoff := boundFrom(schedtest.Now(), time.Second, standbyRetry)
	r, last := ns.reservationOf(t, id, "a")
	if !b.WaitReady(5*time.Second, true) {
		t.Fatal("b not ready within 5 s of a's clean stop")
	}
	readyIn := time.Since(stopped)
	first, ok := fb.waitServed("b", stopped, 5*time.Second)
	if !ok {
		t.Fatal("b issued nothing within 5 s of a's clean stop")
	}
	servedIn := first.at.Sub(stopped)
	t.Logf("after a's clean stop, b was ready in %v and served in %v (the release skipped %d ms of reservation)",
		readyIn.Round(time.Millisecond), servedIn.Round(time.Millisecond), r-last)
	if ok, want := handoff.check(servedIn); !ok {
		t.Errorf("b served %v after a's clean stop, want within %s", servedIn, want)
	}
	time.Sleep(300 * time.Millisecond)
	fa.halt()
	fb.halt()

	_, aHi, aN := tickRange(fa.all("a"))
	bLo, _, bN := tickRange(fb.all("b"))
	if aN == 0 || bN == 0 {
		t.Fatalf("a issued %d IDs, b %d", aN, bN)
	}
	switch {
	case last == 0:
		t.Errorf("a's clean stop recorded no last tick (reservation %d)", r)
	case last < aHi:
		t.Errorf("a's clean stop recorded last tick %d, below its last ID's tick %d", last, aHi)
	}
	if floor := claimedFloor(t, b); floor != last {
		t.Errorf("b claimed with floor %d, want a's last tick %d (its reservation was %d)", floor, last, r)
	}
	if bLo <= last {
		t.Errorf("b's first tick %d is not above a's last tick %d", bLo, last)
	}
	checkLedger(t, led)
}
