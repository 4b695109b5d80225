//go:build unix

package scenario_test

import (
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/schedtest"
)

// The holder is paused (SIGSTOP) past its TTL, a standby takes its worker
// ID, and the holder resumes: it must not issue above its old lease's
// reservation (the new holder's floor), it stops and waits as a standby,
// and it takes the ID back, above the other's IDs, once the other
// releases it.
//
// In the moment between SIGCONT and its lease goroutine noticing the
// expired deadline, a connection can still be served from the old term:
// rarely, a request gets IDs of the tick the process was paused in (the
// generator's cached clock still reads it). They lie under the old
// reservation, so they cannot collide with the new holder's. With a
// reservation window longer than the TTL that reservation may still be
// ahead of the clock at the resume, and the test checks the same bound.
func TestScenario_HolderPaused(t *testing.T) {
	t.Run("window below the TTL", func(t *testing.T) { holderPaused(t, window) })
	t.Run("window above the TTL", func(t *testing.T) { holderPaused(t, ttl+time.Second) })
}

func holderPaused(t *testing.T, window time.Duration) {
	const id = 3
	ec := etcdtest.Start(t, 1)
	ns := defineDefault(t, ec.Client(t), "paused")
	ns.holdAllBut(t, id)

	led := floedproc.NewLedger()
	a := floedproc.Start(t, bin, "a", etcdNode(ec.Endpoints(), "paused", "a", "--reserve-window", window.String())...)
	mustReady(t, a, 5*time.Second)
	b := floedproc.Start(t, bin, "b", etcdNode(ec.Endpoints(), "paused", "b", "--reserve-window", window.String())...)
	fa := startFeed(t, led, a, "a", feedOpts{})
	fb := startFeed(t, led, b, "b", feedOpts{})
	time.Sleep(time.Second)

	a.Pause()
	paused := time.Now()
	first, ok := fb.waitServed("b", paused, 10*time.Second)
	if !ok {
		a.Resume()
		t.Fatal("b issued nothing within 10 s of a's pause")
	}
	t.Logf("b served worker ID %d %v after a paused", id, first.at.Sub(paused).Round(time.Millisecond))
	bFloor := claimedFloor(t, b)
	// Keep a stopped a while longer, with b serving.
	time.Sleep(time.Second)
	a.Resume()
	resumed := time.Now()
	// By the last poll sent that saw it ready, within a second stretched
	// by the load: a resumed process's noticing is work.
	resumeBound := boundFrom(schedtest.Now(), time.Second, 0)
	if until, ok := waitNotReady(a, resumed, 5*time.Second); !ok {
		t.Fatalf("a still ready 5 s after it resumed on a lost lease")
	} else if in, want := resumeBound.check(until); !in {
		t.Fatalf("a still answered ready to a poll sent %v after it resumed on a lost lease, want not within %s", until.Round(time.Millisecond), want)
	}
	time.Sleep(time.Second)
	if a.Ready() {
		t.Fatal("a ready while b holds the only free worker ID")
	}
	if info := sequence(t, a, "default"); info.WorkerID != -1 {
		t.Errorf("a shows worker ID %d after resuming, want none", info.WorkerID)
	}
	// What a's clients got after the resume came from its old term: below
	// its last reservation, which is b's floor.
	after := fa.received("a", resumed, time.Time{})
	if _, hi, n := tickRange(after); n > 0 && hi > bFloor {
		t.Errorf("a issued tick %d after resuming, above b's floor %d (its own reservation)", hi, bFloor)
	} else {
		t.Logf("a's clients got %d IDs after the resume, all at or below its old reservation %d", n, bFloor)
	}

	// b hands the ID back cleanly; a claims it again and serves above b.
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	reclaim := boundFrom(schedtest.Now(), time.Second, standbyRetry)
	again, ok := fa.waitServed("a", stopped, 5*time.Second)
	if !ok {
		t.Fatal("a issued nothing within 5 s of b's release")
	}
	t.Logf("a served worker ID %d again %v after b's release", id, again.at.Sub(stopped).Round(time.Millisecond))
	// A standby claims again every 250 ms at most.
	if ok, want := reclaim.check(again.at.Sub(stopped)); !ok {
		t.Errorf("a served worker ID %d again %v after b's release, want within %s", id, again.at.Sub(stopped), want)
	}
	time.Sleep(300 * time.Millisecond)
	fa.halt()
	fb.halt()

	_, bHi, bN := tickRange(fb.all("b"))
	aLo, _, aN := tickRange(fa.received("a", stopped, time.Time{}))
	if bN == 0 || aN == 0 {
		t.Fatalf("b issued %d IDs, a after b's release %d", bN, aN)
	}
	if bLo, _, _ := tickRange(fb.all("b")); bLo <= bFloor {
		t.Errorf("b issued tick %d, not above its floor %d", bLo, bFloor)
	}
	if aLo <= bHi {
		t.Errorf("a's first tick after taking the ID back, %d, is not above b's last, %d", aLo, bHi)
	}
	checkLedger(t, led)
}
