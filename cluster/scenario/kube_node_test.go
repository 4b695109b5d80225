//go:build unix

package scenario_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/schedtest"
)

// watchSlack bounds how much later the test's watch may see one write of
// a Lease than another's claimer could: a watch event reaches the test a
// few milliseconds after the write applies, a claimer lists it after that
// too; 200 ms covers a loaded host under the race detector.
const watchSlack = 200 * time.Millisecond

// stampPrecision is how much two writers' stamps of one instant may differ:
// a MicroTime keeps microseconds, and each process's clock reads the
// wall clock through its own monotonic anchor.
const stampPrecision = time.Millisecond

// leaseWrite is a write of a worker Lease as the test's watch saw it.
type leaseWrite struct {
	at       time.Time
	stamp    time.Time // its spec.renewTime: its writer's clock before it sent it
	holder   string
	fence    string
	reserved uint64
	last     uint64 // of a clean release
}

// leaseLog is what a watch of one worker Lease saw.
type leaseLog struct {
	mu     sync.Mutex
	writes []leaseWrite // guarded by mu
}

// watchLease records every write of worker ID id's Lease from now until
// the test ends, watching again from the last resourceVersion if the
// watch ends.
func (s *kubeSeq) watchLease(t *testing.T, id int) *leaseLog {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log := &leaseLog{}
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	sel := "metadata.name=" + s.name(id)
	wg.Go(func() {
		rv := ""
		for ctx.Err() == nil {
			w, err := s.env.leases.Watch(ctx, metav1.ListOptions{FieldSelector: sel, ResourceVersion: rv})
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			for ev := range w.ResultChan() {
				l, ok := ev.Object.(*coordv1.Lease)
				if !ok || ev.Type == watch.Error || ev.Type == watch.Bookmark {
					continue
				}
				rv = l.ResourceVersion
				if ev.Type == watch.Deleted {
					continue
				}
				lw := leaseWrite{at: time.Now(), fence: l.Annotations["floe.dev/fence"]}
				if l.Spec.HolderIdentity != nil {
					lw.holder = *l.Spec.HolderIdentity
				}
				if l.Spec.RenewTime != nil {
					lw.stamp = l.Spec.RenewTime.Time
				}
				lw.reserved, _ = strconv.ParseUint(l.Annotations["floe.dev/reserved"], 10, 64)
				lw.last, _ = strconv.ParseUint(l.Annotations["floe.dev/last"], 10, 64)
				log.mu.Lock()
				log.writes = append(log.writes, lw)
				log.mu.Unlock()
			}
			w.Stop()
		}
	})
	return log
}

// takeover returns the last write of the holder before the first write
// whose fence is another, and that write: a claim after the holder's
// last renewal.
func (l *leaseLog) takeover(after time.Time) (last, claim leaseWrite, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, w := range l.writes {
		if i == 0 || w.at.Before(after) || w.fence == l.writes[i-1].fence {
			continue
		}
		return l.writes[i-1], w, true
	}
	return leaseWrite{}, leaseWrite{}, false
}

// checkTakeover fails the test unless the worker Lease's new claim came at
// least the lease duration after the old holder's last write: a claimer
// may take it only after seeing it unchanged that long on its own clock.
// The writes' own stamps (spec.renewTime, each writer's clock before it
// sent the write, on this machine) measure that: the claimer saw the last
// write after its holder stamped it, and stamped its claim the lease
// duration after that at least, however late the load made either write
// or the test's watch. Without stamps, the watch's times, less
// watchSlack, do.
func checkTakeover(t *testing.T, log *leaseLog, since time.Time) leaseWrite {
	t.Helper()
	var last, claim leaseWrite
	if !floedproc.WaitFor(5*time.Second, func() (ok bool) { last, claim, ok = log.takeover(since); return ok }) {
		t.Fatal("the test's watch saw no takeover of the worker Lease")
	}
	gap := claim.at.Sub(last.at)
	stamped := claim.stamp.Sub(last.stamp)
	t.Logf("the Lease's last write by %s (fence %s, R %d) was seen %v before %s's claim (fence %s, R %d), stamped %v before it",
		last.holder, last.fence, last.reserved, gap.Round(time.Millisecond), claim.holder, claim.fence, claim.reserved, stamped.Round(time.Millisecond))
	switch {
	case last.stamp.IsZero() || claim.stamp.IsZero():
		if gap < ttl-watchSlack {
			t.Errorf("the worker Lease was taken over %v after its holder's last write, before the lease duration %v", gap, ttl)
		}
	case stamped < ttl-stampPrecision:
		t.Errorf("the worker Lease's claim was stamped %v after its holder's last write, before the lease duration %v", stamped, ttl)
	}
	if claim.reserved < last.reserved {
		t.Errorf("the takeover wrote R %d, below the old holder's %d", claim.reserved, last.reserved)
	}
	return claim
}

