package server

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
)

// waitReady polls the server until Ready answers as want says, for at most
// 10 s of real time (the supervisor claims in the background).
func waitReady(t *testing.T, s *Server, want bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := s.Ready()
		if (err == nil) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Ready() = %v after 10 s, want ready=%v", err, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestServer_LeaseLostStopsAndClaimsAgain(t *testing.T) {
	clock := floetest.NewClock(start)
	ns := workeridtest.NewMemSource(1)
	s, addr := newTestServer(t, Config{Clock: clock, Window: time.Second, Sequences: []SequenceConfig{{Name: "default", Source: ns}}})
	c := dialNoeq(t, addr, "")
	checker := floetest.NewChecker[uint64](0)
	for range 50 {
		ids, err := c.get(100)
		if err != nil {
			t.Fatal(err)
		}
		checker.Add(ids...)
		clock.Step(20 * time.Millisecond)
	}
	// The last step may have taken the clock past R; the keeper raises R
	// ahead of it within an eighth of the window.
	deadline := time.Now().Add(10 * time.Second)
	for ns.Holder(0).Reserved() <= uint64(clock.Now().Sub(id64.Twitter.Epoch).Milliseconds()) {
		if time.Now().After(deadline) {
			t.Fatal("the keeper did not raise the reservation ahead of the clock")
		}
		time.Sleep(time.Millisecond)
	}
	r := ns.Holder(0).Reserved()

	ns.Lose(0)
	if !c.closed() {
		t.Fatal("a binary connection stayed open after the lease was lost")
	}
	// The supervisor claims the ID again; its floor is R, ahead of the
	// clock, so under policy wait it is not ready until the clock passes.
	deadline = time.Now().Add(10 * time.Second)
	for ns.Holder(0) == nil || !s.seqs()[0].holding() {
		if time.Now().After(deadline) {
			t.Fatal("no new claim after the loss")
		}
		time.Sleep(time.Millisecond)
	}
	if err := s.Ready(); err == nil || !strings.Contains(err.Error(), "behind the reservation") {
		t.Fatalf("Ready() right after the new claim = %v, want the clock behind R", err)
	}
	clock.Set(id64.Twitter.TickTime(r + 1))
	waitReady(t, s, true)
	c2 := dialNoeq(t, addr, "")
	ids, err := c2.get(100)
	if err != nil {
		t.Fatal(err)
	}
	checker.Add(ids...)
	if err := checker.Err(); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if tick := id64.Twitter.Parts(id64.ID(id)).Tick; tick <= r {
			t.Fatalf("ID at tick %d after the handoff, at or below the old holder's R %d", tick, r)
		}
	}
	if got := s.seqs()[0].sq.Stats().Losses; got != 1 {
		t.Errorf("leases lost = %d, want 1", got)
	}
}

