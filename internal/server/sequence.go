package server

import (
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/workerid"
)

// sequence is one named sequence: the lease of its worker ID, the
// generator of the current term and the keeper of its reservation. It is
// safe for concurrent use.
type sequence struct {
	sc     SequenceConfig // immutable
	name   string         // immutable
	format Format         // immutable
	spec   string         // immutable: the cluster-wide definition
	def    string         // immutable: spec plus the fixed node
	tokens []string       // immutable
	ticks  ticks          // immutable: the format's time
	src    workerid.Source
	clock  floe.Clock
	log    *slog.Logger
	policy floe.Policy
	gc     genConfig // immutable: the generator settings but floor and ceiling

	minFloor uint64 // immutable: noeqd's -t as a tick
	window   uint64 // immutable: ticks the reservation reaches ahead of need
	low      uint64 // immutable: headroom at or under which the keeper extends
	maxWait  time.Duration
	// maxAhead is how far policy Borrow runs ahead of the clock.
	maxAhead time.Duration
	// claimTimeout bounds one claim of a worker ID.
	claimTimeout time.Duration

	term    atomic.Pointer[term] // nil while no worker ID is held
	failing atomic.Bool          // the last reservation write failed
	writes  atomic.Uint64        // successful reservation writes
	errs    atomic.Uint64        // failed reservation writes
	lost    atomic.Uint64        // leases lost
	claims  atomic.Uint64        // leases claimed
	why     atomic.Pointer[string]

	// turn serves requests one at a time in arrival order: a channel's
	// blocked senders queue first in, first out. Without it, callers
	// waiting for the next tick race for it, and under saturation a
	// connection can lose several ticks in a row while others win. Holding
	// it also keeps a term from ending in the middle of a request.
	turn chan struct{}

	// attach carries Attach (true) and Detach (false) to the supervisor.
	attach chan attachReq

	mu     sync.Mutex
	raised chan struct{} // guarded by mu: closed and replaced when R rises
	past   floe.Stats    // guarded by mu: the counters of ended terms
	// onEnd is called when a term ends (the server closes the sequence's
	// binary connections). Immutable after New.
	onEnd func()
	// gone, when set, reports whether the cluster destroyed the sequence:
	// asked after a lost lease, before claiming again. Immutable.
	gone func() bool
	// attached is whether the supervisor holds or claims a worker ID.
	attached atomic.Bool
}

// term is one holding of a worker ID: the lease and the generator built
// for it. A term never outlives its lease.
type term struct {
	lease   workerid.Lease
	gen     generator
	floor   uint64        // nothing at or below it is issued
	durable atomic.Uint64 // the durable reservation R
	// want is the highest tick a caller found above the ceiling; wanted
	// signals the keeper that it rose.
	want   atomic.Uint64
	wanted chan struct{}
}

type attachReq struct {
	on   bool
	done chan error
}

// newSequence validates sc and returns its sequence, holding no worker ID.
func newSequence(sc SequenceConfig, cfg *Config) (*sequence, error) {
	spec, def, k, err := describe(sc)
	if err != nil {
		return nil, err
	}
	src := sc.Source
	if src == nil {
		if cfg.Store == nil {
			return nil, fmt.Errorf("%w: sequence %q has no worker-ID source and the server no store", ErrConfig, sc.Name)
		}
		id, err := StaticID(sc)
		if err != nil {
			return nil, err
		}
		src = workerid.NewStatic(id, &storeRecords{store: cfg.Store, name: sc.Name, def: def})
	}
	s := &sequence{
		sc: sc, name: sc.Name, format: cmp.Or(sc.Format, Format64), spec: spec, def: def, tokens: sc.Tokens, ticks: k,
		src: src, clock: cfg.Clock, policy: cfg.Policy, maxWait: cfg.MaxWait, maxAhead: cmp.Or(cfg.MaxAhead, time.Second),
		log:          cfg.Logger.With("seq", sc.Name),
		claimTimeout: cfg.ClaimTimeout,
		raised:       make(chan struct{}),
		turn:         make(chan struct{}, 1),
		attach:       make(chan attachReq),
	}
	// The reservation reaches at most one window ahead of need, so a crash
	// costs at most one window of waiting; the keeper writes once the
	// headroom falls to half a window plus a sixteenth, the sixteenth
	// being the write's own time, so the headroom stays above half a
	// window: one write every 7/16 of a window while serving.
	s.window = max(uint64(cfg.Window/k.unit), 2)
	s.low = s.window/2 + s.window/16
	if !cfg.Floor.IsZero() {
		s.minFloor = k.tick(cfg.Floor)
	}
	s.gc = genConfig{
		clock: cfg.Clock, policy: cfg.Policy, maxAhead: cfg.MaxAhead, maxWait: cfg.MaxWait,
		lowWater: time.Duration(s.low) * k.unit,
	}
	s.setWhy("no worker ID claimed yet")
	return s, nil
}

