package sequencer

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
	"github.com/floeid/floe/workerid"
)

// term is one holding of a worker ID: the lease and the generator built
// for it. A term never outlives its lease.
type term struct {
	lease workerid.Lease
	gen   generator // the generator of the format, one of:
	g64   *id64.Generator
	g80   *id80.Generator
	g96   *id96.Generator
	g128  *id128.Generator

	floor   uint64        // nothing at or below it is issued
	durable atomic.Uint64 // the durable reservation R
	// want is the highest tick a caller found above the ceiling; wanted
	// signals the keeper that it rose.
	want   atomic.Uint64
	wanted chan struct{}

	// left is the lease's time to its local deadline (see limited), nil
	// when it has none; an ID of a tick at or below limit was issued
	// before that deadline (see inTime). shift makes an id64 ID its tick.
	left  func() time.Duration
	limit atomic.Uint64
	shift uint
	// lost is set by whoever handles the end of the lease first, the
	// fuse or the supervisor (see cut).
	lost atomic.Bool
}

// limited is a lease with a local deadline, after which the coordinator
// may have given its worker ID to another holder: Left returns the time to
// it on the Source's clock, zero or less once it passed. The etcd and
// Redis leases are. A term of such a lease issues nothing past the
// deadline, even while a reservation write or a renewal is in flight.
type limited interface {
	Left() time.Duration
}

// claim takes a worker ID, reserves the first window durably and returns
// the term ready to issue; the caller publishes it.
func (s *Sequencer) claim(ctx context.Context) (*term, error) {
	ctx, cancel := context.WithTimeout(ctx, s.claimTimeout)
	defer cancel()
	lease, err := s.src.Claim(ctx)
	if err != nil {
		if errors.Is(err, workerid.ErrExhausted) {
			return nil, fmt.Errorf("sequence %q: claiming a worker ID: %w", s.name, err)
		}
		return nil, fmt.Errorf("sequence %q: %w: %w", s.name, ErrClaim, err)
	}
	t, err := s.open(ctx, lease)
	if err != nil {
		// Give the ID back; what it reserved stays its floor.
		rctx, rcancel := context.WithTimeout(context.Background(), s.claimTimeout)
		lease.Release(rctx, 0)
		rcancel()
		return nil, err
	}
	s.claims.Add(1)
	return t, nil
}

func (s *Sequencer) open(ctx context.Context, lease workerid.Lease) (*term, error) {
	t := &term{lease: lease, wanted: make(chan struct{}, 1)}
	if l, ok := lease.(limited); ok {
		t.left = l.Left
	}
	if s.def.Format == Format64 {
		t.shift = uint(s.def.Layout.NodeBits() + s.def.Layout.SequenceBits)
	}
	// What the previous holder left, read before this term reserves: a
	// floor below R is the last tick of a clean release; nothing recorded
	// at all is the worker ID's first use.
	clean := lease.Floor() < lease.Reserved()
	first := lease.Reserved() == 0
	// Rule 2: start strictly above the recorded reservation, or above the
	// last tick of a clean stop, and above the time of death (-t).
	t.floor = max(lease.Floor(), s.minFloor)
	// Rule 1: reserve before the first ID. A reservation still ahead of the
	// clock (a restart within the window) is kept as it is, not pushed a
	// window further: a daemon restarting in a loop must not run away from
	// its clock. The keeper extends it once IDs are wanted above it.
	r := max(lease.Reserved(), t.floor, s.ticks.tick(s.clock.Now())+s.window-1)
	gc := s.gc
	gc.floor, gc.ceiling = t.floor, r
	if err := newGenerator(t, s.def, lease.ID(), gc); err != nil {
		return nil, fmt.Errorf("sequence %q: %w", s.name, err)
	}
	if r > lease.Reserved() {
		if err := lease.Reserve(ctx, r); err != nil {
			return nil, fmt.Errorf("sequence %q: %w: reserving the first window: %w", s.name, ErrClaim, err)
		}
		s.writes.Add(1)
	}
	t.durable.Store(r)
	s.log.Info("worker ID claimed", "worker_id", lease.ID(), "fence", lease.Fence(),
		"floor", t.floor, "floor_time", s.ticks.tickTime(t.floor), "reserved", r,
		"clean_stop", clean, "first_use", first)
	return t, nil
}

