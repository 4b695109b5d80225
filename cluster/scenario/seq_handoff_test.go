//go:build unix

package scenario_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/sequencer"
)

// The holder closes its sequencer while its application calls Next64:
// Close records the last tick issued with the release, and a standby
// serves the worker ID at once, starting right above that tick rather
// than above the whole reservation.
func seqGracefulHandoff(t *testing.T, c coordinator) {
	const id = 3
	c.holdAllBut(t, id)
	led := floedproc.NewLedger()
	a := openSeq(t, c, "a", false)
	a.serving(t, 5*time.Second)
	b := openSeq(t, c, "b", false)
	b.wantState(t, sequencer.Claiming)
	fa := startSeqFeed(t, led, a, 2)
	fb := startSeqFeed(t, led, b, 2)
	fa.waitIDs(t, 200, time.Time{}, 5*time.Second)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r := a.Stats().Reserved
	if err := a.Close(ctx); err != nil {
		t.Fatalf("a.Close: %v", err)
	}
	closed := time.Now()
	handoff := boundFrom(schedtest.Now(), time.Second, standbyRetry)
	a.wantState(t, sequencer.Closed)
	if _, err := a.Next64(); !errors.Is(err, sequencer.ErrClosed) {
		t.Errorf("a.Next64 after Close: %v, want ErrClosed", err)
	}
	first, ok := fb.waitServed("b", closed, 5*time.Second)
	if !ok {
		_, why := b.State()
		t.Fatalf("b issued nothing within 5 s of a's Close: %s", why)
	}
	servedIn := first.at.Sub(closed)
	last := b.Stats().Floor
	t.Logf("after a's Close, b served in %v (the release skipped %d ticks of reservation)", servedIn.Round(time.Millisecond), int64(r-last))
	// A standby claims every 250 ms.
	if ok, want := handoff.check(servedIn); !ok {
		t.Errorf("b served %v after a's Close, want within %s", servedIn, want)
	}
	fb.waitIDs(t, 100, closed, 5*time.Second)
	fa.halt()
	fb.halt()

	_, aHi, _ := tickRange(fa.all("a"))
	bLo, _, _ := tickRange(fb.all("b"))
	checkCleanFloor(t, b, b.Stats(), id, aHi, r)
	if bLo <= last {
		t.Errorf("b's first tick %d is not above a's last tick %d", bLo, last)
	}
	onlyWorker(t, "b", fb.all("b"), id)
	checkLedger(t, led)
}

// Two processes contend for the one free worker ID, each with a
// sequencer and a client of its own, both opened at once and both called
// throughout: one serves, the other waits in state Claiming. The holder
// crashes: the other serves once the coordinator frees the ID, above the
// crashed holder's reservation. A third process opens while it serves and
// waits; the holder closes, and the third serves right above its last
// tick.
func seqContention(t *testing.T, c coordinator) {
	const id = 5
	c.holdAllBut(t, id)
	led := floedproc.NewLedger()

	procs := make([]*seqProc, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, who := range []string{"a", "b"} {
		wg.Go(func() { procs[i], errs[i] = c.tryOpen(t, who, false) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	feeds := make(map[*seqProc]*seqFeed)
	for _, p := range procs {
		feeds[p] = startSeqFeed(t, led, p, 2)
	}
	var holder, other *seqProc
	if !floedproc.WaitFor(5*time.Second, func() bool {
		for i, p := range procs {
			if st, _ := p.State(); st == sequencer.Serving {
				holder, other = p, procs[1-i]
				return true
			}
		}
		return false
	}) {
		t.Fatal("neither a nor b serves within 5 s")
	}
	feeds[holder].waitIDs(t, 200, time.Time{}, 5*time.Second)
	other.wantState(t, sequencer.Claiming)
	if bs := feeds[other].all(other.who); len(bs) > 0 {
		t.Fatalf("%s issued %d batches while %s held the only free worker ID", other.who, len(bs), holder.who)
	}
	t.Logf("%s won worker ID %d; %s waits", holder.who, id, other.who)

	// The holder crashes.
	holder.crash()
	crashMark := schedtest.Now()
	crashed := crashMark.At
	feeds[holder].halt()
	r, _ := c.reservation(t, id)
	takeover := boundFrom(crashMark, ttl+2*time.Second, ttl)
	first, ok := feeds[other].waitServedWithin(other.who, crashed, takeover, 0)
	if !ok {
		_, why := other.State()
		_, want := takeover.check(time.Since(crashed))
		t.Fatalf("%s issued nothing within %s of %s's crash: %s", other.who, want, holder.who, why)
	}
	t.Logf("%s served %v after %s's crash", other.who, first.at.Sub(crashed).Round(time.Millisecond), holder.who)
	_, hHi, _ := tickRange(feeds[holder].all(holder.who))
	if st := other.Stats(); st.WorkerID != id || st.Floor != r || r < hHi {
		t.Errorf("%s holds worker ID %d with floor %d, want %d with %s's reservation %d (its last tick %d)", other.who, st.WorkerID, st.Floor, id, holder.who, r, hHi)
	}
	if lo, _, _ := tickRange(feeds[other].all(other.who)); lo <= r {
		t.Errorf("%s's first tick %d is not above %s's reservation %d", other.who, lo, holder.who, r)
	}

	// A third process comes, and waits for the ID.
	third := openSeq(t, c, "c", false)
	third.wantState(t, sequencer.Claiming)
	fc := startSeqFeed(t, led, third, 2)
	feeds[other].waitIDs(t, 100, time.Now(), 5*time.Second)
	if bs := fc.all("c"); len(bs) > 0 {
		t.Fatalf("c issued %d batches while %s held the only free worker ID", len(bs), other.who)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r = other.Stats().Reserved
	if err := other.Close(ctx); err != nil {
		t.Fatalf("%s.Close: %v", other.who, err)
	}
	closed := time.Now()
	feeds[other].halt()
	if _, ok := fc.waitServed("c", closed, 5*time.Second); !ok {
		_, why := third.State()
		t.Fatalf("c issued nothing within 5 s of %s's Close: %s", other.who, why)
	}
	fc.waitIDs(t, 100, closed, 5*time.Second)
	fc.halt()
	_, oHi, _ := tickRange(feeds[other].all(other.who))
	st := third.Stats()
	checkCleanFloor(t, third, st, id, oHi, r)
	last := st.Floor
	if lo, _, _ := tickRange(fc.all("c")); lo <= last {
		t.Errorf("c's first tick %d is not above %s's last tick %d", lo, other.who, last)
	}
	for _, f := range feeds {
		onlyWorker(t, f.sq.who, f.all(f.sq.who), id)
	}
	onlyWorker(t, "c", fc.all("c"), id)
	checkLedger(t, led)
}