func (s *sequence) setWhy(why string) { s.why.Store(&why) }

// claim takes a worker ID, reserves the first window durably and returns
// the term ready to issue; the caller publishes it.
func (s *sequence) claim(ctx context.Context) (*term, error) {
	ctx, cancel := context.WithTimeout(ctx, s.claimTimeout)
	defer cancel()
	lease, err := s.src.Claim(ctx)
	if err != nil {
		return nil, fmt.Errorf("sequence %q: claiming a worker ID: %w", s.name, err)
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

func (s *sequence) open(ctx context.Context, lease workerid.Lease) (*term, error) {
	t := &term{lease: lease, wanted: make(chan struct{}, 1)}
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
	var err error
	if t.gen, err = newGenerator(withNode(s.sc, lease.ID()), gc); err != nil {
		return nil, fmt.Errorf("sequence %q: %w", s.name, err)
	}
	if r > lease.Reserved() {
		if err := lease.Reserve(ctx, r); err != nil {
			return nil, fmt.Errorf("sequence %q: reserving: %w", s.name, err)
		}
		s.writes.Add(1)
	}
	t.durable.Store(r)
	s.log.Info("worker ID claimed", "worker_id", lease.ID(), "fence", lease.Fence(),
		"floor", t.floor, "floor_time", s.ticks.tickTime(t.floor), "reserved", r,
		"clean_stop", clean, "first_use", first)
	return t, nil
}

// standbyRetry is the longest wait between claims while every worker ID is
// held. A freed ID (its holder died, its lease expired) is served this late
// at most after the coordinator frees it; with the 2 s cap of other
// failures, a standby served a dead holder's ID up to TTL + 2.5 s after the
// death. A claim that finds every ID held is cheap: in etcd a lease grant,
// a read and a revocation, in Redis one script.
const standbyRetry = 250 * time.Millisecond

// run is the sequence's supervisor: it holds a worker ID while attached,
// keeps its reservation ahead, and when the lease is lost ends the term at
// once and claims again. It returns when stop is closed, leaving the last
// term published for the clean stop.
func (s *sequence) run(stop <-chan struct{}, t *term) {
	// attached changes with s.attached, before any request is answered:
	// an admin reading the sequence after a detach sees it detached.
	attached := true
	s.attached.Store(true)
	attach := func(on bool) {
		attached = on
		s.attached.Store(on)
	}
	backoff := time.Duration(0)
	for {
		if t == nil && attached {
			var err error
			ctx, cancel := contextUntil(stop)
			t, err = s.claim(ctx)
			cancel()
			if err != nil {
				backoff = min(max(2*backoff, 50*time.Millisecond), 2*time.Second)
				s.setWhy(err.Error())
				if s.gone != nil && s.gone() {
					s.setWhy("destroyed cluster-wide")
					attach(false)
					continue
				}
				if errors.Is(err, workerid.ErrExhausted) {
					// A standby: the sooner it claims again, the sooner
					// it serves a worker ID that frees. Warn once per wait.
					if backoff <= 50*time.Millisecond {
						s.log.Warn("every worker ID is held; claiming again until one frees", "retry", standbyRetry)
					}
					backoff = min(backoff, standbyRetry)
				} else {
					s.log.Error("claiming a worker ID failed; claiming again", "err", err, "retry", backoff)
				}
				select {
				case <-stop:
					return
				case req := <-s.attach:
					attach(req.on)
					req.done <- nil
				case <-time.After(backoff):
				}
				continue
			}
			backoff = 0
			// The new term's first reservation is durable: a write that
			// failed in the last term (its lease was lost) says nothing of it.
			s.failing.Store(false)
			s.term.Store(t)
		}
		if t == nil {
			select {
			case <-stop:
				return
			case req := <-s.attach:
				attach(req.on)
				req.done <- nil
			}
			continue
		}
		req, lost := s.keep(t, stop)
		switch {
		case lost != nil:
			s.lost.Add(1)
			s.endTerm(t, "lease lost: "+lost.Error())
			s.log.Error("worker ID lease lost; issuing stopped", "worker_id", t.lease.ID(), "err", lost)
			t = nil
			if s.gone != nil && s.gone() {
				s.setWhy("destroyed cluster-wide")
				s.log.Warn("the sequence was destroyed cluster-wide; no longer serving it")
				attach(false)
			}
		case req != nil:
			var err error
			if !req.on {
				err = s.release(t, "detached")
				t = nil
				attach(false)
			}
			req.done <- err
		default: // stop
			return
		}
	}
}

// contextUntil returns a context cancelled when stop closes.
func contextUntil(stop <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// endTerm unpublishes t: no request starts on it any more, and the one in
// progress, if any, has finished when endTerm returns.
func (s *sequence) endTerm(t *term, why string) {
	s.setWhy(why)
	s.term.CompareAndSwap(t, nil)
	// Wake a request waiting for the keeper to raise the ceiling before
	// waiting for the turn it holds: it finds the term gone and returns.
	// Woken after, it kept the term's end (closing its connections,
	// claiming again) waiting for up to MaxWait.
	s.mu.Lock()
	close(s.raised)
	s.raised = make(chan struct{})
	s.mu.Unlock()
	s.turn <- struct{}{}
	<-s.turn
	st := t.gen.Stats()
	s.mu.Lock()
	s.past = addStats(s.past, st)
	s.mu.Unlock()
	if s.onEnd != nil {
		s.onEnd()
	}
}

// release ends t and gives its worker ID back, recording the last tick
// issued so the next holder need not wait out the reservation.
func (s *sequence) release(t *term, why string) error {
	s.endTerm(t, why)
	return s.releaseLease(t)
}

func (s *sequence) releaseLease(t *term) error {
	// Nothing issued leaves LastTick at the floor; 1 still marks the stop
	// as clean when the floor is 0, and nothing at or below it was issued.
	last := min(max(t.gen.LastTick(), 1), t.durable.Load())
	ctx, cancel := context.WithTimeout(context.Background(), s.claimTimeout)
	defer cancel()
	err := t.lease.Release(ctx, last)
	if err != nil {
		s.log.Warn("releasing the worker ID", "worker_id", t.lease.ID(), "err", err)
	}
	return err
}

// keep extends t's reservation ahead of need until the lease is lost
// (returned), an attach request arrives (returned), or stop is closed.
func (s *sequence) keep(t *term, stop <-chan struct{}) (*attachReq, error) {
	// Wake when the clock brings the headroom down to low, so the
	// reservation follows the clock through idle times; Need wakes the
	// keeper sooner when IDs are wanted ahead of the clock.
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
		case <-stop:
			return nil, nil
		case req := <-s.attach:
			if req.on {
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
			backoff = min(max(2*backoff, 10*time.Millisecond), time.Second)
			retry = time.After(backoff)
			continue
		}
		backoff = 0
	}
}

// untilLow returns how long until the clock leaves only low ticks of
// headroom under t's reservation: when the keeper must write. It is at most
// an eighth of a window, so that a clock stepped forward (or a test's fake
// clock) is noticed soon, and at least a millisecond.
func (s *sequence) untilLow(t *term) time.Duration {
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
func (s *sequence) extend(t *term) error {
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
	ctx, cancel := context.WithTimeout(context.Background(), s.claimTimeout)
	err := t.lease.Reserve(ctx, target)
	cancel()
	if err != nil {
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
// keeper raised the reservation above it, waiting for at most the
// sequence's MaxWait or until stop closes or t ends: the caller then tries
// again.
func (s *sequence) awaitRaise(t *term, err error, stop <-chan struct{}) bool {
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
	timer := time.NewTimer(s.maxWait)
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

// current returns the term to issue from, or an error saying why there is
// none.
func (s *sequence) current() (*term, error) {
	if t := s.term.Load(); t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("%w: %s: %s", ErrNotReady, s.name, *s.why.Load())
}

// fill64 fills dst with IDs, waiting for the keeper when the reservation
// ceiling is reached.
func (s *sequence) fill64(dst []id64.ID, stop <-chan struct{}) error {
	s.turn <- struct{}{}
	defer func() { <-s.turn }()
	t, err := s.current()
	if err != nil {
		return err
	}
	i := 0
	for {
		n, err := t.gen.fill64(dst[i:])
		i += n
		if err == nil {
			return nil
		}
		if !s.awaitRaise(t, err, stop) {
			return err
		}
	}
}

// appendText appends n IDs' text to dst, each through each, waiting for
// the keeper when the reservation ceiling is reached.
func (s *sequence) appendText(dst []byte, n int, each func(dst []byte, id []byte) []byte, stop <-chan struct{}) ([]byte, error) {
	s.turn <- struct{}{}
	defer func() { <-s.turn }()
	t, err := s.current()
	if err != nil {
		return dst, err
	}
	var buf [32]byte
	for i := 0; i < n; {
		text, err := t.gen.appendText(buf[:0])
		if err != nil {
			if !s.awaitRaise(t, err, stop) {
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
	t, err := s.current()
	if err != nil {
		return err
	}
	if s.failing.Load() {
		return fmt.Errorf("%w: %s: the reservation cannot be extended", ErrNotReady, s.name)
	}
	now := s.clock.Now()
	if s.policy == floe.Borrow {
		now = now.Add(s.maxAhead)
	}
	if tk := s.ticks.tick(now); tk <= t.floor && t.gen.LastTick() <= t.floor {
		behind := s.ticks.tickTime(t.floor + 1).Sub(now)
		return fmt.Errorf("%w: %s: the clock is %v behind the reservation of the worker ID's previous holder", ErrNotReady, s.name, behind)
	}
	return nil
}

// behind returns how far now lies before the start of the first tick the
// current term may issue in: above the floor, and no earlier than the last
// tick issued. It is negative when the clock is past it, 0 without a term.
func (s *sequence) behind(now time.Time) time.Duration {
	t := s.term.Load()
	if t == nil {
		return 0
	}
	return s.ticks.tickTime(max(t.floor+1, t.gen.LastTick())).Sub(now)
}

// stats returns the generator counters of every term so far.
func (s *sequence) stats() floe.Stats {
	s.mu.Lock()
	st := s.past
	s.mu.Unlock()
	if t := s.term.Load(); t != nil {
		st = addStats(st, t.gen.Stats())
	}
	return st
}

// info returns what /v1/sequences and the metrics show of the current
// term: worker ID (-1 without one), R and the last tick issued.
func (s *sequence) info() (workerID int, reserved, last uint64) {
	t := s.term.Load()
	if t == nil {
		return -1, 0, 0
	}
	return t.lease.ID(), t.durable.Load(), t.gen.LastTick()
}

// stopClean records the last tick issued and releases the worker ID, so
// the next start need not wait out the reservation window. The caller
// guarantees no more IDs are issued.
func (s *sequence) stopClean() error {
	t := s.term.Swap(nil)
	if t == nil {
		return nil
	}
	return s.releaseLease(t)
}

func addStats(a, b floe.Stats) floe.Stats {
	return floe.Stats{
		Issued: a.Issued + b.Issued, Regressions: a.Regressions + b.Regressions,
		Waits: a.Waits + b.Waits, WaitTime: a.WaitTime + b.WaitTime,
		Borrowed: a.Borrowed + b.Borrowed, Exhausted: a.Exhausted + b.Exhausted,
		TickTocks: a.TickTocks + b.TickTocks, CeilingHits: a.CeilingHits + b.CeilingHits,
	}
}

// storeRecords is a workerid.Store over one sequence's Record in a Store,
// refusing a record of another definition.
type storeRecords struct {
	store Store
	name  string
	def   string
}

func (r *storeRecords) Load() (workerid.Record, bool, error) {
	rec, ok, err := r.store.Load(r.name)
	if err != nil {
		return workerid.Record{}, false, fmt.Errorf("sequence %q: reading its reservation: %w", r.name, err)
	}
	if ok && rec.Definition != r.def {
		return workerid.Record{}, false, fmt.Errorf("%w: sequence %q was %s and is now %s; use a new sequence name (or a new state directory with a floor above the old IDs)", ErrDefinition, r.name, rec.Definition, r.def)
	}
	return workerid.Record{Reserved: rec.Reserved, Last: rec.Last}, ok, nil
}

func (r *storeRecords) Save(rec workerid.Record) error {
	return r.store.Save(r.name, Record{Definition: r.def, Reserved: rec.Reserved, Last: rec.Last})
}
