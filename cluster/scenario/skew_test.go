//go:build unix

package scenario_test

import (
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
)

// Clock skew at a handoff: a, whose clock runs 3 s ahead, holds the only
// free worker ID and is killed; b, on the true clock, takes the ID. Every
// ID b issues is above a's last tick and reservation: with policy wait b
// waits until its clock passes a's reservation, with policy borrow it
// issues at once, ahead of its clock.
func TestScenario_SkewAtHandoff(t *testing.T) {
	t.Run("wait", func(t *testing.T) { skewAtHandoff(t, "wait") })
	t.Run("borrow", func(t *testing.T) { skewAtHandoff(t, "borrow") })
}

func skewAtHandoff(t *testing.T, policy string) {
	const id = 3
	const skew = 3 * time.Second
	ec := etcdtest.Start(t, 1)
	ns := defineDefault(t, ec.Client(t), "skew")
	ns.holdAllBut(t, id)

	led := floedproc.NewLedger()
	flags := []string{"--clock-policy", policy, "--max-ahead", "10s"}
	a := floedproc.Start(t, bin, "a", etcdNode(ec.Endpoints(), "skew", "a", append(flags, "--clock-offset", skew.String())...)...)
	mustReady(t, a, 5*time.Second)
	b := floedproc.Start(t, bin, "b", etcdNode(ec.Endpoints(), "skew", "b", flags...)...)
	fa := startFeed(t, led, a, "a", feedOpts{})
	fb := startFeed(t, led, b, "b", feedOpts{})
	time.Sleep(time.Second)

	a.Kill()
	killed := time.Now()
	r, _ := ns.reservation(t, id)
	first, ok := fb.waitServed("b", killed, 10*time.Second+skew)
	if !ok {
		t.Fatalf("b issued nothing within %v of a's kill", 10*time.Second+skew)
	}
	// How far ahead of b's clock the first ID is: negative when b waited
	// for its clock.
	ahead := tickTime(floedproc.Tick(first.ids[0])).Sub(first.at)
	t.Logf("policy %s: b served worker ID %d %v after a's kill; a's reservation was %v ahead of the true clock at the kill; b's first ID is %v ahead of its clock",
		policy, id, first.at.Sub(killed).Round(time.Millisecond), tickTime(r).Sub(killed).Round(time.Millisecond), ahead.Round(time.Millisecond))
	switch policy {
	case "wait":
		if first.at.Before(tickTime(r + 1)) {
			t.Errorf("policy wait: b served before its clock passed a's reservation %d", r)
		}
	case "borrow":
		if ahead <= 0 {
			t.Errorf("policy borrow: b's first ID is %v behind its clock; it should have run ahead from a's reservation", -ahead)
		}
	}
	time.Sleep(300 * time.Millisecond)
	fa.halt()
	fb.halt()

	_, aHi, aN := tickRange(fa.all("a"))
	bLo, _, bN := tickRange(fb.all("b"))
	if aN == 0 || bN == 0 {
		t.Fatalf("a issued %d IDs, b %d", aN, bN)
	}
	if aHi > r {
		t.Errorf("a issued tick %d above its reservation %d", aHi, r)
	}
	if bLo <= r {
		t.Errorf("b's first tick %d is not above a's reservation %d (a's last tick %d)", bLo, r, aHi)
	}
	checkLedger(t, led)
}
