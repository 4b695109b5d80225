package sequencer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/workerid"
)

// Sequencer is one named sequence running in this process: the lease of
// its worker ID, the generator of the current term and the keeper of its
// reservation. It is safe for concurrent use. Build one with Open; end it
// with Close (or Orphan).
type Sequencer struct {
	name    string           // immutable
	def     Definition       // immutable: canonical
	ticks   ticks            // immutable: the format's time
	src     workerid.Source  // immutable
	catalog workerid.Catalog // immutable: nil outside a catalog
	gen     int64            // immutable: the catalog generation served
	clock   floe.Clock       // immutable
	log     *slog.Logger     // immutable
	policy  floe.Policy      // immutable
	gc      genConfig        // immutable: the generator settings but floor and ceiling

	minFloor uint64 // immutable: noeqd's -t, or a retired generation's end, as a tick
	window   uint64 // immutable: ticks the reservation reaches ahead of need
	low      uint64 // immutable: headroom at or under which the keeper extends
	maxWait  time.Duration
	// maxAhead is how far policy Borrow runs ahead of the clock.
	maxAhead time.Duration
	// claimTimeout bounds one claim of a worker ID.
	claimTimeout time.Duration

	term      atomic.Pointer[term]   // nil while no worker ID is held
	failing   atomic.Bool            // the last reservation write failed
	writes    atomic.Uint64          // successful reservation writes
	errs      atomic.Uint64          // failed reservation writes
	lost      atomic.Uint64          // leases lost
	detaches  atomic.Uint64          // worker IDs released by Detach
	destroys  atomic.Uint64          // worker IDs ended by the sequence's destruction
	claims    atomic.Uint64          // leases claimed
	why       atomic.Pointer[reason] // why no term is published
	attached  atomic.Bool            // the supervisor holds or claims a worker ID
	destroyed atomic.Bool            // the sequence was destroyed cluster-wide
	closed    atomic.Bool            // written under mu: Close or Orphan began

	// req carries Attach, Detach and Destroy to the supervisor.
	req  chan request
	stop chan struct{} // closed by Close and Orphan
	done chan struct{} // closed when the supervisor returns

	mu      sync.Mutex
	raised  chan struct{} // guarded by mu: closed and replaced when R rises or a term ends
	changed chan struct{} // guarded by mu: closed and replaced when the State changes
	past    floe.Stats    // guarded by mu: the counters of ended terms
}

// op is a request to the supervisor.
type op uint8

const (
	opAttach op = iota
	opDetach
	opDestroy
	opGone // the catalog no longer has the generation
)

type request struct {
	op   op
	done chan error
}

