//go:build unix

package scenario_test

import (
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/schedtest"
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
	killMark := schedtest.Now()
	killed := killMark.At
	r, _ := ns.reservationOf(t, id, "a")
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
		// An ID whose tick began after its reply arrived was issued ahead
		// of the clock, however late the load made the reply. b has
		// something to borrow only if it claimed before the clock reached
		// a's reservation, by more than a dial and a request take (20 ms
		// and 80 ms on an idle machine, the latter stretched by the load):
		// a claim later than that, under load, has every ID of b arrive
		// after its tick began even when b borrowed.
		proven := false
		for _, bt := range fb.all("b") {
			if len(bt.ids) > 0 && tickTime(floedproc.Tick(bt.ids[0])).After(bt.at) {
				proven = true
				break
			}
		}
		claimed := claimedAt(t, b)
		reply, _ := boundFrom(killMark, 100*time.Millisecond, redialAfterFailure).now()
		switch {
		case proven:
		case claimed.Add(reply).Before(tickTime(r)):
			t.Errorf("policy borrow: b claimed worker ID %d %v before the clock reached a's reservation, yet no ID of it arrived before its tick began (first %v behind the clock); it should have run ahead from a's reservation",
				id, tickTime(r).Sub(claimed).Round(time.Millisecond), -ahead)
		default:
			t.Logf("policy borrow: b claimed worker ID %d %v after the clock reached a's reservation, less %v for a reply: nothing left to borrow", id, claimed.Sub(tickTime(r)).Round(time.Millisecond), reply.Round(time.Millisecond))
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

// claimedAt returns when p logged its last claim of a worker ID for its
// default sequence (its log's time, to the millisecond).
func claimedAt(t *testing.T, p *floedproc.Proc) time.Time {
	t.Helper()
	var at time.Time
	for line := range strings.Lines(p.Stderr()) {
		if !strings.Contains(line, `msg="worker ID claimed"`) || !strings.Contains(line, "seq=default ") {
			continue
		}
		for field := range strings.FieldsSeq(line) {
			if v, ok := strings.CutPrefix(field, "time="); ok {
				tm, err := time.Parse(time.RFC3339Nano, v)
				if err != nil {
					t.Fatalf("%s: time in %q: %v", p.Name, line, err)
				}
				at = tm
			}
		}
	}
	if at.IsZero() {
		t.Fatalf("%s logged no claim of a worker ID:\n%s", p.Name, p.Stderr())
	}
	return at
}