// The holder of the only free worker ID is killed (SIGKILL, so it releases
// nothing): a standby claims its Lease only once it saw it unchanged for
// the lease duration, then serves within TTL + 1 s of the kill, strictly
// above the dead holder's reservation.
func TestKube_HolderKilled(t *testing.T) {
	const id = 3
	k := startKube(t, "killed")
	ds := k.defineDefault(t)
	ds.holdAllBut(t, id)
	kc := k.kubeconfig(t)

	led := floedproc.NewLedger()
	a := floedproc.Start(t, bin, "a", k.kubeNode(kc, "a")...)
	mustReady(t, a, 10*time.Second)
	b := floedproc.Start(t, bin, "b", k.kubeNode(kc, "b")...)
	fa := startFeed(t, led, a, "a", feedOpts{})
	fb := startFeed(t, led, b, "b", feedOpts{})
	log := ds.watchLease(t, id)
	// Long enough for b's claim retries to back off to their longest, and
	// a random phase of them at the kill.
	time.Sleep(time.Second + rand.N(time.Second))
	if b.Ready() {
		t.Fatal("b is ready while a holds the only free worker ID")
	}

	a.Kill()
	killed := time.Now()
	takeover := boundFrom(schedtest.Now(), ttl+time.Second, ttl)
	r, last := ds.reservation(t, id)
	first, ok := fb.waitServed("b", killed, 10*time.Second)
	if !ok {
		t.Fatalf("b issued nothing within 10 s of a's kill")
	}
	took := first.at.Sub(killed)
	t.Logf("worker ID %d served again by the standby %v after the kill (lease TTL %v)", id, took.Round(time.Millisecond), ttl)
	if ok, want := takeover.check(took); !ok {
		t.Errorf("worker ID %d served again %v after the kill, want within TTL + 1 s = %s", id, took, want)
	}
	checkTakeover(t, log, killed.Add(-ttl))
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
	floor := claimedFloor(t, b)
	if floor < r {
		t.Errorf("b claimed with floor %d, below a's reservation %d at the kill", floor, r)
	}
	if aHi > floor {
		t.Errorf("a issued tick %d above its durable reservation %d", aHi, floor)
	}
	if bLo <= floor {
		t.Errorf("b's first tick %d is not above a's reservation %d", bLo, floor)
	}
	onlyWorker(t, "b", fb.all("b"), id)
	checkLedger(t, led)
}

// The holder is paused (SIGSTOP) past its lease, a standby takes its
// worker ID once it saw the Lease unchanged for the lease duration, and
// the holder is continued: its next write conflicts, it stops within a
// second, issues nothing above its old reservation (the new holder's
// floor), and takes the ID back, above the other's IDs, once the other
// releases it. With a reservation window longer than the TTL, that
// reservation may still be ahead of the clock at the resume.
func TestKube_HolderPaused(t *testing.T) {
	t.Run("window below the TTL", func(t *testing.T) { kubeHolderPaused(t, window) })
	t.Run("window above the TTL", func(t *testing.T) { kubeHolderPaused(t, ttl+time.Second) })
}

