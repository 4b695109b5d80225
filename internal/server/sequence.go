package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
)

// sequence is one named sequence as the server serves it: its sequencer
// (terms, leases, the keeper of the reservation, claims after a loss), its
// tokens and the turn that orders its requests. It is safe for concurrent
// use.
type sequence struct {
	sc     SequenceConfig       // immutable
	name   string               // immutable
	format Format               // immutable
	spec   string               // immutable: the cluster-wide definition
	def    string               // immutable: spec plus the fixed node
	static bool                 // immutable: a fixed worker ID (Config.Store), not a claimed one
	defn   sequencer.Definition // immutable
	tokens workerid.Tokens      // immutable: the hashes of its tokens
	policy floe.Policy          // immutable
	sq     *sequencer.Sequencer // set by open, then immutable

	// turn serves requests one at a time in arrival order: a channel's
	// blocked senders queue first in, first out. Without it, callers
	// waiting for the next tick race for it, and under saturation a
	// connection can lose several ticks in a row while others win.
	turn chan struct{}
}

// newSequence validates sc and returns its sequence, not yet open: it holds
// no worker ID and has written nothing.
func newSequence(sc SequenceConfig, cfg *Config) (*sequence, error) {
	if !workerid.ValidName(sc.Name) {
		return nil, fmt.Errorf("%w: sequence name %q: want 1..64 bytes of [A-Za-z0-9_.-], not \".\" or \"..\"", ErrConfig, sc.Name)
	}
	defn := definitionOf(sc)
	spec, err := defn.Spec()
	if err != nil {
		return nil, fmt.Errorf("%w: sequence %q: %w", ErrConfig, sc.Name, err)
	}
	def := localDefinition(sc, defn)
	static := sc.Source == nil
	if static {
		if cfg.Store == nil {
			return nil, fmt.Errorf("%w: sequence %q has no worker-ID source and the server no store", ErrConfig, sc.Name)
		}
		id, err := StaticID(sc)
		if err != nil {
			return nil, err
		}
		sc.Source = workerid.NewStatic(id, &storeRecords{store: cfg.Store, name: sc.Name, def: def})
	}
	hashes := sc.TokenHashes.Hashes()
	for _, tok := range sc.Tokens {
		hashes = append(hashes, workerid.HashToken([]byte(tok)))
	}
	return &sequence{
		sc: sc, name: sc.Name, format: defn.Format, spec: spec, def: def, static: static, defn: defn,
		tokens: workerid.NewTokens(hashes...), policy: cfg.Policy,
		turn: make(chan struct{}, 1),
	}, nil
}

// open starts the sequence's sequencer: it claims a worker ID (or, with
// every ID held, waits for one in the background), within ctx. A detached
// one claims nothing until Attach.
func (seq *sequence) open(ctx context.Context, cfg *Config, detached bool) error {
	sc := seq.sc
	scfg := sequencer.Config{
		Name: sc.Name, Definition: seq.defn, Source: sc.Source, Detached: detached,
		Clock: cfg.Clock, Policy: cfg.Policy, MaxAhead: cfg.MaxAhead, MaxWait: cfg.MaxWait,
		Window: cfg.Window, ClaimTimeout: cfg.ClaimTimeout, Floor: cfg.Floor, Logger: cfg.Logger,
	}
	if cfg.Catalog != nil && sc.Gen != 0 {
		// A lost lease or a failed claim asks the catalog whether the
		// sequence was destroyed.
		scfg.Catalog, scfg.Generation = cfg.Catalog, sc.Gen
	}
	sq, err := sequencer.Open(ctx, scfg)
	if err != nil {
		return err
	}
	seq.sq = sq
	return nil
}

// hasToken reports whether token is one of the sequence's, comparing its
// hash with each in constant time.
func (seq *sequence) hasToken(token []byte) bool {
	return seq.tokens.Match(workerid.HashToken(token))
}

// locked reports whether the sequence requires a token.
func (seq *sequence) locked() bool { return seq.tokens.Len() > 0 }

// take waits for the sequence's turn, within the request's bound w.
func (seq *sequence) take(w *waiter) error {
	select {
	case seq.turn <- struct{}{}:
		return nil
	default:
	}
	ctx := w.context()
	select {
	case seq.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return w.ended(seq)
	}
}

// fill64 fills dst with IDs, waiting for the keeper when the reservation
// ceiling is reached, within the request's bound w.
func (seq *sequence) fill64(dst []id64.ID, w *waiter) error {
	if err := seq.take(w); err != nil {
		return err
	}
	defer func() { <-seq.turn }()
	if seq.format != Format64 {
		return ErrBinaryFormat
	}
	n, err := seq.sq.NextN64Context(w.bound(), dst)
	if err != nil && w.ctx == nil && atCeiling(err) {
		_, err = seq.sq.NextN64Context(w.context(), dst[n:])
	}
	return w.why(err)
}

// appendText appends n IDs' text to dst, each through each, waiting for
// the keeper when the reservation ceiling is reached, within the request's
// bound w.
func (seq *sequence) appendText(dst []byte, n int, each func(dst []byte, id []byte) []byte, w *waiter) ([]byte, error) {
	return seq.appendEach(dst, n, seq.sq.AppendNextContext, each, w)
}

// appendEach appends n IDs to dst, each made by next into a buffer and
// handed to each, waiting for the keeper when the reservation ceiling is
// reached, within the request's bound w.
func (seq *sequence) appendEach(dst []byte, n int, next func(context.Context, []byte) ([]byte, error), each func(dst []byte, id []byte) []byte, w *waiter) ([]byte, error) {
	if err := seq.take(w); err != nil {
		return dst, err
	}
	defer func() { <-seq.turn }()
	var buf [maxTextLen]byte
	for range n {
		id, err := next(w.bound(), buf[:0])
		if err != nil && w.ctx == nil && atCeiling(err) {
			id, err = next(w.context(), buf[:0])
		}
		if err != nil {
			return dst, w.why(err)
		}
		dst = each(dst, id)
	}
	return dst, nil
}

// atCeiling reports whether err stopped a call at the reservation
// ceiling, where a request with time left waits for the keeper.
func atCeiling(err error) bool {
	var ce *floe.CeilingError
	return errors.As(err, &ce)
}

// ready reports why the sequence cannot issue now, or nil.
func (seq *sequence) ready() error { return seq.sq.Ready() }

// attached reports whether the sequence holds or claims a worker ID.
func (seq *sequence) attached() bool {
	st, _ := seq.sq.State()
	return st.Attached()
}

// holding reports whether the sequence holds a worker ID.
func (seq *sequence) holding() bool {
	st, _ := seq.sq.State()
	return st == sequencer.Serving
}

// stats returns the generator counters of every term so far.
func (seq *sequence) stats() floe.Stats { return seq.sq.Stats().Generator }

// info returns what /v1/sequences and the metrics show of the current
// term: worker ID (-1 without one), R and the last tick issued.
func (seq *sequence) info() (workerID int, reserved, last uint64) {
	st := seq.sq.Stats()
	return st.WorkerID, st.Reserved, st.LastTick
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

// maxTextLen is the longest text of an ID of any format: id128's.
const maxTextLen = max(20, id80.EncodedSize, id96.EncodedLen, id128.EncodedLen)

// textLen returns the longest text of one of seq's IDs, for sizing a
// reply: an id64's decimal takes at most 20 digits.
func (seq *sequence) textLen() int {
	switch seq.format {
	case Format80:
		return id80.EncodedSize
	case Format96:
		return id96.EncodedLen
	case Format128:
		return id128.EncodedLen
	}
	return 20
}
