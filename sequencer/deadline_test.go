package sequencer_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
)

// deadlineSource is a MemSource whose leases have a local deadline on a
// fake clock, as the etcd and Redis leases do, and whose reservation
// writes a test can stall, as a write to a coordinator that does not
// answer does: a stalled Reserve ignores its context.
type deadlineSource struct {
	*workeridtest.MemSource
	clock *floetest.Clock

	mu       sync.Mutex
	deadline time.Time     // zero: renewed, the lease always has ttl left
	stall    chan struct{} // non-nil: Reserve waits until it closes
	entered  chan struct{} // signalled when a Reserve starts to wait
}

// deadlineTTL is the leases' time to live: renewed, a lease's deadline
// is this far ahead of the clock.
const deadlineTTL = 500 * time.Millisecond

func newDeadlineSource(clock *floetest.Clock) *deadlineSource {
	return &deadlineSource{MemSource: workeridtest.NewMemSource(1), clock: clock, entered: make(chan struct{}, 1)}
}

func (ds *deadlineSource) Claim(ctx context.Context) (workerid.Lease, error) {
	l, err := ds.MemSource.Claim(ctx)
	if err != nil {
		return nil, err
	}
	return &deadlineLease{Lease: l, ds: ds}, nil
}

// freeze stops the renewals: the deadline stays one TTL from now.
func (ds *deadlineSource) freeze() {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ds.deadline = ds.clock.Now().Add(deadlineTTL)
}

// stallWrites makes every Reserve wait until the returned function is
// called; the test calls it at its end at the latest.
func (ds *deadlineSource) stallWrites(t *testing.T) (unstall func()) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ch := make(chan struct{})
	ds.stall = ch
	var once sync.Once
	unstall = func() {
		once.Do(func() {
			ds.mu.Lock()
			ds.stall = nil
			ds.mu.Unlock()
			close(ch)
		})
	}
	t.Cleanup(unstall)
	return unstall
}

// awaitStalled waits up to 10 s for a Reserve to wait on the stall.
func (ds *deadlineSource) awaitStalled(t *testing.T) {
	t.Helper()
	select {
	case <-ds.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("no reservation write within 10 s")
	}
}

type deadlineLease struct {
	workerid.Lease
	ds *deadlineSource
}

func (l *deadlineLease) Left() time.Duration {
	l.ds.mu.Lock()
	defer l.ds.mu.Unlock()
	if l.ds.deadline.IsZero() {
		return deadlineTTL
	}
	return l.ds.deadline.Sub(l.ds.clock.Now())
}

func (l *deadlineLease) Reserve(ctx context.Context, tick uint64) error {
	l.ds.mu.Lock()
	stall := l.ds.stall
	l.ds.mu.Unlock()
	if stall != nil {
		select {
		case l.ds.entered <- struct{}{}:
		default:
		}
		<-stall
	}
	return l.Lease.Reserve(ctx, tick)
}

