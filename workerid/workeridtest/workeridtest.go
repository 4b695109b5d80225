// Package workeridtest is the conformance suite of workerid.Source: every
// Source passes it, the way every slog.Handler passes slogtest.
package workeridtest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/workerid"
)

// Config describes the Source under test.
type Config struct {
	// Namespace returns a function that makes Sources over one fresh
	// worker-ID namespace with IDs worker IDs; each call of that function
	// is another contender, as if on another host. Required.
	Namespace func(t *testing.T) func() workerid.Source
	// IDs is how many worker IDs a namespace has; at least 1.
	IDs int
	// Lose ends a lease from outside, the way an expiry or a takeover
	// does (etcd: revoke its lease; Redis: delete its owner key), and
	// returns once the worker ID can be claimed again. Nil skips the tests
	// that need it (a Static lease cannot be lost).
	Lose func(t *testing.T, l workerid.Lease)
	// Timeout bounds each step that waits for the Source; zero means 10 s.
	Timeout time.Duration
}

// Run runs the conformance suite as subtests of t.
func Run(t *testing.T, cfg Config) {
	if cfg.Namespace == nil || cfg.IDs < 1 {
		t.Fatal("workeridtest: Config needs Namespace and IDs")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	s := &suite{Config: cfg}
	tests := []struct {
		name string
		lose bool
		fn   func(*testing.T)
	}{
		{"claims are exclusive under contention", false, s.exclusive},
		{"exhaustion is an error, not a random ID", false, s.exhausted},
		{"release frees the ID", false, s.release},
		{"released lease reserves nothing", false, s.afterRelease},
		{"reservations only rise", false, s.rise},
		{"floor is handed to the next holder", false, s.floor},
		{"last tick of a clean release is the next floor", false, s.last},
		{"fence grows with each claim", false, s.fence},
		{"lost lease reserves nothing", true, s.lost},
		{"floor survives a holder lost after a clean handoff", true, s.lostAfterLast},
		{"next holder's reservations win over the lost one's", true, s.takeover},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.lose && cfg.Lose == nil {
				t.Skip("the Source has no way to lose a lease")
			}
			tt.fn(t)
		})
	}
}

type suite struct{ Config }

func (s *suite) ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	t.Cleanup(cancel)
	return ctx
}

// claimAll claims every ID of the namespace from one Source each and
// returns the leases.
func (s *suite) claimAll(t *testing.T, ns func() workerid.Source) []workerid.Lease {
	t.Helper()
	var leases []workerid.Lease
	for range s.IDs {
		l, err := ns().Claim(s.ctx(t))
		if err != nil {
			t.Fatalf("claim %d of %d: %v", len(leases)+1, s.IDs, err)
		}
		leases = append(leases, l)
	}
	return leases
}

// sole claims every ID of the namespace and returns one lease: while the
// others stay held, each later claim can only take that lease's worker ID.
func (s *suite) sole(t *testing.T, ns func() workerid.Source) workerid.Lease {
	t.Helper()
	return s.claimAll(t, ns)[0]
}

// same fails t unless l holds worker ID id.
func same(t *testing.T, l workerid.Lease, id int) {
	t.Helper()
	if l.ID() != id {
		t.Fatalf("the only free worker ID is %d, claimed %d", id, l.ID())
	}
}

func (s *suite) claim(t *testing.T, src workerid.Source) workerid.Lease {
	t.Helper()
	l, err := src.Claim(s.ctx(t))
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	return l
}

func (s *suite) reserve(t *testing.T, l workerid.Lease, tick uint64) {
	t.Helper()
	if err := l.Reserve(s.ctx(t), tick); err != nil {
		t.Fatalf("Reserve(%d) on worker ID %d: %v", tick, l.ID(), err)
	}
	if got := l.Reserved(); got < tick {
		t.Fatalf("after Reserve(%d): Reserved() = %d", tick, got)
	}
}

func (s *suite) release(t *testing.T) {
	ns := s.Namespace(t)
	leases := s.claimAll(t, ns)
	a := leases[0]
	if err := a.Release(s.ctx(t), 0); err != nil {
		t.Fatalf("Release: %v", err)
	}
	select {
	case <-a.Done():
	default:
		t.Fatal("Done not closed after Release")
	}
	if got := a.Err(); !errors.Is(got, workerid.ErrReleased) {
		t.Fatalf("Err() after Release = %v, want ErrReleased", got)
	}
	b := s.claim(t, ns())
	if b.ID() != a.ID() {
		t.Fatalf("claim after releasing worker ID %d got %d", a.ID(), b.ID())
	}
}