// A request waiting at the reservation ceiling for the keeper must not hold
// up the end of a lost lease: its connection closes and the supervisor
// claims again at once, not after MaxWait.
func TestServer_LeaseLostWhileWaitingAtCeiling(t *testing.T) {
	clock := floetest.NewClock(start)
	ns := workeridtest.NewMemSource(1)
	s, addr := newTestServer(t, Config{Clock: clock, Window: time.Second, MaxWait: time.Minute,
		Sequences: []SequenceConfig{{Name: "default", Source: ns}}})
	c := dialNoeq(t, addr, "")
	if _, err := c.get(10); err != nil {
		t.Fatal(err)
	}
	ns.Refuse(errors.New("coordinator out of reach"))
	clock.Step(10 * time.Second) // past the ceiling, which cannot rise
	type reply struct {
		ids []uint64
		err error
	}
	got := make(chan reply, 1)
	go func() {
		ids, err := c.get(10)
		got <- reply{ids, err}
	}()
	seq := s.seqs()[0]
	deadline := time.Now().Add(10 * time.Second)
	for seq.stats().CeilingHits == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the request never reached the ceiling")
		}
		time.Sleep(time.Millisecond)
	}
	// The loss comes while reservations are still refused: the request,
	// which may still be between its first try and its wait, must never
	// see the reservation rise under the old lease.
	r := ns.Holder(0).Reserved()
	// The bounds below are work (closing a connection, a claim of the
	// memory source), stretched by the slowdown schedtest measures from
	// here, at most half a minute: the defect, a term held up by the
	// request's MaxWait, takes a minute.
	m := schedtest.Now()
	scale := func(d time.Duration) time.Duration { return min(m.Scale(d), 30*time.Second) }
	lost := time.Now()
	ns.Lose(0)
	ns.Refuse(nil)
	select {
	case rep := <-got:
		// Either the request ends with the term, or, when it was between
		// its first try and its wait as the term ended, it is served by
		// the next term, above the old R; then its connection closes.
		if rep.err == nil {
			for _, id := range rep.ids {
				if tick := id64.Twitter.Parts(id64.ID(id)).Tick; tick <= r {
					t.Fatalf("the waiting request got an ID at tick %d, at or below the lost term's R %d", tick, r)
				}
			}
			if !c.closed() {
				t.Fatal("the connection of a request served across the handoff stayed open")
			}
		}
	case <-time.After(scale(5 * time.Second)):
		t.Fatalf("the connection waiting at the ceiling stayed open %v after the lease was lost", time.Since(lost))
	}
	for ns.Holder(0) == nil {
		if time.Since(lost) > scale(5*time.Second) {
			t.Fatalf("no new claim within %v of the loss", scale(5*time.Second))
		}
		time.Sleep(time.Millisecond)
	}
	if d, bound := time.Since(lost), scale(time.Second); d > bound {
		t.Errorf("the term ended and the ID was claimed again %v after the loss, want at once (within %v, 1 s on an idle machine)", d, bound)
	}
}

// A lease lost while the server stops must not hang the stop: the
// supervisor ending the term closes its connections under the server's
// lock, which the stop must not hold while it waits for the supervisors.
func TestServer_LeaseLostDuringShutdown(t *testing.T) {
	for i := range 50 {
		ns := workeridtest.NewMemSource(1)
		s, err := New(Config{Clock: floetest.NewClock(start), Logger: quietLogger(), Sequences: []SequenceConfig{{Name: "default", Source: ns}}})
		if err != nil {
			t.Fatal(err)
		}
		closed := make(chan struct{})
		go ns.Lose(0)
		go func() {
			s.Close()
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: Close hung after a lease lost during it", i)
		}
	}
}

func TestServer_RequestsRefusedWithoutLease(t *testing.T) {
	clock := floetest.NewClock(start)
	ns := workeridtest.NewMemSource(1)
	s, addr := newTestServer(t, Config{Clock: clock, Sequences: []SequenceConfig{{Name: "default", Source: ns}}})
	// Someone else holds the ID before the server can claim it again.
	stolen := ns.Steal(0)
	// Not ready at once for the lost lease, then, once its claim found
	// every ID held, for that.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := s.Ready()
		if errors.Is(err, ErrNotReady) && strings.Contains(err.Error(), "held") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Ready() with every ID held = %v after 10 s, want ErrNotReady naming the held IDs", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !dialNoeq(t, addr, "").closed() {
		t.Fatal("a binary connection was accepted for a sequence without a worker ID")
	}
	stolen.Release(context.Background(), 0)
	clock.Step(time.Minute) // past the thief's R
	waitReady(t, s, true)
}

