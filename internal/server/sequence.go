package server

import (
	"cmp"
	"crypto/subtle"
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
	ticks  ticks     // immutable: the format's time
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
	def, k, err := describe(sc)
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
	s := &sequence{
		name: sc.Name, format: cmp.Or(sc.Format, Format64), def: def, tokens: sc.Tokens, ticks: k,
		clock: cfg.Clock, store: cfg.Store, policy: cfg.Policy, maxWait: cfg.MaxWait, maxAhead: cmp.Or(cfg.MaxAhead, time.Second),
		log:    cfg.Logger.With("seq", sc.Name),
		raised: make(chan struct{}),
		turn:   make(chan struct{}, 1),
	}
	s.window = max(uint64(cfg.Window/k.unit), 2)
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
		s.floor = max(s.floor, k.tick(cfg.Floor))
	}
	// Rule 1: reserve before the first ID. A reservation still ahead of the
	// clock (a restart within the window) is kept as it is, not pushed a
	// window further: a daemon restarting in a loop must not run away from
	// its clock. The keeper extends it once IDs are wanted above it.
	first := max(rec.Reserved, s.floor, k.tick(s.clock.Now())+s.window)
	// The generator validates the rest of sc before anything is written;
	// it issues nothing before openSequence returns.
	s.gen, err = newGenerator(sc, genConfig{
		clock: cfg.Clock, policy: cfg.Policy, maxAhead: cfg.MaxAhead, maxWait: cfg.MaxWait,
		floor: s.floor, ceiling: first, lowWater: time.Duration(s.low) * k.unit,
	})
	if err != nil {
		return nil, fmt.Errorf("sequence %q: %w", sc.Name, err)
	}
	if err := s.store.Save(s.name, Record{Definition: def, Reserved: first}); err != nil {
		return nil, fmt.Errorf("sequence %q: reserving: %w", sc.Name, err)
	}
	s.durable.Store(first)
	s.writes.Add(1)
	s.log.Info("sequence ready", "format", s.format, "definition", def,
		"floor", s.floor, "floor_time", k.tickTime(s.floor), "reserved", first,
		"clean_stop", ok && rec.Last != 0)
	return s, nil
}

// keep extends the reservation ahead of need until stop is closed.
func (s *sequence) keep(stop <-chan struct{}) {
	// Check a few times per window even without a signal, so the
	// reservation follows the clock through idle times.
	every := time.Duration(s.low) * s.ticks.unit / 2
	t := time.NewTicker(max(every, time.Millisecond))
	defer t.Stop()
	backoff := time.Duration(0)
	for {
		select {
		case <-stop:
			return
		case <-s.gen.Need():
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
	base := s.ticks.tick(s.clock.Now())
	r := s.durable.Load()
	if last := s.gen.LastTick(); last > s.floor {
		base = max(base, last)
	}
	if hits := s.gen.Stats().CeilingHits; hits != s.seenHits {
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
	s.gen.RaiseCeiling(target)
	s.mu.Lock()
	close(s.raised)
	s.raised = make(chan struct{})
	s.mu.Unlock()
	return nil
}

// awaitRaise reports whether err is the reservation ceiling and the keeper
// raised the reservation above it, waiting for at most the sequence's
// MaxWait or until stop closes: the caller then tries again.
func (s *sequence) awaitRaise(err error, stop <-chan struct{}) bool {
	var ce *floe.CeilingError
	if !errors.As(err, &ce) {
		return false
	}
	c := ce.Ceiling
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

// hasToken reports whether token is one of the sequence's, comparing with
// each in constant time.
func (s *sequence) hasToken(token []byte) bool {
	found := false
	for _, t := range s.tokens {
		if subtle.ConstantTimeCompare([]byte(t), token) == 1 {
			found = true
		}
	}
	return found
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
		if !s.awaitRaise(err, stop) {
			return err
		}
	}
}

// appendText appends n IDs' text to dst, each through each, waiting for
// the keeper when the reservation ceiling is reached.
func (s *sequence) appendText(dst []byte, n int, each func(dst []byte, id []byte) []byte, stop <-chan struct{}) ([]byte, error) {
	s.turn <- struct{}{}
	defer func() { <-s.turn }()
	var buf [32]byte
	for i := 0; i < n; {
		text, err := s.gen.appendText(buf[:0])
		if err != nil {
			if !s.awaitRaise(err, stop) {
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
	if t := s.ticks.tick(now); t <= s.floor && s.gen.LastTick() <= s.floor {
		behind := s.ticks.tickTime(s.floor + 1).Sub(now)
		return fmt.Errorf("%w: %s: the clock is %v behind the reservation of the previous run", ErrNotReady, s.name, behind)
	}
	return nil
}

// stopClean records the last tick issued, so the next start need not wait
// out the reservation window. The caller guarantees no more IDs are issued.
func (s *sequence) stopClean() error {
	last := s.gen.LastTick()
	r := s.durable.Load()
	if last > r { // cannot happen: the ceiling is R
		last = r
	}
	return s.store.Save(s.name, Record{Definition: s.def, Reserved: r, Last: max(last, 1)})
}