func (s *suite) exclusive(t *testing.T) {
	ns := s.Namespace(t)
	contenders := 4*s.IDs + 4
	type result struct {
		l   workerid.Lease
		err error
	}
	results := make(chan result, contenders)
	sources := make([]workerid.Source, contenders)
	for i := range sources {
		sources[i] = ns()
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, src := range sources {
		wg.Go(func() {
			<-start
			l, err := src.Claim(s.ctx(t))
			results <- result{l, err}
		})
	}
	close(start)
	wg.Wait()
	close(results)
	held := make(map[int]bool)
	exhausted := 0
	for r := range results {
		switch {
		case r.err == nil:
			if held[r.l.ID()] {
				t.Errorf("worker ID %d claimed twice", r.l.ID())
			}
			held[r.l.ID()] = true
		case errors.Is(r.err, workerid.ErrExhausted):
			exhausted++
		default:
			t.Errorf("Claim: %v", r.err)
		}
	}
	if got, want := len(held), s.IDs; got != want {
		t.Errorf("%d contenders claimed %d distinct IDs, want %d", contenders, got, want)
	}
	if got, want := exhausted, contenders-s.IDs; got != want {
		t.Errorf("%d claims refused with ErrExhausted, want %d", got, want)
	}
}

func (s *suite) exhausted(t *testing.T) {
	ns := s.Namespace(t)
	s.claimAll(t, ns)
	for range 3 {
		l, err := ns().Claim(s.ctx(t))
		if !errors.Is(err, workerid.ErrExhausted) {
			id := -1
			if l != nil {
				id = l.ID()
			}
			t.Fatalf("claim with every ID held: worker ID %d, err %v; want ErrExhausted", id, err)
		}
	}
}

func (s *suite) afterRelease(t *testing.T) {
	ns := s.Namespace(t)
	a := s.claim(t, ns())
	s.reserve(t, a, a.Floor()+100)
	if err := a.Release(s.ctx(t), 0); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if err := a.Reserve(s.ctx(t), a.Floor()+200); !errors.Is(err, workerid.ErrReleased) {
		t.Fatalf("Reserve after Release: %v, want ErrReleased", err)
	}
	if err := a.Release(s.ctx(t), 0); !errors.Is(err, workerid.ErrReleased) {
		t.Fatalf("second Release: %v, want ErrReleased", err)
	}
}

func (s *suite) rise(t *testing.T) {
	ns := s.Namespace(t)
	a := s.sole(t, ns)
	base := a.Reserved()
	s.reserve(t, a, base+1000)
	// A lower tick is a no-op: R never goes down.
	if err := a.Reserve(s.ctx(t), base+10); err != nil {
		t.Fatalf("Reserve below R: %v, want a no-op", err)
	}
	if got, want := a.Reserved(), base+1000; got != want {
		t.Fatalf("Reserved() after a lower Reserve = %d, want %d", got, want)
	}
	s.reserve(t, a, base+2000)
	if err := a.Release(s.ctx(t), 0); err != nil {
		t.Fatal(err)
	}
	b := s.claim(t, ns())
	same(t, b, a.ID())
	if got, want := b.Floor(), base+2000; got != want {
		t.Fatalf("next holder's Floor() = %d, want %d", got, want)
	}
}

func (s *suite) floor(t *testing.T) {
	ns := s.Namespace(t)
	a := s.sole(t, ns)
	r := a.Floor() + 5000
	s.reserve(t, a, r)
	if err := a.Release(s.ctx(t), 0); err != nil {
		t.Fatalf("Release: %v", err)
	}
	b := s.claim(t, ns())
	same(t, b, a.ID())
	if got := b.Floor(); got != r {
		t.Errorf("next holder's Floor() = %d, want the reservation %d", got, r)
	}
	if got := b.Reserved(); got != r {
		t.Errorf("next holder's Reserved() = %d, want %d", got, r)
	}
}

func (s *suite) last(t *testing.T) {
	ns := s.Namespace(t)
	a := s.sole(t, ns)
	r := a.Floor() + 5000
	s.reserve(t, a, r)
	if err := a.Release(s.ctx(t), r-3000); err != nil {
		t.Fatalf("Release: %v", err)
	}
	b := s.claim(t, ns())
	same(t, b, a.ID())
	if got, want := b.Floor(), r-3000; got != want {
		t.Errorf("Floor() after a clean release at %d = %d, want %d", r-3000, got, want)
	}
	if got := b.Reserved(); got != r {
		t.Errorf("Reserved() after a clean release = %d, want the reservation %d", got, r)
	}
	// A last tick above R is capped: nothing above R was issued.
	if err := b.Release(s.ctx(t), r+10); err != nil {
		t.Fatalf("Release: %v", err)
	}
	c := s.claim(t, ns())
	same(t, c, a.ID())
	if got := c.Floor(); got > r {
		t.Errorf("Floor() after a release at a tick above R = %d, want at most %d", got, r)
	}
}

func (s *suite) fence(t *testing.T) {
	ns := s.Namespace(t)
	a := s.sole(t, ns)
	prev := a.Fence()
	if err := a.Release(s.ctx(t), 0); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		l := s.claim(t, ns())
		same(t, l, a.ID())
		if l.Fence() <= prev {
			t.Errorf("fence %d after fence %d of worker ID %d", l.Fence(), prev, l.ID())
		}
		prev = l.Fence()
		if err := l.Release(s.ctx(t), 0); err != nil {
			t.Fatal(err)
		}
	}
}

