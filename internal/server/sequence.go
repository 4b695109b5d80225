package server

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id64"
)

// sequence is one named sequence: its generator and the keeper of its
// reservation. It is safe for concurrent use.
type sequence struct {
	name   string    // immutable
	format Format    // immutable
	def    string    // immutable: the recorded definition
	tokens []string  // immutable
	gen    generator // immutable
	clock  floe.Clock
	store  Store
	log    *slog.Logger
	policy floe.Policy

	floor   uint64 // immutable: nothing at or below it is issued
	window  uint64 // immutable: ticks a reservation reaches ahead
	low     uint64 // immutable: headroom under which the keeper extends
	maxWait time.Duration
	// maxAhead is how far policy Borrow runs ahead of the clock.
	maxAhead time.Duration

	durable atomic.Uint64 // the durable reservation R
	failing atomic.Bool   // the last store write failed
	writes  atomic.Uint64 // successful store writes
	errs    atomic.Uint64 // failed store writes

	seenHits uint64 // owned by the keeper: ceiling hits already answered

	// turn serves requests one at a time in arrival order: a channel's
	// blocked senders queue first in, first out. Without it, callers
	// waiting for the next tick race for it, and under saturation a
	// connection can lose several ticks in a row while others win.
	turn chan struct{}

	mu     sync.Mutex
	raised chan struct{} // guarded by mu: closed and replaced when R rises
}

// openSequence loads the record of sc, checks its definition, reserves the
// first window durably and returns the sequence ready to issue.
func openSequence(sc SequenceConfig, cfg *Config) (*sequence, error) {
	def, err := definition(sc)
	if err != nil {
		return nil, err
	}
	rec, ok, err := cfg.Store.Load(sc.Name)
	if err != nil {
		return nil, fmt.Errorf("sequence %q: reading its reservation: %w", sc.Name, err)
	}
	if ok && rec.Definition != def {
		return nil, fmt.Errorf("%w: sequence %q was %s and is now %s; use a new sequence name (or a new state directory with a floor above the old IDs)", ErrDefinition, sc.Name, rec.Definition, def)
	}
	// A probe generator converts times to this format's ticks.
	probe, err := newGenerator(sc, genConfig{clock: cfg.Clock, maxWait: cfg.MaxWait})
	if err != nil {
		return nil, fmt.Errorf("sequence %q: %w", sc.Name, err)
	}
	s := &sequence{
		name: sc.Name, format: sc.Format, def: def, tokens: sc.Tokens,
		clock: cfg.Clock, store: cfg.Store, policy: cfg.Policy, maxWait: cfg.MaxWait, maxAhead: cmp.Or(cfg.MaxAhead, time.Second),
		log:    cfg.Logger.With("seq", sc.Name),
		raised: make(chan struct{}),
		turn:   make(chan struct{}, 1),
	}
	if s.format == "" {
		s.format = Format64
	}
	unit := probe.tickTime(1).Sub(probe.tickTime(0))
	s.window = max(uint64(cfg.Window/unit), 2)
	s.low = s.window / 2

	// Rule 2: start strictly above the recorded reservation, or above the
	// last tick of a clean stop, and above the time of death.
	switch {
	case ok && rec.Last != 0:
		s.floor = rec.Last
	case ok:
		s.floor = rec.Reserved
	}
	if !cfg.Floor.IsZero() {
		s.floor = max(s.floor, probe.tick(cfg.Floor))
	}
	// Rule 1: reserve before the first ID. A reservation still ahead of the
	// clock (a restart within the window) is kept as it is, not pushed a
	// window further: a daemon restarting in a loop must not run away from
	// its clock. The keeper extends it once IDs are wanted above it.
	first := max(rec.Reserved, s.floor, probe.tick(s.clock.Now())+s.window)
	if err := s.store.Save(s.name, Record{Definition: def, Reserved: first}); err != nil {
		return nil, fmt.Errorf("sequence %q: reserving: %w", sc.Name, err)
	}
	s.durable.Store(first)
	s.writes.Add(1)
	s.gen, err = newGenerator(sc, genConfig{
		clock: cfg.Clock, policy: cfg.Policy, maxAhead: cfg.MaxAhead, maxWait: cfg.MaxWait,
		floor: s.floor, ceiling: s.durable.Load(), lowWater: time.Duration(s.low) * unit,
	})
	if err != nil {
		return nil, fmt.Errorf("sequence %q: %w", sc.Name, err)
	}
	s.log.Info("sequence ready", "format", s.format, "definition", def,
		"floor", s.floor, "floor_time", probe.tickTime(s.floor), "reserved", s.durable.Load(),
		"clean_stop", ok && rec.Last != 0)
	return s, nil
}

