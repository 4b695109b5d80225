//go:build unix

package scenario_test

import (
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
)

// A node restarts as the same owner, on the same worker ID (the only one
// free), with its clock stepped back: by less than the reservation window
// after a clean stop, by more than it after a kill. With policy wait it is
// not ready until its clock passes the floor (the last tick of the clean
// release, or the dead holder's reservation), and every ID it issues after
// the restart is above that floor.
func TestScenario_ClockSteppedBack(t *testing.T) {
	t.Run("clean stop, 500ms back", func(t *testing.T) { clockSteppedBack(t, false, -500*time.Millisecond) })
	t.Run("kill, 5s back", func(t *testing.T) { clockSteppedBack(t, true, -5*time.Second) })
}

func clockSteppedBack(t *testing.T, kill bool, offset time.Duration) {
	const id = 3
	ec := etcdtest.Start(t, 1)
	ns := defineDefault(t, ec.Client(t), "clock")
	ns.holdAllBut(t, id)

	led := floedproc.NewLedger()
	a := floedproc.Start(t, bin, "a", etcdNode(ec.Endpoints(), "clock", "a")...)
	mustReady(t, a, 5*time.Second)
	// a' runs with its clock behind: its IDs are stamped before their
	// requests by design, so only a's are checked (at the end).
	f := startFeed(t, led, a, "a", feedOpts{clockBehind: true})
	time.Sleep(time.Second)

	if kill {
		a.Kill()
	} else if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	r, last := ns.reservation(t, id)
	floor := r
	if !kill {
		if last == 0 {
			t.Fatalf("a's clean stop recorded no last tick (reservation %d)", r)
		}
		floor = last
	}
	restarted := time.Now()
	a2 := a.Restart("--clock-offset=" + offset.String())
	startedIn := time.Since(restarted)
	f.point(a2, "a'")
	// Ready once its shifted clock passes the floor: when the test's clock
	// reads the floor's next tick minus the offset.
	due := tickTime(floor + 1).Add(-offset)
	var readyAt time.Time
	if a2.WaitReady(time.Until(due)+3*ttl, true) {
		readyAt = time.Now()
	} else {
		t.Fatalf("a' not ready %v after its clock passed the floor", 3*ttl)
	}
	t.Logf("clock %v: a' started %v after a's %s and was ready %v after it (%v after its clock passed the floor %d)",
		offset, startedIn.Round(time.Millisecond), map[bool]string{true: "kill", false: "clean stop"}[kill],
		readyAt.Sub(restarted).Round(time.Millisecond), readyAt.Sub(due).Round(time.Millisecond), floor)
	// A poll answers 10 ms late at most; ready a little early means the
	// node ignored the floor.
	if readyAt.Before(due.Add(-5 * time.Millisecond)) {
		t.Errorf("a' ready %v before its clock passed the floor %d", due.Sub(readyAt), floor)
	}
	if _, ok := f.waitServed("a'", restarted, 3*time.Second); !ok {
		t.Fatal("a' issued nothing within 3 s of being ready")
	}
	time.Sleep(300 * time.Millisecond)
	f.halt()

	_, aHi, aN := tickRange(f.all("a"))
	lo, _, n := tickRange(f.all("a'"))
	if aN == 0 || n == 0 {
		t.Fatalf("a issued %d IDs, a' %d", aN, n)
	}
	if lo <= floor || lo <= aHi {
		t.Errorf("a' issued tick %d, not above the floor %d and a's last tick %d", lo, floor, aHi)
	}
	for node, n := range nodes(f.all("a'")) {
		if node != id {
			t.Errorf("a' issued %d IDs of worker ID %d, want %d", n, node, id)
		}
	}
	checkStamps(t, f.all("a"))
	checkLedger(t, led)
}