// publish makes t the term to issue from, unless the sequencer is closed.
func (s *Sequencer) publish(t *term) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return false
	}
	// The new term's first reservation is durable: a write that failed in
	// the last term (its lease was lost) says nothing of it.
	s.failing.Store(false)
	s.term.Store(t)
	s.notifyLocked()
	return true
}

// inTime reports whether an ID of tick, just taken from t, was taken
// before the local deadline of t's lease. The generator issues no tick
// below the clock's, so a tick below the deadline's was taken before it:
// the hot path compares with limit, and asks the lease only when the tick
// passes it, about once per renewal of the lease.
func (s *Sequencer) inTime(t *term, tick uint64) bool {
	return t.left == nil || tick <= t.limit.Load() || s.renewLimit(t)
}

// renewLimit asks t's lease how long it has left: none, and its IDs are
// refused; else limit moves to the last tick that ends before the deadline,
// and the ID, taken before now, was taken in time.
func (s *Sequencer) renewLimit(t *term) bool {
	left := t.left()
	if left <= 0 {
		return false
	}
	if d := s.ticks.tick(s.clock.Now().Add(left)); d > 0 {
		t.limit.Store(d - 1)
	}
	return true
}

// pastDeadline is the error of a call that found t's lease past its local
// deadline: its IDs were dropped, and the lease is about to end.
func (s *Sequencer) pastDeadline(t *term) error {
	return &NotReadyError{Name: s.name, State: Serving, Reason: fmt.Sprintf("the lease of worker ID %d passed its local deadline", t.lease.ID())}
}

// fuse ends t's service the moment its lease ends, even while the keeper
// waits on a reservation write that does not return: it runs while the
// keeper keeps t, until ended is closed.
func (s *Sequencer) fuse(t *term, ended <-chan struct{}) {
	select {
	case <-t.lease.Done():
		if err := t.lease.Err(); err != nil && !errors.Is(err, workerid.ErrReleased) {
			s.cut(t, err)
		}
	case <-ended:
	}
}

// cut ends t after its lease was lost with err, once: the fuse or the
// supervisor, whichever comes first. Outside a catalog the loss is
// counted before the state changes; in a catalog, the supervisor counts
// it once the catalog said whether the sequence was destroyed.
func (s *Sequencer) cut(t *term, err error) {
	if !t.lost.CompareAndSwap(false, true) {
		return
	}
	if s.catalog == nil || s.gen == 0 {
		s.lost.Add(1)
	}
	s.endTerm(t, "lease lost: "+err.Error(), err)
}

// endTerm unpublishes t: no call starts on it any more, and the IDs a call
// in progress takes from it are dropped (see Next64).
func (s *Sequencer) endTerm(t *term, why string, cause error) {
	s.setWhy(why, cause)
	s.mu.Lock()
	if s.term.CompareAndSwap(t, nil) {
		s.past = addStats(s.past, t.gen.Stats())
		s.notifyLocked()
	}
	// Wake a call waiting for the keeper to raise the ceiling: it finds
	// the term gone and returns.
	close(s.raised)
	s.raised = make(chan struct{})
	s.mu.Unlock()
}

// release ends t and gives its worker ID back, recording the last tick
// issued so the next holder need not wait out the reservation.
func (s *Sequencer) release(t *term, why string) error {
	s.endTerm(t, why, nil)
	return s.releaseLease(context.Background(), t)
}

// releaseLease gives t's worker ID back with the last tick issued. t is
// unpublished: every ID a call returns was issued before that, so the last
// tick read now covers them all.
func (s *Sequencer) releaseLease(ctx context.Context, t *term) error {
	// Nothing issued leaves LastTick at the floor; 1 still marks the stop
	// as clean when the floor is 0, and nothing at or below it was issued.
	last := min(max(t.gen.LastTick(), 1), t.durable.Load())
	ctx, cancel := context.WithTimeout(ctx, s.claimTimeout)
	defer cancel()
	err := t.lease.Release(ctx, last)
	if err != nil {
		s.log.Warn("releasing the worker ID", "worker_id", t.lease.ID(), "err", err)
	}
	return err
}
