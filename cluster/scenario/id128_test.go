//go:build unix

package scenario_test

import (
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/faultproxy"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/internal/server"
)

// TestScenario_ID128 runs the process faults of the floed scenarios on an
// id128 sequence (version-7 UUIDs, served over HTTP only): floed nodes on
// a 3-member etcd, each with --seq orders=id128. The holder of a worker ID
// is paused past the TTL and resumed, shut down gracefully, killed, and
// cut off from etcd (b reaches etcd through fault proxies), in turn.
//
// An id128 sequence has 65,536 worker IDs: a node waiting as a standby
// would need the test to hold all the others, and every claim of it reads
// them all. On this embedded etcd under -race, holding them took 17 s and
// each such read outlasted a claim's attempts (TTL/6), so the standby never
// claimed. The next holder of a worker ID is a replacement instead, as an
// orchestrator starts one: a process of the same --owner, started once the
// ID is free, which a claim then prefers. Each replacement takes the
// worker ID over above the last holder's IDs. HTTP feeds record every ID,
// keyed by nodeKey128, in one ledger: no ID repeats.
func TestScenario_ID128(t *testing.T) {
	const cluster, seq = "id128", "orders"
	ec := etcdtest.Start(t, 3)
	ns := defineSequence(t, ec.Client(t), cluster, server.SequenceConfig{Name: seq, Format: server.Format128})
	proxies, viaProxies := proxyAll(t, ec)
	led := floedproc.NewLedgerOf(describeKey128)
	// node starts a node and a feed of it, once it is ready; up is when
	// the process answered.
	var up time.Time
	var upMark schedtest.Mark
	node := func(name, owner string, eps []string) (*floedproc.Proc, *feed) {
		p := floedproc.Start(t, bin, name, etcdNode(eps, cluster, owner, "--seq", seq+"=id128")...)
		up, upMark = time.Now(), schedtest.Now()
		mustReady(t, p, 5*time.Second)
		return p, startFeed(t, led, p, name, feedOpts{seq: seq})
	}
	a, fa := node("a", "a", ec.Endpoints())
	b, fb := node("b", "b", viaProxies)
	x, y := sequence(t, a, seq).WorkerID, sequence(t, b, seq).WorkerID
	t.Logf("a holds worker ID %d of %s, b %d", x, seq, y)
	time.Sleep(time.Second)

	// 1. a is paused past its TTL; its replacement c takes worker ID x
	// above a's reservation. a, resumed, issues nothing of x above it.
	a.Pause()
	paused := schedtest.Now()
	freed := waitFree(t, ns, x, paused, "a's pause")
	t.Logf("paused: worker ID %d free %v after a paused (TTL %v)", x, freed.Sub(paused.At).Round(time.Millisecond), ttl)
	c, fc := node("c", "a", ec.Endpoints())
	wantHeld(t, c, seq, x)
	cFloor := claimedFloorOf(t, c, seq)
	time.Sleep(time.Second)
	a.Resume()
	resumed := time.Now()
	// By the last poll that still showed it: load may delay an answer,
	// not what it says.
	if held, _ := waitEnd(resumed, ttl+2*time.Second, func() (bool, bool) { return true, sequence(t, a, seq).WorkerID == x }); held > ttl {
		t.Fatalf("a still showed worker ID %d to a poll sent %v after it resumed on a lost lease, want not within %v", x, held.Round(time.Millisecond), ttl)
	}
	time.Sleep(500 * time.Millisecond)
	_, aHi, _ := keyRange(fa.all("a"), x)
	_, _, afterN := keyRange(fa.received("a", resumed, time.Time{}), x)
	t.Logf("paused: a issued %d IDs of worker ID %d after its resume, and holds %d now; c's floor %d",
		afterN, x, sequence(t, a, seq).WorkerID, cFloor)
	if keyTick(aHi) > cFloor {
		t.Errorf("a issued ms %d of worker ID %d, above c's floor %d (a's reservation)", keyTick(aHi), x, cFloor)
	}

	// 2. c shuts down gracefully: it records its last tick, and its
	// replacement d takes worker ID x above that tick, at once.
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	r, last := ns.reservation(t, x)
	d, fd := node("d", "a", ec.Endpoints())
	wantHeld(t, d, seq, x)
	first, ok := fd.waitServed("d", stopped, 5*time.Second)
	if !ok {
		t.Fatal("d issued nothing within 5 s of its start")
	}
	t.Logf("handoff: d served worker ID %d %v after c's clean stop, %v after its process answered (the release skipped %d ms of reservation)",
		x, first.at.Sub(stopped).Round(time.Millisecond), first.at.Sub(up).Round(time.Millisecond), r-last)
	if ok, want := boundFrom(upMark, time.Second, 0).check(first.at.Sub(up)); !ok {
		t.Errorf("d served %v after its process answered, on a worker ID released cleanly; want within %s", first.at.Sub(up), want)
	}
	_, cHi, cN := keyRange(fc.all("c"), x)
	switch {
	case cN == 0:
		t.Fatal("c issued no ID")
	case last == 0:
		t.Errorf("c's clean stop recorded no last tick (reservation %d)", r)
	case last < keyTick(cHi):
		t.Errorf("c's clean stop recorded last tick %d, below its last ID's ms %d", last, keyTick(cHi))
	}
	if floor := claimedFloorOf(t, d, seq); floor != last {
		t.Errorf("d claimed with floor %d, want c's last tick %d (its reservation was %d)", floor, last, r)
	}
	time.Sleep(time.Second)

	// 3. d is killed: worker ID x frees within the TTL and a second, and
	// its replacement e takes it above d's durable reservation.
	d.Kill()
	killMark := schedtest.Now()
	killed := killMark.At
	r, last = ns.reservation(t, x)
	freed = waitFree(t, ns, x, killMark, "d's kill")
	e, fe := node("e", "a", ec.Endpoints())
	wantHeld(t, e, seq, x)
	first, ok = fe.waitServed("e", killed, 5*time.Second)
	if !ok {
		t.Fatal("e issued nothing within 5 s of its start")
	}
	t.Logf("killed: worker ID %d free %v after d's kill (TTL %v), served by e %v after it",
		x, freed.Sub(killed).Round(time.Millisecond), ttl, first.at.Sub(killed).Round(time.Millisecond))
	if last != 0 {
		t.Errorf("d killed left a last tick %d in its reservation, as if released", last)
	}
	if _, hi, _ := keyRange(fd.all("d"), x); keyTick(hi) > r {
		t.Errorf("d issued ms %d above its durable reservation %d", keyTick(hi), r)
	}
	if lo, _, _ := keyRange(fe.all("e"), x); keyTick(lo) <= r {
		t.Errorf("e's first ms %d is not above d's reservation %d", keyTick(lo), r)
	}

	// 4. b is cut off from etcd: it stops serving within the TTL, worker ID
	// y frees, and b's replacement f takes it above b's reservation;
	// healed, b claims another worker ID and serves again.
	blackhole(proxies, true)
	cutMark := schedtest.Now()
	cut := cutMark.At
	notReady, ok := waitNotReady(b, cut, ttl+2*time.Second)
	if !ok || notReady > ttl+time.Second {
		t.Fatalf("b still answered ready to a poll sent %v after it was cut off from etcd, want not ready within %v", notReady.Round(time.Millisecond), ttl+time.Second)
	}
	freed = waitFree(t, ns, y, cutMark, "b's partition")
	f, ff := node("f", "b", ec.Endpoints())
	wantHeld(t, f, seq, y)
	fFloor := claimedFloorOf(t, f, seq)
	// The last request b answered, still cut off: one sent after the TTL
	// was served past its lease.
	lastB, ok := fb.lastSent("b", time.Time{}, time.Time{})
	if !ok {
		t.Fatal("b issued nothing before the partition")
	}
	t.Logf("partitioned: b was last seen ready %v after the cut and served a request sent last %v after it; worker ID %d free %v after the cut",
		notReady.Round(time.Millisecond), lastB.Sub(cut).Round(time.Millisecond), y, freed.Sub(cut).Round(time.Millisecond))
	if dt := lastB.Sub(cut); dt > ttl {
		t.Errorf("b served a request sent %v after it was cut off, longer than the TTL %v", dt, ttl)
	}
	time.Sleep(time.Second)
	blackhole(proxies, false)
	healed := time.Now()
	back := boundFrom(schedtest.Now(), healBound, healWaits)
	again, ok := fb.waitServed("b", healed, 15*time.Second)
	if !ok {
		t.Fatalf("b issued nothing within 15 s of the heal; /readyz: %v", b.Ready())
	}
	t.Logf("partitioned: b served again %v after the heal, on worker ID %d", again.at.Sub(healed).Round(time.Millisecond), sequence(t, b, seq).WorkerID)
	if ok, want := back.check(again.at.Sub(healed)); !ok {
		t.Errorf("b served again %v after the heal, want within %s", again.at.Sub(healed), want)
	}
	time.Sleep(300 * time.Millisecond)
	for _, f := range []*feed{fa, fb, fc, fd, fe, ff} {
		f.halt()
	}

	if _, hi, n := keyRange(fb.received("b", time.Time{}, healed), y); n == 0 || keyTick(hi) > fFloor {
		t.Errorf("b issued %d IDs of worker ID %d before the heal, up to ms %d; want some, at most f's floor %d", n, y, keyTick(hi), fFloor)
	}
	if _, _, n := keyRange(fb.received("b", healed, time.Time{}), y); n > 0 {
		t.Errorf("b issued %d IDs of worker ID %d after the heal, which f holds", n, y)
	}
	if lo, _, n := keyRange(ff.all("f"), y); n == 0 || keyTick(lo) <= fFloor {
		t.Errorf("f issued %d IDs of worker ID %d, from ms %d; want some, above its floor %d", n, y, keyTick(lo), fFloor)
	}
	// Each next holder of a worker ID issued above its last holder's IDs:
	// a later millisecond, or a higher counter in the same one.
	wantAbove(t, x, "c after a's pause", fc.all("c"), "a", fa.all("a"))
	wantAbove(t, x, "d after c's clean stop", fd.all("d"), "c", fc.all("c"))
	wantAbove(t, x, "e after d's kill", fe.all("e"), "d", fd.all("d"))
	wantAbove(t, y, "f after b's partition", ff.all("f"), "b", fb.all("b"))
	for _, w := range []struct {
		who string
		f   *feed
		id  int
	}{{"c", fc, x}, {"d", fd, x}, {"e", fe, x}, {"f", ff, y}} {
		wantWorker(t, w.who, w.f.all(w.who), w.id)
	}
	checkLedger(t, led)
}