// keep extends the reservation ahead of need until stop is closed.
func (s *sequence) keep(stop <-chan struct{}) {
	// Check a few times per window even without a signal, so the
	// reservation follows the clock through idle times.
	every := time.Duration(s.low) * (s.gen.tickTime(1).Sub(s.gen.tickTime(0))) / 2
	t := time.NewTicker(max(every, time.Millisecond))
	defer t.Stop()
	backoff := time.Duration(0)
	for {
		select {
		case <-stop:
			return
		case <-s.gen.need():
		case <-t.C:
		}
		if err := s.extend(); err != nil {
			backoff = min(max(2*backoff, 10*time.Millisecond), time.Second)
			select {
			case <-stop:
				return
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
	}
}

// extend raises the reservation when less than half a window is left above
// the later of the clock and the last tick issued. It raises the
// generator's ceiling only after the store made the new R durable.
func (s *sequence) extend() error {
	// The tick IDs are wanted at: the clock's, the last one issued (Borrow
	// runs ahead), and the ceiling itself when a caller hit it. The floor
	// alone wants nothing: counting it would move the reservation a window
	// ahead at every restart.
	base := s.gen.tick(s.clock.Now())
	r := s.durable.Load()
	if last := s.gen.lastTick(); last > s.floor {
		base = max(base, last)
	}
	if hits := s.gen.stats().CeilingHits; hits != s.seenHits {
		s.seenHits = hits
		base = max(base, r)
	}
	if r > base && r-base > s.low {
		return nil
	}
	target := base + s.window
	if err := s.store.Save(s.name, Record{Definition: s.def, Reserved: target}); err != nil {
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
	s.durable.Store(target)
	s.gen.raise(target)
	s.mu.Lock()
	close(s.raised)
	s.raised = make(chan struct{})
	s.mu.Unlock()
	return nil
}

// awaitRaise waits until the reservation rises above c, for at most the
// sequence's MaxWait or until stop closes; it reports whether it rose.
func (s *sequence) awaitRaise(c uint64, stop <-chan struct{}) bool {
	timer := time.NewTimer(s.maxWait)
	defer timer.Stop()
	for {
		s.mu.Lock()
		ch := s.raised
		s.mu.Unlock()
		if s.durable.Load() > c {
			return true
		}
		select {
		case <-ch:
		case <-timer.C:
			return false
		case <-stop:
			return false
		}
	}
}

// fill64 fills dst with IDs, waiting for the keeper when the reservation
// ceiling is reached.
func (s *sequence) fill64(dst []id64.ID, stop <-chan struct{}) error {
	s.turn <- struct{}{}
	defer func() { <-s.turn }()
	i := 0
	for {
		n, err := s.gen.fill64(dst[i:])
		i += n
		if err == nil {
			return nil
		}
		var ce *floe.CeilingError
		if !errors.As(err, &ce) || !s.awaitRaise(ce.Ceiling, stop) {
			return err
		}
	}
}

// appendText appends n IDs' text to dst, each followed by sep, waiting for
// the keeper when the reservation ceiling is reached.
func (s *sequence) appendText(dst []byte, n int, each func(dst []byte, id []byte) []byte, stop <-chan struct{}) ([]byte, error) {
	s.turn <- struct{}{}
	defer func() { <-s.turn }()
	var buf [32]byte
	for i := 0; i < n; {
		text, err := s.gen.appendText(buf[:0])
		if err != nil {
			var ce *floe.CeilingError
			if !errors.As(err, &ce) || !s.awaitRaise(ce.Ceiling, stop) {
				return dst, err
			}
			continue
		}
		dst = each(dst, text)
		i++
	}
	return dst, nil
}

// ready reports why the sequence cannot issue now, or nil.
func (s *sequence) ready() error {
	if s.failing.Load() {
		return fmt.Errorf("%w: %s: the reservation cannot be extended", ErrNotReady, s.name)
	}
	now := s.clock.Now()
	if s.policy == floe.Borrow {
		now = now.Add(s.maxAhead)
	}
	if t := s.gen.tick(now); t <= s.floor && s.gen.lastTick() <= s.floor {
		behind := s.gen.tickTime(s.floor + 1).Sub(now)
		return fmt.Errorf("%w: %s: the clock is %v behind the reservation of the previous run", ErrNotReady, s.name, behind)
	}
	return nil
}

// stopClean records the last tick issued, so the next start need not wait
// out the reservation window. The caller guarantees no more IDs are issued.
func (s *sequence) stopClean() error {
	last := s.gen.lastTick()
	r := s.durable.Load()
	if last > r { // cannot happen: the ceiling is R
		last = r
	}
	return s.store.Save(s.name, Record{Definition: s.def, Reserved: r, Last: max(last, 1)})
}