func TestServer_StartsStandbyWhenEveryIDIsHeld(t *testing.T) {
	ns := workeridtest.NewMemSource(2)
	a, _ := ns.Claim(context.Background())
	b, _ := ns.Claim(context.Background())
	clock := floetest.NewClock(start)
	s, _ := newTestServer(t, Config{Clock: clock, Sequences: []SequenceConfig{{Name: "default", Source: ns}}})
	if err := s.Ready(); err == nil {
		t.Fatal("ready without a worker ID")
	}
	a.Release(context.Background(), 0)
	waitReady(t, s, true)
	if got := s.seqs()[0].sq.Stats().WorkerID; got != a.ID() {
		t.Errorf("claimed worker ID %d, want the freed %d", got, a.ID())
	}
	_ = b
}

func TestServer_DetachAttach(t *testing.T) {
	clock := floetest.NewClock(start)
	ns := workeridtest.NewMemSource(1)
	s, addr := newTestServer(t, Config{Clock: clock, Sequences: []SequenceConfig{{Name: "default", Source: ns}}})
	c := dialNoeq(t, addr, "")
	checker := floetest.NewChecker[uint64](0)
	ids, err := c.get(10)
	if err != nil {
		t.Fatal(err)
	}
	checker.Add(ids...)
	lastTick := id64.Twitter.Parts(id64.ID(ids[9])).Tick

	ctx := context.Background()
	if err := s.Detach(ctx, "default"); err != nil {
		t.Fatal(err)
	}
	if !c.closed() {
		t.Fatal("a binary connection stayed open after Detach")
	}
	if ns.Holder(0) != nil {
		t.Fatal("the worker ID is still held after Detach")
	}
	if got := ns.Released(); len(got) != 1 || got[0] != lastTick {
		t.Fatalf("releases recorded last ticks %v, want [%d]", got, lastTick)
	}
	if err := s.Ready(); err == nil {
		t.Fatal("ready while detached")
	}
	if err := s.Attach(ctx, "default"); err != nil {
		t.Fatal(err)
	}
	// The release recorded the last tick: serving resumes one tick later,
	// without waiting out the reservation (a window and a half ahead).
	clock.Step(time.Millisecond)
	waitReady(t, s, true)
	ids, err = dialNoeq(t, addr, "").get(10)
	if err != nil {
		t.Fatal(err)
	}
	checker.Add(ids...)
	if err := checker.Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.Detach(ctx, "nope"); !errors.Is(err, ErrUnknownSequence) {
		t.Fatalf("Detach of an unknown sequence: %v", err)
	}
}

func TestServer_ShutdownReleasesWithLastTick(t *testing.T) {
	clock := floetest.NewClock(start)
	ns := workeridtest.NewMemSource(1)
	s, err := New(Config{Clock: clock, Logger: quietLogger(), Sequences: []SequenceConfig{{Name: "default", Source: ns}}})
	if err != nil {
		t.Fatal(err)
	}
	var ids [5]id64.ID
	if err := fill(s, ids[:]); err != nil {
		t.Fatal(err)
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := ns.Released(), []uint64{id64.Twitter.Parts(ids[4]).Tick}; len(got) != 1 || got[0] != want[0] {
		t.Fatalf("shutdown released with last ticks %v, want %v", got, want)
	}
	// The next holder starts right above the last tick.
	l, err := ns.Claim(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.Floor(), id64.Twitter.Parts(ids[4]).Tick; got != want {
		t.Fatalf("next floor %d, want %d", got, want)
	}
	_ = floe.Wait
}

// flakySource is a MemSource whose first fails claims fail, as while a
// coordinator member rejoins; it counts the claims.
type flakySource struct {
	*workeridtest.MemSource
	fails  int64
	claims atomic.Int64
}

func (fs *flakySource) Claim(ctx context.Context) (workerid.Lease, error) {
	if fs.claims.Add(1) <= fs.fails {
		return nil, errors.New("etcdserver: leader changed")
	}
	return fs.MemSource.Claim(ctx)
}

// TestNew_FirstClaimRetried: a first claim that fails at the start is
// claimed again for up to FirstClaim, then the start fails with the
// coordinator's error; zero claims once.
func TestNew_FirstClaimRetried(t *testing.T) {
	tests := []struct {
		name       string
		fails      int64
		firstClaim time.Duration
		wantErr    bool
		wantClaims int64
	}{
		{"two failures, then a claim", 2, 10 * time.Second, false, 3},
		{"failing past the bound", 1 << 40, 500 * time.Millisecond, true, 0},
		{"zero claims once", 1, 0, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &flakySource{MemSource: workeridtest.NewMemSource(1), fails: tt.fails}
			cfg := Config{Clock: floetest.NewClock(start), Store: newMemStore(), Logger: quietLogger(), FirstClaim: tt.firstClaim,
				Sequences: []SequenceConfig{{Name: "default", Source: src}}}
			s, err := New(cfg)
			if s != nil {
				defer s.Close()
			}
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "etcdserver: leader changed") || !errors.Is(err, sequencer.ErrClaim) {
					t.Fatalf("New = %v, want an error naming the coordinator's", err)
				}
				if tt.firstClaim > 0 && !strings.Contains(err.Error(), "for at most "+tt.firstClaim.String()) {
					t.Errorf("New = %v, want the bound named", err)
				}
			} else {
				if err != nil {
					t.Fatalf("New = %v, want it to claim again", err)
				}
				waitReady(t, s, true)
			}
			if got := src.claims.Load(); tt.wantClaims != 0 && got != tt.wantClaims {
				t.Errorf("%d claims, want %d", got, tt.wantClaims)
			}
		})
	}
}

