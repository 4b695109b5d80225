package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
)

// Server serves named ID sequences over the binary protocol and HTTP. It is
// safe for concurrent use. Build one with New.
type Server struct {
	cfg  Config // immutable after New
	set  atomic.Pointer[seqSet]
	log  *slog.Logger
	logs *logLimiter // the lines about connections, which a flood of them could repeat without end
	m    *metrics

	closing atomic.Bool
	stop    chan struct{}   // closed by Shutdown once no ID is being issued: watchers stop
	halt    context.Context // done when a stop begins: the requests' waits end (see waiter)
	haltNow context.CancelFunc
	inUse   atomic.Int64   // requests and connections issuing IDs now
	idle    chan struct{}  // signalled while closing when a request or connection ends
	keepers sync.WaitGroup // the watchers of the sequences' terms (see watch)

	grpcOpen atomic.Int64 // open gRPC connections (see grpcListener)

	mu        sync.Mutex
	listeners map[net.Listener]struct{} // guarded by mu
	conns     map[*conn]struct{}        // guarded by mu
	grpcs     map[*grpc.Server]struct{} // guarded by mu
	stopped   bool                      // guarded by mu: the stop began (stop closed; the sequencers' clean stop follows or is skipped)
}

// New opens every sequence of cfg (reading and extending its reservation in
// cfg.Store) and starts the keepers that extend the reservations. A
// reservation that cannot be read or written, or a sequence whose recorded
// definition changed, is an error: the server never starts from zero.
func New(cfg Config) (*Server, error) {
	cfg.setDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:       cfg,
		log:       cfg.Logger,
		logs:      newLogLimiter(cfg.Logger, cfg.Clock, logEvery),
		stop:      make(chan struct{}),
		idle:      make(chan struct{}, 1),
		listeners: make(map[net.Listener]struct{}),
		conns:     make(map[*conn]struct{}),
		grpcs:     make(map[*grpc.Server]struct{}),
	}
	s.halt, s.haltNow = context.WithCancel(context.Background())
	var seqs []*sequence
	for _, sc := range cfg.Sequences {
		seq, err := newSequence(sc, &s.cfg)
		if err != nil {
			return nil, err
		}
		seqs = append(seqs, seq)
	}
	s.set.Store(newSeqSet(seqs))
	// Claim every sequence's worker ID before serving: a refused one (a
	// changed definition, an unreadable reservation, a coordinator out of
	// reach) stops the start. Every ID held is a standby's wait instead:
	// the sequencer claims again until one frees.
	closeAll := func(seqs []*sequence) {
		for _, seq := range seqs {
			seq.sq.Close(context.Background())
		}
	}
	for i, seq := range seqs {
		if err := s.openFirst(seq); err != nil {
			closeAll(seqs[:i])
			return nil, err
		}
	}
	var err error
	if s.m, err = newMetrics(s, cfg.Registry, cfg.Version, cfg.Revision); err != nil {
		closeAll(seqs)
		return nil, err
	}
	for _, seq := range seqs {
		s.watch(seq)
	}
	return s, nil
}

// openFirst opens seq at the start, claiming its first worker ID again
// while the claim fails for cfg.FirstClaim: a coordinator member
// rejoining, or a timeout, must not stop the start when a later claim
// would be retried. Any other error (a definition the catalog refuses, a
// worker ID outside the format) returns at once.
func (s *Server) openFirst(seq *sequence) error {
	if s.cfg.FirstClaim == 0 {
		return seq.open(context.Background(), &s.cfg, false)
	}
	start := time.Now()
	ctx, cancel := context.WithDeadline(context.Background(), start.Add(s.cfg.FirstClaim))
	defer cancel()
	backoff := time.Duration(0)
	for tries := 1; ; tries++ {
		err := seq.open(ctx, &s.cfg, false)
		if err == nil || !errors.Is(err, sequencer.ErrClaim) && !errors.Is(err, sequencer.ErrCatalog) {
			return err
		}
		backoff = min(max(2*backoff, firstClaimRetry), firstClaimRetryMax)
		if ctx.Err() != nil || time.Until(start.Add(s.cfg.FirstClaim)) < backoff {
			return fmt.Errorf("%w (claimed %d times in %v, for at most %v)", err, tries, time.Since(start).Round(time.Millisecond), s.cfg.FirstClaim)
		}
		if tries == 1 || tries%5 == 0 {
			s.log.Warn("claiming the first worker ID failed; claiming again", "seq", seq.name, "err", err, "tries", tries, "retry", backoff,
				"until", s.cfg.FirstClaim-time.Since(start).Round(time.Millisecond))
		}
		time.Sleep(backoff)
	}
}

