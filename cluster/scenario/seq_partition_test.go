//go:build unix

package scenario_test

import (
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/faultproxy"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/sequencer"
)

// The holder's network to its coordinator breaks (fault is applied to
// every fault proxy): a black hole, or every reply delayed past the TTL (a round
// trip of 1.5 TTL, so that each renewal's reply arrives after the
// deadline it would extend). Either way the holder stops issuing by its
// lease's local deadline, no later than the TTL after the fault began; a
// standby, which reaches the coordinator directly, takes its worker ID
// once the coordinator frees it (taken: it must, as it must after a black
// hole; delayed renewals still reach the coordinator, which may keep the
// lease alive until the heal), above everything the holder issued; and
// once the network heals the holder claims again, another worker ID, and
// serves.
func seqLeaseLost(t *testing.T, c coordinator, fault func(p *faultproxy.Proxy), taken bool) {
	const id, spare = 3, 7
	c.holdAllBut(t, id)
	led := floedproc.NewLedger()
	a := openSeq(t, c, "a", true)
	a.serving(t, 5*time.Second)
	b := openSeq(t, c, "b", false)
	b.wantState(t, sequencer.Claiming)
	fa := startSeqFeed(t, led, a, 2)
	fb := startSeqFeed(t, led, b, 2)
	fa.waitIDs(t, 200, time.Time{}, 5*time.Second)

	setFault(t, c, fault)
	mark := schedtest.Now()
	began := mark.At
	// Its keeper wakes up at the lease's deadline, as late as the load
	// makes it.
	stopped := a.waitStateWithin(t, boundFrom(mark, ttl+seqSlop, ttl), 0, sequencer.Claiming)
	t.Logf("a stopped serving %v after the fault", stopped.Sub(began).Round(time.Millisecond))
	var first batch
	if taken {
		var ok bool
		takeover := boundFrom(mark, ttl+2*time.Second, ttl)
		if first, ok = fb.waitServedWithin("b", began, takeover, 0); !ok {
			_, why := b.State()
			_, want := takeover.check(time.Since(began))
			t.Fatalf("b issued nothing within %s of a's fault: %s", want, why)
		}
	} else {
		// Give b its chance at the worker ID, should a's lease
		// end in the coordinator too.
		first, _ = fb.waitServed("b", began, ttl+time.Second)
	}
	// When a's last answered request was sent: load may delay a reply,
	// not when it was asked for.
	before, ok := fa.lastSent("a", time.Time{}, time.Time{})
	if !ok {
		t.Fatal("a issued nothing")
	}
	t.Logf("a served a request sent last %v after the fault", before.Sub(began).Round(time.Millisecond))
	if d := before.Sub(began); d > ttl+seqSlop {
		t.Errorf("a served a request sent %v after the fault, past its lease's deadline (at most the TTL %v)", d, ttl)
	}
	// A loss in a catalog counts once the catalog said the sequence was
	// not destroyed: within its read's bound of a second.
	if !floedproc.WaitFor(5*time.Second, func() bool { return a.Stats().Losses > 0 }) {
		t.Errorf("a's Stats().Losses = 0 5 s after its lease was lost")
	}
	_, aHi, _ := tickRange(fa.all("a"))
	if first.ids != nil {
		t.Logf("b took worker ID %d %v after the fault", id, first.at.Sub(began).Round(time.Millisecond))
		st := b.Stats()
		if st.WorkerID != id || st.Floor < aHi {
			t.Errorf("b holds worker ID %d with floor %d; want %d, at or above a's last tick %d", st.WorkerID, st.Floor, id, aHi)
		}
		if lo, _, _ := tickRange(fb.all("b")); lo <= aHi {
			t.Errorf("b issued tick %d, not above a's last tick %d", lo, aHi)
		}
	} else {
		t.Logf("b did not take worker ID %d: a's lease outlived the fault's first %v in the coordinator", id, ttl+time.Second)
	}

	healAll(c)
	healed := time.Now()
	back := boundFrom(schedtest.Now(), healBound, healWaits)
	c.free(t, spare)
	again, ok := fa.waitServed("a", healed, 10*time.Second)
	if !ok {
		_, why := a.State()
		t.Fatalf("a issued nothing within 10 s of the heal, with worker ID %d free: %s", spare, why)
	}
	t.Logf("a served again %v after the heal", again.at.Sub(healed).Round(time.Millisecond))
	if ok, want := back.check(again.at.Sub(healed)); !ok {
		t.Errorf("a served again %v after the heal, want within %s", again.at.Sub(healed), want)
	}
	fa.waitIDs(t, 100, healed, 5*time.Second)
	fa.halt()
	fb.halt()
	if first.ids != nil {
		onlyWorker(t, "a after the heal", fa.received("a", healed, time.Time{}), spare)
	}
	// Whoever held worker ID id after the fault started above a.
	aboveAfterFault(t, id, aHi, fa.received("a", healed, time.Time{}), fb.all("b"))
	checkLedger(t, led)
}