// expiringSource is a MemSource whose leases are never renewed: each has a
// local deadline a second after its claim on the fake clock. Once armed,
// every reservation write hangs until stall closes, as against a
// coordinator that does not answer.
type expiringSource struct {
	*workeridtest.MemSource
	clock   *floetest.Clock
	armed   atomic.Bool
	stall   chan struct{}
	entered chan struct{}
}

func (es *expiringSource) Claim(ctx context.Context) (workerid.Lease, error) {
	l, err := es.MemSource.Claim(ctx)
	if err != nil {
		return nil, err
	}
	return &expiringLease{Lease: l, es: es, deadline: es.clock.Now().Add(time.Second)}, nil
}

type expiringLease struct {
	workerid.Lease
	es       *expiringSource
	deadline time.Time
}

func (l *expiringLease) Left() time.Duration { return l.deadline.Sub(l.es.clock.Now()) }

func (l *expiringLease) Reserve(ctx context.Context, tick uint64) error {
	if l.es.armed.Load() {
		select {
		case l.es.entered <- struct{}{}:
		default:
		}
		<-l.es.stall
	}
	return l.Lease.Reserve(ctx, tick)
}

// TestServer_StopsAtLeaseDeadline: floed issues nothing past its lease's
// local deadline, while the keeper's reservation write hangs.
func TestServer_StopsAtLeaseDeadline(t *testing.T) {
	clock := floetest.NewClock(start)
	src := &expiringSource{MemSource: workeridtest.NewMemSource(1), clock: clock, stall: make(chan struct{}), entered: make(chan struct{}, 1)}
	s, addr := newTestServer(t, Config{Clock: clock, Sequences: []SequenceConfig{{Name: "default", Source: src}}})
	t.Cleanup(func() { close(src.stall) }) // before the server closes
	c := dialNoeq(t, addr, "")
	if _, err := c.get(10); err != nil {
		t.Fatal(err)
	}
	src.armed.Store(true)
	clock.Step(1100 * time.Millisecond) // past the deadline, under half the 2 s window left: the keeper writes
	select {
	case <-src.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("no reservation write within 10 s")
	}
	if ids, err := c.get(10); err == nil {
		t.Fatalf("%d IDs issued past the lease's local deadline", len(ids))
	}
	if err := s.Ready(); err == nil || !strings.Contains(err.Error(), "local deadline") {
		t.Errorf("Ready() past the lease's deadline = %v, want it named", err)
	}
}
