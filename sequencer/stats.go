package sequencer

import (
	"time"

	"github.com/floeid/floe"
)

// Stats is what a sequencer has done, as plain values. Counters only grow.
type Stats struct {
	// WorkerID is the worker ID held, or -1 while none is; Fence is its
	// lease's fencing token.
	WorkerID int
	Fence    int64
	// Floor is the tick the current term issues strictly above, Reserved
	// the durable reservation R and LastTick the last tick issued (the
	// floor before the first ID). All are 0 while no worker ID is held.
	Floor, Reserved, LastTick uint64
	// Headroom is the time left between the clock and the end of the
	// durable reservation; negative once the clock passed it. Behind is
	// how far the clock reads behind the first tick the term may issue in
	// (above the floor, and no earlier than the last tick issued); 0 when
	// it is not behind. Both are 0 while no worker ID is held.
	Headroom, Behind time.Duration
	// Claims counts the worker IDs claimed, Losses the leases lost
	// (expired, taken over, or a reservation of unknown result), Writes
	// the durable writes of the reservation and WriteErrors the failed
	// ones.
	Claims, Losses, Writes, WriteErrors uint64
	// Failing reports that the last write of the reservation failed:
	// issuing stops at the current reservation until a write succeeds.
	Failing bool
	// Detaches and Destroys count the worker IDs given up on purpose,
	// which Losses leaves out: released by Detach, and ended because the
	// sequence was destroyed (by Destroy, or cluster-wide: a lease the
	// catalog ended with the sequence is no loss). In a catalog, a lease
	// that ends counts as a destroy when its cause wraps
	// workerid.ErrNotFound (the adapter saw the sequence gone), else in
	// one or the other once the catalog has said whether the sequence is
	// gone, a read bounded by a second, after the sequencer stopped
	// issuing. A reservation the coordinator refused because the sequence
	// is gone is no failed write (WriteErrors).
	Detaches, Destroys uint64
	// Generator sums the counters of the generators of every term.
	Generator floe.Stats
}

// Stats returns the sequencer's counters and its current term's position.
func (s *Sequencer) Stats() Stats {
	st := Stats{
		WorkerID: -1,
		Claims:   s.claims.Load(), Losses: s.lost.Load(),
		Detaches: s.detaches.Load(), Destroys: s.destroys.Load(),
		Writes: s.writes.Load(), WriteErrors: s.errs.Load(),
		Failing: s.failing.Load(),
	}
	s.mu.Lock()
	st.Generator = s.past
	t := s.term.Load()
	if t != nil {
		st.Generator = addStats(st.Generator, t.gen.Stats())
	}
	s.mu.Unlock()
	if t == nil {
		return st
	}
	st.WorkerID, st.Fence = t.lease.ID(), t.lease.Fence()
	st.Floor, st.Reserved, st.LastTick = t.floor, t.durable.Load(), t.gen.LastTick()
	now := s.clock.Now()
	st.Headroom = s.ticks.tickTime(st.Reserved + 1).Sub(now)
	st.Behind = max(s.ticks.tickTime(max(t.floor+1, st.LastTick)).Sub(now), 0)
	return st
}

func addStats(a, b floe.Stats) floe.Stats {
	return floe.Stats{
		Issued: a.Issued + b.Issued, Regressions: a.Regressions + b.Regressions,
		Waits: a.Waits + b.Waits, WaitTime: a.WaitTime + b.WaitTime,
		Borrowed: a.Borrowed + b.Borrowed, Exhausted: a.Exhausted + b.Exhausted,
		TickTocks: a.TickTocks + b.TickTocks, CeilingHits: a.CeilingHits + b.CeilingHits,
	}
}