// Open validates cfg, defines the sequence in cfg.Catalog if it has one,
// claims a worker ID and reserves its first window, and starts the
// supervisor that keeps the reservation ahead and claims again after a
// loss. With every worker ID held, Open returns a sequencer in state
// Claiming, which serves once an ID frees. Any other failure of the claim
// (a coordinator out of reach, an unreadable reservation) is an error
// matching ErrClaim, which a caller may retry: a sequencer never starts
// from zero.
//
// ctx bounds Open; it does not bound the sequencer's life.
func Open(ctx context.Context, cfg Config) (*Sequencer, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	k := cfg.Definition.ticks()
	s := &Sequencer{
		name: cfg.Name, def: cfg.Definition, ticks: k,
		src: cfg.Source, catalog: cfg.Catalog, gen: cfg.Generation,
		clock: cfg.Clock, policy: cfg.Policy, log: cfg.Logger.With("seq", cfg.Name),
		maxWait: cfg.MaxWait, maxAhead: cfg.MaxAhead, claimTimeout: cfg.ClaimTimeout,
		req:     make(chan request),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		raised:  make(chan struct{}),
		changed: make(chan struct{}),
	}
	if s.maxAhead == 0 {
		s.maxAhead = defaultMaxAhead
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
	s.setWhy("no worker ID claimed yet", nil)
	var seq workerid.Sequence
	var err error
	switch {
	case s.src == nil:
		seq, err = s.define(ctx, cfg.Sources)
	case s.catalog != nil:
		seq, err = s.lookUp(ctx)
	}
	if err != nil {
		return nil, err
	}
	if err := s.follow(seq.Retired); err != nil {
		return nil, err
	}
	if s.catalog != nil {
		go s.watch()
	}
	if cfg.Detached {
		s.setWhy("detached", nil)
		go s.run(nil)
		return s, nil
	}
	t, err := s.claim(ctx)
	if err != nil && !errors.Is(err, workerid.ErrExhausted) {
		return nil, err
	}
	if err != nil {
		s.log.Warn("every worker ID is held; waiting for one", "err", err)
		s.setWhy(err.Error(), err)
	}
	s.attached.Store(true)
	if t != nil {
		s.publish(t)
	}
	go s.run(t)
	return s, nil
}

// define creates the sequence in the catalog, or finds it there with the
// same definition, and takes the Source of its generation.
func (s *Sequencer) define(ctx context.Context, sources func(workerid.Sequence) (workerid.Source, error)) (workerid.Sequence, error) {
	spec, err := s.def.Spec()
	if err != nil {
		return workerid.Sequence{}, err
	}
	seq, err := s.catalog.Create(ctx, s.name, spec)
	if errors.Is(err, workerid.ErrConflict) {
		if cur, gerr := s.catalog.Get(ctx, s.name); gerr == nil {
			return seq, &DefinitionError{Name: s.name, Catalog: cur.Spec, Given: spec, Err: err}
		}
	}
	if err != nil {
		return seq, s.catalogError("defining it in the catalog", err)
	}
	src, err := sources(seq)
	if err != nil {
		return seq, fmt.Errorf("sequence %q: the source of generation %d: %w", s.name, seq.Gen, err)
	}
	if src == nil {
		return seq, fmt.Errorf("%w: sequence %q: Sources returned no Source", ErrConfig, s.name)
	}
	s.src, s.gen = src, seq.Gen
	return seq, nil
}

// lookUp reads the generation the caller's Source serves from the catalog,
// for its Retired.
func (s *Sequencer) lookUp(ctx context.Context) (workerid.Sequence, error) {
	seq, err := s.catalog.Get(ctx, s.name)
	switch {
	case errors.Is(err, workerid.ErrNotFound):
		return seq, &NotReadyError{Name: s.name, State: Destroyed, Reason: fmt.Sprintf("generation %d is not in the catalog", s.gen), Err: err}
	case err != nil:
		return seq, s.catalogError("reading it from the catalog", err)
	case seq.Gen != s.gen:
		return seq, &NotReadyError{Name: s.name, State: Destroyed, Reason: fmt.Sprintf("generation %d is not in the catalog (it has %d)", s.gen, seq.Gen)}
	}
	return seq, nil
}

// catalogError wraps a failed catalog request in ErrCatalog, unless the
// catalog refused the name. A catalog out of reach fails when Open's
// context ends: the error then matches both ErrCatalog and the context's.
func (s *Sequencer) catalogError(doing string, err error) error {
	if errors.Is(err, workerid.ErrName) {
		return fmt.Errorf("sequence %q: %s: %w", s.name, doing, err)
	}
	return fmt.Errorf("sequence %q: %s: %w: %w", s.name, doing, ErrCatalog, err)
}

// follow makes the sequencer issue only after the name's retired
// generation: strictly above its tick in the same definition, or from the
// first tick that starts after it ended in another.
func (s *Sequencer) follow(r workerid.Retired) error {
	if r.Tick == 0 {
		return nil
	}
	spec, err := s.def.Spec()
	if err != nil {
		return err
	}
	floor := r.Tick
	if r.Spec != spec {
		old, err := ParseSpec(r.Spec)
		if err != nil {
			return fmt.Errorf("sequence %q: the definition of retired generation %d: %w", s.name, r.Gen, err)
		}
		end := old.ticks().tickTime(r.Tick + 1)
		floor = s.ticks.tick(end.Add(-1))
	}
	s.minFloor = max(s.minFloor, floor)
	return nil
}

// watch ends the sequencer's service of its generation once the catalog
// no longer has it: a holder stops issuing at once instead of at its
// lease's end, and a detached or claiming sequencer shows Destroyed.
func (s *Sequencer) watch() {
	ctx, cancel := contextUntil(s.stop, nil)
	defer cancel()
	if err := s.catalog.WaitGone(ctx, s.name, s.gen); err != nil {
		return // stopped
	}
	s.log.Info("the sequence was destroyed cluster-wide; no longer serving it", "gen", s.gen)
	select {
	case s.req <- request{op: opGone, done: make(chan error, 1)}:
	case <-s.done:
	}
}

// Name returns the sequence's name.
func (s *Sequencer) Name() string { return s.name }

// Definition returns the sequence's definition, its defaults filled in.
func (s *Sequencer) Definition() Definition { return s.def }

// Generation returns the catalog generation the sequencer serves, or 0
// outside a catalog.
func (s *Sequencer) Generation() int64 { return s.gen }

// Attach makes a detached sequencer claim a worker ID and serve again. It
// returns once the request is taken; the claim follows in the background
// (see Wait). Attaching an attached sequencer does nothing. A destroyed or
// closed one returns a *NotReadyError.
func (s *Sequencer) Attach(ctx context.Context) error { return s.request(ctx, opAttach) }

// Detach ends the current term, releases the worker ID and stops serving,
// until Attach. The last tick issued is recorded with the release, so the
// ID's next holder need not wait out the reservation. It returns the
// release's error, if any.
func (s *Sequencer) Detach(ctx context.Context) error { return s.request(ctx, opDetach) }

// Destroy removes the sequence from the catalog, with its worker IDs and
// reservations, and ends this sequencer (state Destroyed): every holder's
// lease on it is lost. A sequence the catalog no longer has in this
// generation is only ended here. Without a Catalog it is an error
// wrapping ErrConfig.
func (s *Sequencer) Destroy(ctx context.Context) error {
	if s.catalog == nil {
		return fmt.Errorf("%w: sequence %q has no catalog to destroy it in", ErrConfig, s.name)
	}
	cur, err := s.catalog.Get(ctx, s.name)
	switch {
	case errors.Is(err, workerid.ErrNotFound):
	case err != nil:
		return fmt.Errorf("sequence %q: reading the catalog: %w", s.name, err)
	case cur.Gen == s.gen:
		if err := s.catalog.Destroy(ctx, s.name); err != nil && !errors.Is(err, workerid.ErrNotFound) {
			return fmt.Errorf("sequence %q: destroying it: %w", s.name, err)
		}
	}
	return s.request(ctx, opDestroy)
}

// request hands op to the supervisor and returns its answer.
func (s *Sequencer) request(ctx context.Context, o op) error {
	if s.closed.Load() {
		return s.notReady()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	req := request{op: o, done: make(chan error, 1)}
	select {
	case s.req <- req:
	case <-s.done:
		return s.notReady()
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-req.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close ends the sequencer cleanly: no ID is issued from its return on (a
// call in progress fails), the supervisor and keeper stop, and the worker
// ID is released with the last tick issued, so its next holder starts
// right above it instead of above the reservation. ctx bounds the release;
// if it ends first, Close returns ctx's error, and the release may have
// recorded nothing (the next holder then starts above the reservation).
// Close after Close or Orphan returns nil.
func (s *Sequencer) Close(ctx context.Context) error {
	t, ok := s.shut()
	if !ok {
		return nil
	}
	select {
	case <-s.done:
	case <-ctx.Done():
	}
	var err error
	if t != nil {
		err = s.releaseLease(ctx, t)
		if errors.Is(err, workerid.ErrReleased) {
			err = nil // a Detach in progress released it
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// Orphan ends the sequencer without releasing its worker ID, as a crash
// would: no ID is issued from its return on, the supervisor and keeper
// stop, and the lease is left to its Source (etcd and Redis leases expire
// after their TTL once the client is closed). The ID's next holder starts
// above the reservation.
func (s *Sequencer) Orphan() {
	s.shut()
	<-s.done
}

// shut marks the sequencer closed, unpublishes the term and stops the
// supervisor. It returns the term that was published, and false if the
// sequencer was closed already.
func (s *Sequencer) shut() (*term, bool) {
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		return nil, false
	}
	s.setWhy("closed", nil)
	s.closed.Store(true)
	t := s.term.Swap(nil)
	if t != nil {
		s.past = addStats(s.past, t.gen.Stats())
	}
	close(s.raised)
	s.raised = make(chan struct{})
	s.notifyLocked()
	s.mu.Unlock()
	close(s.stop)
	return t, true
}

// Ready returns nil when the sequencer can issue now, else a
// *NotReadyError saying why not: it holds no worker ID, its lease passed
// its local deadline, the reservation cannot be extended, the clock passed
// the reservation while its extension waits for the coordinator, or the
// clock is behind the reservation of the worker ID's previous holder
// (policies Wait and Fail; Borrow runs up to MaxAhead ahead of it).
func (s *Sequencer) Ready() error {
	t := s.term.Load()
	if t == nil {
		return s.notReady()
	}
	if t.left != nil && t.left() <= 0 {
		return s.pastDeadline(t)
	}
	if s.failing.Load() {
		return &NotReadyError{Name: s.name, State: Serving, Reason: "the reservation cannot be extended"}
	}
	now := s.clock.Now()
	if s.ticks.tick(now) > t.durable.Load() {
		// A call would wait at the ceiling: the write that extends the
		// reservation has no answer yet (a coordinator cut off or without
		// a quorum), though the lease has time left.
		return &NotReadyError{Name: s.name, State: Serving, Reason: "the clock passed the reservation, and its extension is not acknowledged yet"}
	}
	if s.policy == floe.Borrow {
		now = now.Add(s.maxAhead)
	}
	if tk := s.ticks.tick(now); tk <= t.floor && t.gen.LastTick() <= t.floor {
		behind := s.ticks.tickTime(t.floor + 1).Sub(now)
		return &NotReadyError{Name: s.name, State: Serving,
			Reason: fmt.Sprintf("the clock is %v behind the reservation of the worker ID's previous holder", behind)}
	}
	return nil
}
