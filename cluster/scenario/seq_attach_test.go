//go:build unix

package scenario_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/sequencer"
)

// Three processes share two free worker IDs, each with four goroutines
// calling Next64 throughout. Round after round one that serves (the one
// that detached least) detaches:
// it refuses IDs with ErrDetached at once, its release records its last
// tick, and the one that waited serves the freed ID right above that
// tick; then the detached one attaches again and waits in its turn.
// Detaching a detached sequencer and attaching an attached one do
// nothing.
func seqDetachAttach(t *testing.T, c coordinator) {
	const rounds = 4
	c.holdAllBut(t, 2, 9)
	led := floedproc.NewLedger()
	var procs []*seqProc
	feeds := make(map[*seqProc]*seqFeed)
	for _, who := range []string{"a", "b", "c"} {
		p := openSeq(t, c, who, false)
		procs = append(procs, p)
		feeds[p] = startSeqFeed(t, led, p, 4)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	serving := func() (on []*seqProc, waiting *seqProc) {
		for _, p := range procs {
			switch st, _ := p.State(); st {
			case sequencer.Serving:
				on = append(on, p)
			case sequencer.Claiming:
				waiting = p
			}
		}
		return on, waiting
	}
	if !floedproc.WaitFor(5*time.Second, func() bool { on, _ := serving(); return len(on) == 2 }) {
		t.Fatal("two of a, b and c not serving within 5 s")
	}

	detaches := make(map[*seqProc]int)
	for round := range rounds {
		on, waiting := serving()
		if len(on) != 2 || waiting == nil {
			t.Fatalf("round %d: %d serving, want 2 and one claiming", round, len(on))
		}
		// The one that detached least so far, for every ID to
		// change hands.
		p := on[0]
		if detaches[on[1]] < detaches[p] {
			p = on[1]
		}
		detaches[p]++
		feeds[p].waitIDs(t, 100, time.Time{}, 5*time.Second)
		before := p.Stats()
		id := before.WorkerID
		if err := p.Detach(ctx); err != nil {
			t.Fatalf("round %d: %s.Detach: %v", round, p.who, err)
		}
		detachMark := schedtest.Now()
		detached := detachMark.At
		p.wantState(t, sequencer.Detached)
		if _, err := p.Next64(); !errors.Is(err, sequencer.ErrDetached) {
			t.Errorf("round %d: %s.Next64 after Detach: %v, want ErrDetached", round, p.who, err)
		}
		if err := p.Detach(ctx); err != nil {
			t.Errorf("round %d: %s.Detach again: %v", round, p.who, err)
		}
		// A standby's claim back-off, waited, and a claim's work.
		waiting.waitStateWithin(t, boundFrom(detachMark, 2*time.Second, standbyRetry), 0, sequencer.Serving)
		_, hi, _ := tickRange(byWorker(feeds[p].all(p.who), id))
		st := waiting.Stats()
		t.Logf("round %d: %s detached worker ID %d; %s served it %v later, %d ticks above %s's last ID",
			round, p.who, id, waiting.who, time.Since(detached).Round(time.Millisecond), int64(st.Floor-hi), p.who)
		checkCleanFloor(t, waiting, st, id, hi, before.Reserved)
		last := st.Floor
		feeds[waiting].waitIDs(t, 100, detached, 5*time.Second)
		if lo, _, _ := tickRange(byWorker(feeds[waiting].received(waiting.who, detached, time.Time{}), id)); lo <= last {
			t.Errorf("round %d: %s's first tick %d on worker ID %d is not above %s's last tick %d", round, waiting.who, lo, id, p.who, last)
		}
		if err := p.Attach(ctx); err != nil {
			t.Fatalf("round %d: %s.Attach: %v", round, p.who, err)
		}
		if err := p.Attach(ctx); err != nil {
			t.Errorf("round %d: %s.Attach again: %v", round, p.who, err)
		}
		p.waitStateWithin(t, boundFrom(schedtest.Now(), 2*time.Second, 0), 0, sequencer.Claiming)
	}
	for _, f := range feeds {
		f.halt()
		_, _, n := tickRange(f.all(f.sq.who))
		t.Logf("%s: %d IDs, %d calls refused", f.sq.who, n, f.refused.Load())
	}
	checkLedger(t, led)
}

// checkCleanFloor checks that p, whose Stats are st, holds worker ID id
// from the last tick its previous holder recorded with a clean release:
// at or above the tick hi of that holder's last ID, and under its
// reservation r.
func checkCleanFloor(t *testing.T, p *seqProc, st sequencer.Stats, id int, hi, r uint64) {
	t.Helper()
	if st.WorkerID != id || st.Floor < hi || st.Floor >= r {
		t.Errorf("%s holds worker ID %d with floor %d, want %d with a floor at or above the previous holder's last tick %d and below its reservation %d",
			p.who, st.WorkerID, st.Floor, id, hi, r)
	}
}

// byWorker returns the batches' IDs of worker ID id, as one batch.
func byWorker(bs []batch, id int) []batch {
	var ids []uint64
	for _, b := range bs {
		for _, v := range b.ids {
			if floedproc.Node(v) == id {
				ids = append(ids, v)
			}
		}
	}
	return []batch{{ids: ids}}
}

// One process destroys the sequence while two serve it: the destroyer is
// destroyed at once, the other within one keepalive interval (a third of
// the TTL), and both refuse IDs with ErrDestroyed. Creating the sequence
// again works at once: a new process serves it.
func seqDestroy(t *testing.T, c coordinator) {
	led := floedproc.NewLedger()
	a := openSeq(t, c, "a", false)
	b := openSeq(t, c, "b", false)
	fa := startSeqFeed(t, led, a, 2)
	fb := startSeqFeed(t, led, b, 2)
	for _, f := range []*seqFeed{fa, fb} {
		f.sq.serving(t, 5*time.Second)
		f.waitIDs(t, 200, time.Time{}, 5*time.Second)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Destroy(ctx); err != nil {
		t.Fatalf("a.Destroy: %v", err)
	}
	mark := schedtest.Now()
	destroyed := mark.At
	a.wantState(t, sequencer.Destroyed)
	// One keepalive interval, waited, and b's keeper's wake-up, work.
	bound := boundFrom(mark, ttl/3+seqSlop, ttl/3)
	at := b.waitStateWithin(t, bound, time.Second, sequencer.Destroyed)
	t.Logf("b destroyed %v after a's Destroy", at.Sub(destroyed).Round(time.Millisecond))
	if ok, want := bound.check(at.Sub(destroyed)); !ok {
		t.Errorf("b destroyed %v after a's Destroy, want within one keepalive interval, %v, and a wake-up: %s", at.Sub(destroyed), ttl/3, want)
	}
	for _, p := range []*seqProc{a, b} {
		if _, err := p.Next64(); !errors.Is(err, sequencer.ErrDestroyed) {
			t.Errorf("%s.Next64 after the destroy: %v, want ErrDestroyed", p.who, err)
		}
		// The destroy ended each one's lease on purpose: no loss.
		if st := p.Stats(); st.Losses != 0 || st.Destroys != 1 {
			t.Errorf("%s after the destroy: %d leases lost and %d ended by a destroy, want 0 and 1", p.who, st.Losses, st.Destroys)
		}
	}
	fa.halt()
	fb.halt()

	d := openSeq(t, c, "d", false)
	d.serving(t, 5*time.Second)
	fd := startSeqFeed(t, led, d, 2)
	fd.waitIDs(t, 100, time.Time{}, 5*time.Second)
	fd.halt()
	checkLedger(t, led)
}