// TestSequencer_StopsAtLeaseDeadline: a lease past its local deadline
// issues nothing, in every format, while the keeper waits on a write that
// does not return and before the lease itself ends; once it ends, the
// sequencer claims again at once.
func TestSequencer_StopsAtLeaseDeadline(t *testing.T) {
	next := map[sequencer.Format]func(sq *sequencer.Sequencer) error{
		sequencer.Format64:  func(sq *sequencer.Sequencer) error { _, err := sq.Next64(); return err },
		sequencer.Format80:  func(sq *sequencer.Sequencer) error { _, err := sq.Next80(0); return err },
		sequencer.Format96:  func(sq *sequencer.Sequencer) error { _, err := sq.Next96(); return err },
		sequencer.Format128: func(sq *sequencer.Sequencer) error { _, err := sq.Next128(); return err },
	}
	tests := []struct {
		format sequencer.Format
		calls  map[string]func(sq *sequencer.Sequencer) error
	}{
		{sequencer.Format64, map[string]func(sq *sequencer.Sequencer) error{
			"NextN64": func(sq *sequencer.Sequencer) error { _, err := sq.NextN64(make([]id64.ID, 10)); return err },
			"AppendNext": func(sq *sequencer.Sequencer) error {
				_, err := sq.AppendNext(nil)
				return err
			},
			"AppendNextBinary": func(sq *sequencer.Sequencer) error { _, err := sq.AppendNextBinary(nil); return err },
		}},
		{sequencer.Format80, map[string]func(sq *sequencer.Sequencer) error{
			"AppendNext":       func(sq *sequencer.Sequencer) error { _, err := sq.AppendNext(nil); return err },
			"AppendNextBinary": func(sq *sequencer.Sequencer) error { _, err := sq.AppendNextBinary(nil); return err },
		}},
		{sequencer.Format96, map[string]func(sq *sequencer.Sequencer) error{
			"AppendNext":       func(sq *sequencer.Sequencer) error { _, err := sq.AppendNext(nil); return err },
			"AppendNextBinary": func(sq *sequencer.Sequencer) error { _, err := sq.AppendNextBinary(nil); return err },
		}},
		{sequencer.Format128, map[string]func(sq *sequencer.Sequencer) error{
			"AppendNext":       func(sq *sequencer.Sequencer) error { _, err := sq.AppendNext(nil); return err },
			"AppendNextBinary": func(sq *sequencer.Sequencer) error { _, err := sq.AppendNextBinary(nil); return err },
		}},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			clock := floetest.NewClock(start)
			ds := newDeadlineSource(clock)
			sq := open(t, sequencer.Config{Definition: sequencer.Definition{Format: tt.format}, Source: ds, Clock: clock, Window: time.Second})
			calls := map[string]func(sq *sequencer.Sequencer) error{"Next": next[tt.format]}
			for name, call := range tt.calls {
				calls[name] = call
			}
			for name, call := range calls {
				if err := call(sq); err != nil {
					t.Fatalf("%s before the fault: %v", name, err)
				}
			}
			// The renewals stop: the deadline is 500 ms away. The
			// keeper's next write hangs.
			ds.freeze()
			ds.stallWrites(t)
			clock.Step(450 * time.Millisecond) // under half a window left: the keeper writes
			ds.awaitStalled(t)
			for name, call := range calls {
				if err := call(sq); err != nil {
					t.Fatalf("%s 50 ms before the deadline: %v", name, err)
				}
			}
			clock.Step(60 * time.Millisecond) // 10 ms past the deadline
			for name, call := range calls {
				err := call(sq)
				var nr *sequencer.NotReadyError
				if !errors.As(err, &nr) || !errors.Is(err, sequencer.ErrNotReady) {
					t.Errorf("%s past the lease's deadline = %v, want a *NotReadyError matching ErrNotReady", name, err)
				}
			}
			if err := sq.Ready(); !errors.Is(err, sequencer.ErrNotReady) {
				t.Errorf("Ready past the lease's deadline = %v, want ErrNotReady", err)
			}
			// The lease ends: the sequencer stops serving it although
			// the write still hangs, and claims again.
			ds.Lose(0)
			waitState(t, sq, sequencer.Claiming)
		})
	}
}

// TestSequencer_LossEndsHungWrite: a lease lost while the keeper waits on
// a write that does not return ends the term at once, and a call for IDs
// fails with ErrNotReady, not with the IDs still below the reservation.
func TestSequencer_LossEndsHungWrite(t *testing.T) {
	clock := floetest.NewClock(start)
	ds := newDeadlineSource(clock)
	sq := open(t, sequencer.Config{Source: ds, Clock: clock, Window: time.Second})
	next64(t, sq, 10)
	unstall := ds.stallWrites(t)
	clock.Step(450 * time.Millisecond)
	ds.awaitStalled(t)
	next64(t, sq, 10) // still below the reservation
	ds.Lose(0)        // taken over, say: the lease ends before its deadline
	waitState(t, sq, sequencer.Claiming)
	if _, err := sq.Next64(); !errors.Is(err, sequencer.ErrNotReady) {
		t.Fatalf("Next64 after the loss = %v, want ErrNotReady", err)
	}
	if got := sq.Stats().Losses; got != 1 {
		t.Errorf("Losses = %d, want 1", got)
	}
	// The write returns at last; the sequencer claims again and serves.
	unstall()
	waitState(t, sq, sequencer.Serving)
	next64(t, sq, 10)
	if got := sq.Stats().Losses; got != 1 {
		t.Errorf("Losses = %d after the new claim, want 1", got)
	}
}