func kubeHolderPaused(t *testing.T, window time.Duration) {
	const id = 3
	k := startKube(t, "paused")
	ds := k.defineDefault(t)
	ds.holdAllBut(t, id)
	kc := k.kubeconfig(t)

	led := floedproc.NewLedger()
	a := floedproc.Start(t, bin, "a", k.kubeNode(kc, "a", "--reserve-window", window.String())...)
	mustReady(t, a, 10*time.Second)
	b := floedproc.Start(t, bin, "b", k.kubeNode(kc, "b", "--reserve-window", window.String())...)
	fa := startFeed(t, led, a, "a", feedOpts{})
	fb := startFeed(t, led, b, "b", feedOpts{})
	log := ds.watchLease(t, id)
	time.Sleep(time.Second)

	a.Pause()
	paused := time.Now()
	takeover := boundFrom(schedtest.Now(), ttl+time.Second, ttl)
	first, ok := fb.waitServed("b", paused, 10*time.Second)
	if !ok {
		a.Resume()
		t.Fatal("b issued nothing within 10 s of a's pause")
	}
	took := first.at.Sub(paused)
	t.Logf("b served worker ID %d %v after a paused", id, took.Round(time.Millisecond))
	if ok, want := takeover.check(took); !ok {
		t.Errorf("b served worker ID %d %v after a paused, want within TTL + 1 s = %s", id, took, want)
	}
	checkTakeover(t, log, paused.Add(-ttl))
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
	t.Logf("a went not ready %v after it resumed", time.Since(resumed).Round(time.Millisecond))
	time.Sleep(time.Second)
	if a.Ready() {
		t.Fatal("a ready while b holds the only free worker ID")
	}
	if info := sequence(t, a, "default"); info.WorkerID != -1 {
		t.Errorf("a shows worker ID %d after resuming, want none", info.WorkerID)
	}
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

// The holder shuts down gracefully (SIGTERM): it records the last tick it
// issued and releases its worker ID, and a standby serves that ID within
// a second, above that last tick rather than above the whole reservation.
func TestKube_GracefulHandoff(t *testing.T) {
	const id = 3
	k := startKube(t, "handoff")
	ds := k.defineDefault(t)
	ds.holdAllBut(t, id)
	kc := k.kubeconfig(t)

	led := floedproc.NewLedger()
	a := floedproc.Start(t, bin, "a", k.kubeNode(kc, "a")...)
	mustReady(t, a, 10*time.Second)
	b := floedproc.Start(t, bin, "b", k.kubeNode(kc, "b")...)
	fa := startFeed(t, led, a, "a", feedOpts{})
	fb := startFeed(t, led, b, "b", feedOpts{})
	log := ds.watchLease(t, id)
	time.Sleep(time.Second)

	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	handoff := boundFrom(schedtest.Now(), time.Second, standbyRetry)
	r, last := ds.reservation(t, id)
	// What a's release left: its write the watch saw, with no holder,
	// before b's claim, which the load may have let come before the read.
	if floedproc.WaitFor(5*time.Second, func() bool { _, _, ok := log.takeover(stopped.Add(-time.Second)); return ok }) {
		if rel, _, _ := log.takeover(stopped.Add(-time.Second)); rel.holder == "" {
			r, last = rel.reserved, rel.last
		}
	}
	first, ok := fb.waitServed("b", stopped, 5*time.Second)
	if !ok {
		t.Fatal("b issued nothing within 5 s of a's clean stop")
	}
	servedIn := first.at.Sub(stopped)
	t.Logf("after a's clean stop, b served in %v (the release skipped %d ms of reservation)", servedIn.Round(time.Millisecond), r-last)
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
	onlyWorker(t, "b", fb.all("b"), id)
	// The claim came right after the release, which left the Lease with
	// no holder under a's fence.
	if rel, claim, ok := log.takeover(stopped.Add(-time.Second)); !ok || rel.holder != "" {
		t.Errorf("the watch saw no release before b's claim: %+v, then %+v", rel, claim)
	}
	checkLedger(t, led)
}