// Two of the three etcd members crash: etcd has no quorum, no renewal or
// reservation succeeds, and both sequencers stop issuing within the TTL
// (their reservations run out or their lease's local deadline passes).
// Once the members are back they claim again and serve, above what they
// issued. A single Redis server has no quorum to lose: its pause and
// crash are floed's scenarios (redis_test.go).
func TestSeq_EtcdQuorumLoss(t *testing.T) {
	ec := etcdtest.Start(t, 3)
	c := newEtcdCoord(t, ec, "seq-quorum")
	led := floedproc.NewLedger()
	procs := []*seqProc{openSeq(t, c, "a", false), openSeq(t, c, "b", false)}
	var feeds []*seqFeed
	for _, p := range procs {
		p.serving(t, 5*time.Second)
		f := startSeqFeed(t, led, p, 2)
		f.waitIDs(t, 200, time.Time{}, 5*time.Second)
		feeds = append(feeds, f)
	}

	down := c.ec.Members()[:2]
	for _, m := range down {
		m.Crash()
	}
	lostMark := schedtest.Now()
	lost := lostMark.At
	for _, p := range procs {
		at := p.waitStateWithin(t, boundFrom(lostMark, ttl+seqSlop, ttl), 0, sequencer.Claiming)
		t.Logf("%s stopped serving %v after the quorum was lost", p.who, at.Sub(lost).Round(time.Millisecond))
	}
	his := make(map[string]uint64)
	for _, f := range feeds {
		last, _ := f.lastSent(f.sq.who, time.Time{}, time.Time{})
		t.Logf("%s served a request sent last %v after the quorum was lost", f.sq.who, last.Sub(lost).Round(time.Millisecond))
		if d := last.Sub(lost); d > ttl+seqSlop {
			t.Errorf("%s served a request sent %v after etcd lost its quorum, want at most the TTL %v", f.sq.who, d, ttl)
		}
		_, his[f.sq.who], _ = tickRange(f.all(f.sq.who))
	}

	back := time.Now()
	for _, m := range down {
		m.Restart(t)
	}
	for _, f := range feeds {
		again, ok := f.waitServed(f.sq.who, back, 15*time.Second)
		if !ok {
			_, why := f.sq.State()
			t.Fatalf("%s issued nothing within 15 s of the members' restart: %s", f.sq.who, why)
		}
		t.Logf("%s served again %v after the members' restart began", f.sq.who, again.at.Sub(back).Round(time.Millisecond))
		f.waitIDs(t, 100, back, 5*time.Second)
	}
	for _, f := range feeds {
		f.halt()
	}
	for _, f := range feeds {
		for _, g := range feeds {
			// Each worker ID's new holder, whichever, starts above what
			// its old one issued.
			his := his[g.sq.who]
			olds := nodes(g.received(g.sq.who, time.Time{}, lost))
			for _, bt := range f.received(f.sq.who, back, time.Time{}) {
				for _, v := range bt.ids {
					if olds[floedproc.Node(v)] > 0 && floedproc.Tick(v) <= his {
						t.Fatalf("%s issued tick %d of worker ID %d after the members' restart, not above %s's last tick %d", f.sq.who, floedproc.Tick(v), floedproc.Node(v), g.sq.who, his)
					}
				}
			}
		}
	}
	checkLedger(t, led)
}