// The back-off between first claims at the start: short, for a member
// rejoining, and at most a second, which a start can afford.
const (
	firstClaimRetry    = 100 * time.Millisecond
	firstClaimRetryMax = time.Second
)

// seqSet is the server's sequences; a new set replaces it when a sequence
// is attached at runtime.
type seqSet struct {
	list    []*sequence // list[0] is the default
	byName  map[string]*sequence
	tokened bool // some sequence has tokens
}

func newSeqSet(list []*sequence) *seqSet {
	set := &seqSet{list: list, byName: make(map[string]*sequence)}
	for _, seq := range list {
		set.byName[seq.name] = seq
		set.tokened = set.tokened || seq.locked()
	}
	return set
}

func (s *Server) seqs() []*sequence { return s.set.Load().list }

// watch ends the binary connections of seq whenever a term of its
// sequencer ends (a lost lease, Detach, a destroyed sequence): their
// clients fail over at once instead of at their next request. It returns
// when the server stops or the sequencer is closed.
func (s *Server) watch(seq *sequence) {
	s.keepers.Add(1)
	go func() {
		defer s.keepers.Done()
		var held sequencer.Stats // the worker ID and fence of the term the connections were served by
		held.WorkerID = -1
		for {
			ch := seq.sq.Changes()
			st, _ := seq.sq.State()
			cur := seq.sq.Stats()
			if held.WorkerID >= 0 && (cur.WorkerID != held.WorkerID || cur.Fence != held.Fence) {
				s.dropConns(seq)
			}
			held = cur
			if st == sequencer.Closed {
				return
			}
			select {
			case <-ch:
			case <-s.stop:
				return
			}
		}
	}()
}

// dropConns ends the binary connections of seq, whose term ended, after
// the replies they wrote.
func (s *Server) dropConns(seq *sequence) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if c.seq.Load() == seq {
			c.drop()
		}
	}
}

// Detach releases the worker ID of the named sequence and stops serving it,
// until Attach. The last tick issued is recorded with the release, so the
// ID's next holder need not wait out the reservation.
func (s *Server) Detach(ctx context.Context, name string) error {
	return s.setAttached(ctx, name, false)
}

// Attach makes a detached sequence claim a worker ID and serve again. It
// returns once the request is taken; the claim follows in the background
// (see Ready).
func (s *Server) Attach(ctx context.Context, name string) error {
	return s.setAttached(ctx, name, true)
}

func (s *Server) setAttached(ctx context.Context, name string, on bool) error {
	seq, err := s.sequence(name)
	if err != nil {
		return err
	}
	select {
	case <-s.stop:
		return ErrServerClosed
	default:
	}
	if on {
		err = seq.sq.Attach(ctx)
	} else {
		err = seq.sq.Detach(ctx)
	}
	if errors.Is(err, sequencer.ErrClosed) {
		return ErrServerClosed
	}
	return err
}

func (s *Server) sequence(name string) (*sequence, error) {
	set := s.set.Load()
	if name == "" {
		return set.list[0], nil
	}
	if seq, ok := set.byName[name]; ok {
		return seq, nil
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownSequence, name)
}

// byToken returns the sequence token selects, or nil. Every sequence's
// tokens are compared, in constant time.
func (s *Server) byToken(token []byte) *sequence {
	h := workerid.HashToken(token)
	var found *sequence
	for _, seq := range s.seqs() {
		if seq.tokens.Match(h) {
			found = seq
		}
	}
	return found
}