// waitDone waits for l to report its loss.
func (s *suite) waitDone(t *testing.T, l workerid.Lease) {
	t.Helper()
	select {
	case <-l.Done():
	case <-time.After(s.Timeout):
		t.Fatalf("worker ID %d: Done not closed %v after the loss", l.ID(), s.Timeout)
	}
	var lost *workerid.LeaseLostError
	if err := l.Err(); !errors.As(err, &lost) {
		t.Fatalf("Err() after the loss = %v, want a *LeaseLostError", err)
	}
}

func (s *suite) lost(t *testing.T) {
	ns := s.Namespace(t)
	a := s.claim(t, ns())
	r := a.Floor() + 1000
	s.reserve(t, a, r)
	s.Lose(t, a)
	// The loss shows at the latest at the next Reserve, which must fail.
	err := a.Reserve(s.ctx(t), r+1000)
	var lost *workerid.LeaseLostError
	if !errors.As(err, &lost) {
		t.Fatalf("Reserve after the loss: %v, want a *LeaseLostError", err)
	}
	s.waitDone(t, a)
	if got := a.Reserved(); got != r {
		t.Errorf("Reserved() after a refused Reserve = %d, want %d", got, r)
	}
	b := s.claim(t, ns())
	if b.ID() == a.ID() && b.Floor() != r {
		t.Errorf("next holder's Floor() = %d, want %d", b.Floor(), r)
	}
}

func (s *suite) lostAfterLast(t *testing.T) {
	ns := s.Namespace(t)
	a := s.sole(t, ns)
	r := a.Floor() + 5000
	s.reserve(t, a, r)
	if err := a.Release(s.ctx(t), r-3000); err != nil {
		t.Fatal(err)
	}
	// b starts above the last tick, may issue up to R without reserving,
	// and dies: c must start above R.
	b := s.claim(t, ns())
	same(t, b, a.ID())
	s.Lose(t, b)
	c := s.claim(t, ns())
	same(t, c, a.ID())
	if got := c.Floor(); got != r {
		t.Errorf("Floor() after a holder died above a clean release's last tick = %d, want R = %d", got, r)
	}
}

func (s *suite) takeover(t *testing.T) {
	ns := s.Namespace(t)
	leases := s.claimAll(t, ns)
	a := leases[0]
	r := a.Floor() + 1000
	s.reserve(t, a, r)
	s.Lose(t, a)
	b := s.claim(t, ns())
	same(t, b, a.ID())
	if b.Floor() < r {
		t.Fatalf("new holder's Floor() = %d, below the old holder's reservation %d", b.Floor(), r)
	}
	if b.Fence() <= a.Fence() {
		t.Errorf("new holder's fence %d not above the old one's %d", b.Fence(), a.Fence())
	}
	// The old holder tries to reserve far ahead: refused, and the new
	// holder's R is what the next holder after it sees.
	if err := a.Reserve(s.ctx(t), r+1_000_000); err == nil {
		t.Fatal("the lost holder reserved after a takeover")
	}
	s.reserve(t, b, r+500)
	if err := b.Release(s.ctx(t), 0); err != nil {
		t.Fatal(err)
	}
	c := s.claim(t, ns())
	if got, want := c.Floor(), r+500; got != want {
		t.Errorf("Floor() after the takeover = %d, want %d", got, want)
	}
}
