package sequencer

import (
	"context"
	"errors"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/workerid"
)

// keep extends t's reservation ahead of need until the lease is lost
// (returned), a Detach or Destroy request arrives (returned), or stop is
// closed.
func (s *Sequencer) keep(t *term) (*request, error) {
	// Wake when the clock brings the headroom down to low, so the
	// reservation follows the clock through idle times; Need wakes the
	// keeper sooner when IDs are wanted ahead of the clock.
	// The fuse stops issuing when the lease ends, even while this
	// goroutine waits on a write; it is done before keep returns.
	ended, fused := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(fused)
		s.fuse(t, ended)
	}()
	defer func() {
		close(ended)
		<-fused
	}()
	timer := time.NewTimer(s.untilLow(t))
	defer timer.Stop()
	backoff := time.Duration(0)
	var retry <-chan time.Time // set while a failed write waits out its back-off
	for {
		need, tick := t.gen.Need(), timer.C
		if retry != nil {
			need, tick = nil, nil
		}
		select {
		case <-s.stop:
			return nil, nil
		case req := <-s.req:
			if req.op == opAttach {
				req.done <- nil // already attached
				continue
			}
			return &req, nil
		case <-t.lease.Done():
			return nil, t.lease.Err()
		case <-need:
		case <-t.wanted:
		case <-tick:
		case <-retry:
		}
		retry = nil
		err := s.extend(t)
		timer.Reset(s.untilLow(t))
		if err != nil {
			var lost *workerid.LeaseLostError
			if errors.As(err, &lost) {
				return nil, err
			}
			backoff = min(max(2*backoff, 10*time.Millisecond), faultRetry)
			retry = time.After(jitter(backoff))
			continue
		}
		backoff = 0
	}
}

// untilLow returns how long until the clock leaves only low ticks of
// headroom under t's reservation: when the keeper must write. It is at most
// an eighth of a window, so that a clock stepped forward (or a test's fake
// clock) is noticed soon, and at least a millisecond.
func (s *Sequencer) untilLow(t *term) time.Duration {
	longest := max(time.Duration(s.window)*s.ticks.unit/8, time.Millisecond)
	r := t.durable.Load()
	if r+1 <= s.low {
		return time.Millisecond
	}
	d := s.ticks.tickTime(r + 1 - s.low).Sub(s.clock.Now())
	return min(max(d, time.Millisecond), longest)
}

// extend raises the reservation when at most low ticks (half a window and
// a sixteenth) are left above the later of the clock and the last tick
// issued, to one window above it: the headroom stays between half a window
// and a window, and a crash costs at most a window of waiting. It raises
// the generator's ceiling only after the lease made the new R durable.
func (s *Sequencer) extend(t *term) error {
	// The tick IDs are wanted at: the clock's, the last one issued (Borrow
	// runs ahead), and the one a caller waits for above the ceiling. The floor
	// alone wants nothing: counting it would move the reservation a window
	// ahead at every restart.
	base := s.ticks.tick(s.clock.Now())
	r := t.durable.Load()
	if last := t.gen.LastTick(); last > t.floor {
		base = max(base, last)
	}
	if w := t.want.Load(); w > r {
		base = max(base, w) // a caller waits for a tick above R
	}
	// Headroom counts the base tick itself: R = base + window - 1 ends
	// exactly one window after the start of the base tick.
	if r >= base && r+1-base > s.low {
		return nil
	}
	target := base + s.window - 1
	// A Close or Orphan does not wait out a coordinator that does not
	// answer, nor does a lease that ended meanwhile (its deadline passed):
	// the write is abandoned, and its result, unknown, raises nothing here.
	stop, unstop := contextUntil(s.stop, t.lease.Done())
	ctx, cancel := context.WithTimeout(stop, s.claimTimeout)
	err := t.lease.Reserve(ctx, target)
	cancel()
	unstop()
	if err != nil {
		if s.destroyedCause(err) {
			return err // no failed write: the supervisor ends the term as a destroy
		}
		s.errs.Add(1)
		if !s.failing.Swap(true) {
			s.log.Error("reservation not extended; issuing stops at the current one", "reserved", r, "err", err)
		}
		return err
	}
	s.writes.Add(1)
	if s.failing.Swap(false) {
		s.log.Info("reservation extended again", "reserved", target)
	}
	t.durable.Store(target)
	t.gen.RaiseCeiling(target)
	s.mu.Lock()
	close(s.raised)
	s.raised = make(chan struct{})
	s.mu.Unlock()
	return nil
}

// awaitRaise reports whether err is the reservation ceiling of t and the
// keeper raised the reservation above it, waiting for at most MaxWait, or
// until ctx's deadline, ctx is done, the sequencer closes or t ends: the
// caller then tries again.
func (s *Sequencer) awaitRaise(ctx context.Context, t *term, err error) bool {
	var ce *floe.CeilingError
	if !errors.As(err, &ce) {
		return false
	}
	c := ce.Ceiling
	for w := t.want.Load(); ce.Tick > w && !t.want.CompareAndSwap(w, ce.Tick); w = t.want.Load() {
	}
	select {
	case t.wanted <- struct{}{}:
	default:
	}
	if ctx.Err() != nil {
		return false
	}
	wait := s.maxWait
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d))
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		s.mu.Lock()
		ch := s.raised
		s.mu.Unlock()
		if t.durable.Load() > c {
			return true
		}
		if s.term.Load() != t {
			return false
		}
		select {
		case <-ch:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		case <-s.stop:
			return false
		}
	}
}