// Ready returns nil when every sequence can issue, else an error saying why
// not: shutting down, a reservation that cannot be extended, or the clock
// behind the previous run's reservation (policies wait and fail).
func (s *Server) Ready() error {
	if s.closing.Load() {
		return fmt.Errorf("%w: shutting down", ErrNotReady)
	}
	var errs []error
	for i, seq := range s.seqs() {
		if i > 0 && !seq.attached() {
			continue // detached on purpose
		}
		if err := seq.ready(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// begin marks the start of a request or connection that issues IDs; it
// returns false once the server is shutting down.
func (s *Server) begin() bool {
	s.inUse.Add(1)
	if s.closing.Load() {
		s.end()
		return false
	}
	return true
}

func (s *Server) end() {
	if s.inUse.Add(-1) == 0 {
		s.progress()
	}
}

// progress wakes a Shutdown waiting for requests and connections to end.
func (s *Server) progress() {
	if s.closing.Load() {
		select {
		case s.idle <- struct{}{}:
		default:
		}
	}
}

// Shutdown stops the server gracefully: it closes the listeners, ends the
// waits of the requests waiting for their turn or the reservation (they
// fail with "shutting down"), lets every binary connection finish the
// replies it owes, waits for HTTP requests in progress, stops the keepers
// and records a clean stop in the Store, so the next start need not wait
// out the reservation window. gRPC calls end as ServeGRPC says. If ctx
// ends first, the remaining connections are closed, the clean stop is not
// recorded (the next start begins above the reservation) and ctx's error
// is returned. A sequence whose
// reservation cannot be extended when the stop begins (a write failed, or
// the clock passed it) is not released: the stop does not wait on the
// store or coordinator at fault, the next start begins above the
// reservation, as after a crash, and this alone is no error.
func (s *Server) Shutdown(ctx context.Context) error { return s.shutdown(ctx, true) }

// Close stops the server at once: listeners and connections are closed,
// the keepers stop, and no clean stop is recorded.
func (s *Server) Close() error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.shutdown(ctx, false); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

func (s *Server) shutdown(ctx context.Context, clean bool) error {
	s.closing.Store(true)
	s.haltNow()
	s.mu.Lock()
	for l := range s.listeners {
		l.Close()
	}
	for c := range s.conns {
		if clean {
			c.interrupt()
		} else {
			c.nc.Close()
		}
	}
	s.mu.Unlock()
	// gRPC stops accepting calls; the streams end at their next message
	// (halt), and the calls for IDs in progress count in inUse.
	grpcDone := s.stopGRPC(clean)
	defer s.awaitGRPC(ctx, clean, grpcDone)

	// Wait until no ID is being issued and every connection has written
	// the replies it owes and closed.
	var err error
	for err == nil {
		s.mu.Lock()
		open := len(s.conns)
		s.mu.Unlock()
		if s.inUse.Load() == 0 && open == 0 {
			break
		}
		select {
		case <-s.idle:
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(10 * time.Millisecond): // a missed signal costs 10 ms
		}
	}
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return err
	}
	s.stopped = true
	close(s.stop)
	s.logs.flush()
	for c := range s.conns {
		c.nc.Close()
	}
	s.mu.Unlock()
	s.keepers.Wait()
	if err != nil || !clean {
		if clean {
			s.log.Warn("shutdown cut short; the next start begins above the reservation", "err", err)
		}
		for _, seq := range s.seqs() {
			seq.sq.Orphan()
		}
		return err
	}
	for _, seq := range s.seqs() {
		if st := seq.sq.Stats(); st.Failing || st.WorkerID >= 0 && st.Headroom <= 0 {
			// A stop during a fault (a write of the reservation failed,
			// or one has not answered while the clock passed it) does
			// not wait on the store or the coordinator: the sequence
			// ends as after a crash, which is safe, and the stop is
			// otherwise clean.
			s.log.Warn("stopping while the reservation cannot be extended: the clean stop is not recorded, and the next start begins above the reservation", "seq", seq.name)
			seq.sq.Orphan()
			continue
		}
		if e := seq.sq.Close(ctx); e != nil {
			s.log.Error("recording the clean stop", "seq", seq.name, "err", e)
			err = errors.Join(err, e)
		}
	}
	return err
}