// TestSequencer_LostAtCeiling: a call waiting at the reservation ceiling
// when the lease is lost fails with ErrNotReady, which a caller retries,
// not with the *floe.CeilingError, in every format.
func TestSequencer_LostAtCeiling(t *testing.T) {
	calls := []struct {
		format sequencer.Format
		name   string
		call   func(sq *sequencer.Sequencer) error
	}{
		{sequencer.Format64, "Next64", func(sq *sequencer.Sequencer) error { _, err := sq.Next64(); return err }},
		{sequencer.Format64, "NextN64", func(sq *sequencer.Sequencer) error { _, err := sq.NextN64(make([]id64.ID, 10)); return err }},
		{sequencer.Format64, "AppendNext", func(sq *sequencer.Sequencer) error { _, err := sq.AppendNext(nil); return err }},
		{sequencer.Format80, "Next80", func(sq *sequencer.Sequencer) error { _, err := sq.Next80(0); return err }},
		{sequencer.Format96, "Next96", func(sq *sequencer.Sequencer) error { _, err := sq.Next96(); return err }},
		{sequencer.Format128, "Next128", func(sq *sequencer.Sequencer) error { _, err := sq.Next128(); return err }},
		{sequencer.Format128, "AppendNext", func(sq *sequencer.Sequencer) error { _, err := sq.AppendNext(nil); return err }},
		{sequencer.Format80, "AppendNextBinary", func(sq *sequencer.Sequencer) error { _, err := sq.AppendNextBinary(nil); return err }},
		{sequencer.Format128, "AppendNextBinary", func(sq *sequencer.Sequencer) error { _, err := sq.AppendNextBinary(nil); return err }},
	}
	writes := []struct {
		name  string
		block func(t *testing.T, ds *deadlineSource)
	}{
		{"writes refused", func(t *testing.T, ds *deadlineSource) { ds.Refuse(errors.New("coordinator out of reach")) }},
		{"write hung", func(t *testing.T, ds *deadlineSource) { ds.stallWrites(t) }},
	}
	for _, w := range writes {
		for _, c := range calls {
			t.Run(w.name+"/"+c.name, func(t *testing.T) {
				clock := floetest.NewClock(start)
				ds := newDeadlineSource(clock)
				sq := open(t, sequencer.Config{Definition: sequencer.Definition{Format: c.format}, Source: ds, Clock: clock,
					Window: time.Second, MaxWait: time.Minute})
				w.block(t, ds)
				clock.Step(3 * time.Second) // past the reservation
				errc := make(chan error, 1)
				go func() { errc <- c.call(sq) }()
				// Wait until the call waits at the ceiling.
				for deadline := time.Now().Add(10 * time.Second); sq.Stats().Generator.CeilingHits == 0; time.Sleep(time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("no call at the ceiling within 10 s")
					}
				}
				ds.Lose(0)
				var err error
				select {
				case err = <-errc:
				case <-time.After(20 * time.Second):
					t.Fatal("the call still waits 20 s after the loss")
				}
				var ce *floe.CeilingError
				if !errors.Is(err, sequencer.ErrNotReady) || errors.As(err, &ce) {
					t.Errorf("%s at the ceiling when the lease was lost = %v, want ErrNotReady", c.name, err)
				}
			})
		}
	}
}

// TestSequencer_NotReadyAtCeiling: while the write that extends the
// reservation has no answer and the clock passes the reservation, Ready
// says so, before the lease's deadline; once the write returns it is ready
// again.
func TestSequencer_NotReadyAtCeiling(t *testing.T) {
	clock := floetest.NewClock(start)
	ds := newDeadlineSource(clock)
	sq := open(t, sequencer.Config{Source: ds, Clock: clock, Window: time.Second})
	next64(t, sq, 10)
	unstall := ds.stallWrites(t)
	clock.Step(450 * time.Millisecond) // under half a window left: the keeper writes, and hangs
	ds.awaitStalled(t)
	if err := sq.Ready(); err != nil {
		t.Fatalf("Ready below the reservation = %v, want nil", err)
	}
	clock.Step(time.Second) // past the reservation; the lease is renewed (deadline 500 ms ahead)
	err := sq.Ready()
	var nr *sequencer.NotReadyError
	if !errors.As(err, &nr) || nr.State != sequencer.Serving {
		t.Fatalf("Ready past the reservation with its write hung = %v, want a *NotReadyError while Serving", err)
	}
	unstall()
	for deadline := time.Now().Add(10 * time.Second); sq.Ready() != nil; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not ready 10 s after the write returned: %v", sq.Ready())
		}
	}
	next64(t, sq, 10)
}