// waitFree waits up to the TTL and a second after since (the second
// stretched by the load since, the TTL being etcd's wait) for nobody to
// hold worker ID id, and returns when it saw it free; it fails the test
// if the ID stays held.
func waitFree(t *testing.T, ns *namespace, id int, since schedtest.Mark, after string) time.Time {
	t.Helper()
	b := boundFrom(since, ttl+time.Second, ttl)
	if !b.waitFor(0, func() bool { return ns.holder(t, id) == "" }) {
		_, want := b.check(time.Since(since.At))
		t.Fatalf("worker ID %d still held by %q %v after %s, want free within TTL + 1 s = %s", id, ns.holder(t, id), time.Since(since.At).Round(time.Millisecond), after, want)
	}
	return time.Now()
}

// wantHeld fails the test unless p holds worker ID id of seq.
func wantHeld(t *testing.T, p *floedproc.Proc, seq string, id int) {
	t.Helper()
	if got := sequence(t, p, seq).WorkerID; got != id {
		t.Fatalf("%s holds worker ID %d of %s, want %d, the one its owner held last", p.Name, got, seq, id)
	}
}

// wantWorker fails the test if who's batches bs hold an ID of a worker ID
// other than id.
func wantWorker(t *testing.T, who string, bs []batch, id int) {
	t.Helper()
	workers := make(map[int]int)
	for _, b := range bs {
		for _, k := range b.ids {
			workers[keyWorker(k)]++
		}
	}
	for node, n := range workers {
		if node != id {
			t.Errorf("%s issued %d IDs of worker ID %d, want %d", who, n, node, id)
		}
	}
}

// wantAbove fails the test unless the IDs of worker ID id in next, as
// nodeKey128 keys them, all lie above those in prev, or either has none.
func wantAbove(t *testing.T, id int, nextWho string, next []batch, prevWho string, prev []batch) {
	t.Helper()
	lo, _, nn := keyRange(next, id)
	_, hi, np := keyRange(prev, id)
	t.Logf("worker ID %d: %s issued %d IDs from ms %d counter %d; %s %d up to ms %d counter %d",
		id, nextWho, nn, keyTick(lo), keyCounter(lo), prevWho, np, keyTick(hi), keyCounter(hi))
	if nn > 0 && np > 0 && lo <= hi {
		t.Errorf("worker ID %d: %s issued ms %d counter %d, not above %s's last, ms %d counter %d",
			id, nextWho, keyTick(lo), keyCounter(lo), prevWho, keyTick(hi), keyCounter(hi))
	}
}

// keyRange returns the lowest and highest ID of worker ID id in bs and
// how many there are.
func keyRange(bs []batch, id int) (lo, hi uint64, n int) {
	for _, b := range bs {
		for _, k := range b.ids {
			if keyWorker(k) != id {
				continue
			}
			if n == 0 || k < lo {
				lo = k
			}
			hi = max(hi, k)
			n++
		}
	}
	return lo, hi, n
}

// blackhole turns the black hole of every proxy in ps on, or heals them.
func blackhole(ps []*faultproxy.Proxy, on bool) {
	for _, p := range ps {
		if on {
			p.Blackhole(true)
		} else {
			p.Heal()
		}
	}
}
