package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/floeid/floe/workerid"
)

// lease is one claim of a worker ID. Its writes (renewals, Reserve,
// Release) are serialized by op, each carrying the resourceVersion of the
// previous one; the other methods never wait for the API server.
type lease struct {
	src      *Source            // immutable
	id       int                // immutable
	fence    int64              // immutable: the claim's floe.dev/fence
	floor    uint64             // immutable
	identity string             // immutable: the claim's holderIdentity
	name     string             // immutable: namespace/name of the Lease object
	done     chan struct{}      // closed when the lease ends
	ctx      context.Context    // immutable: canceled by stop
	stop     context.CancelFunc // immutable: stops the renewals
	wg       sync.WaitGroup     // the renewal goroutine

	reserved atomic.Uint64 // atomic: the last durable reservation
	deadline atomic.Int64  // atomic: Unix nanoseconds on the Clock after which another may take the ID

	op  sync.Mutex     // serializes the writes
	obj *coordv1.Lease // guarded by op: the object as this lease last wrote or read it

	mu  sync.Mutex
	err error // guarded by mu: why the lease ended
}

func (s *Source) newLease(id int, fence int64, identity string, floor uint64, obj *coordv1.Lease, sent time.Time) *lease {
	ctx, stop := context.WithCancel(context.Background())
	l := &lease{
		src:      s,
		id:       id,
		fence:    fence,
		floor:    floor,
		identity: identity,
		name:     s.obj(id),
		done:     make(chan struct{}),
		ctx:      ctx,
		stop:     stop,
		obj:      obj,
	}
	w, _ := decodeWorker(obj) // the object this claim wrote
	l.reserved.Store(w.reserved)
	l.deadline.Store(sent.Add(s.ttl).UnixNano())
	return l
}

// start starts the renewals.
func (l *lease) start() {
	l.wg.Add(1)
	go l.keep()
}

func (l *lease) ID() int               { return l.id }
func (l *lease) Fence() int64          { return l.fence }
func (l *lease) Floor() uint64         { return l.floor }
func (l *lease) Reserved() uint64      { return l.reserved.Load() }
func (l *lease) Done() <-chan struct{} { return l.done }

func (l *lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Left returns the time to the local deadline, zero or less once it
// passed: the sequencer issues nothing past it.
func (l *lease) Left() time.Duration {
	return time.Duration(l.deadline.Load() - l.src.cfg.Clock.Now().UnixNano())
}

// renewed moves the local deadline to sent plus the TTL: a write sent at
// sent applied, so no other claimer saw the object unchanged before.
func (l *lease) renewed(sent time.Time) {
	if d := sent.Add(l.src.ttl).UnixNano(); d > l.deadline.Load() {
		l.deadline.Store(d)
	}
}

// end records why the lease ended, closes Done and stops the renewals. It
// reports whether this call ended the lease.
//
// log, when not nil, runs before Done closes, so whoever Done wakes finds
// the line written.
func (l *lease) end(err error, log func()) bool {
	l.mu.Lock()
	if l.err != nil {
		l.mu.Unlock()
		return false
	}
	l.err = err
	if log != nil {
		log()
	}
	close(l.done)
	l.mu.Unlock()
	l.stop()
	return true
}

// Causes of a loss, wrapped with the object's name.
var errExpired = errors.New("no renewal within the lease TTL")

// lose ends the lease as lost and returns the reason it ended. When the
// object is gone or another's, a Catalog's Source asks whether the
// catalog destroyed the sequence: then the cause wraps
// workerid.ErrNotFound and the end is logged as planned, not as a loss.
func (l *lease) lose(cause error) error {
	if err := l.Err(); err != nil {
		return err
	}
	destroyed := errors.Is(cause, workerid.ErrNotFound)
	if !destroyed && !errors.Is(cause, errExpired) && l.src.destroyed() {
		destroyed = true
		cause = fmt.Errorf("%w: %v: the sequence was destroyed", workerid.ErrNotFound, cause)
	}
	l.end(&workerid.LeaseLostError{ID: l.id, Fence: l.fence, Err: cause}, func() {
		l.src.lost(l.identity)
		if destroyed {
			l.src.cfg.Logger.Info("worker ID lease ended: the sequence was destroyed", "worker_id", l.id, "fence", l.fence,
				"object", l.name, "reserved", l.reserved.Load(), "reason", "destroy")
		} else {
			l.src.cfg.Logger.Warn("worker ID lease lost", "worker_id", l.id, "fence", l.fence,
				"object", l.name, "reserved", l.reserved.Load(), "err", cause)
		}
	})
	return l.Err()
}

// destroyedTimeout bounds the read of destroyed.
const destroyedTimeout = time.Second

// destroyed reports whether the catalog no longer has the generation a
// Catalog's Source claims under; false for another Source and when the
// read fails.
func (s *Source) destroyed() bool {
	if s.guard == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), min(s.cfg.RequestTimeout, destroyedTimeout))
	defer cancel()
	rec, err := s.get(ctx, s.guard.record)
	if err != nil {
		return false
	}
	if rec == nil {
		return true
	}
	r, err := decodeRecord(rec)
	return err == nil && r.name == s.guard.seq && (r.state != stateLive || r.gen != s.guard.gen)
}

// check tells whether obj, read after a write of this lease was refused,
// is still this claim's: its holder, its fence, not retired, its
// reservation not below Reserved. Otherwise it returns why the lease is
// lost.
func (l *lease) check(obj *coordv1.Lease) (worker, error) {
	if obj == nil {
		return worker{}, fmt.Errorf("the Lease %s was deleted", l.name)
	}
	w, err := decodeWorker(obj)
	switch {
	case err != nil:
		return w, err
	case w.retired && l.src.guard == nil:
		return w, fmt.Errorf("the Lease %s was retired (annotation %s), by hand: floe retires only a catalog's Leases", l.name, annState)
	case w.retired:
		return w, fmt.Errorf("the Lease %s was retired: the sequence was destroyed: %w", l.name, workerid.ErrNotFound)
	case w.holder != l.identity || w.fence != l.fence:
		holder := w.holder
		if holder == "" {
			holder = `no one ("")`
		}
		return w, fmt.Errorf("the Lease %s is held by %s (fence %d), not this claim %s (fence %d)", l.name, holder, w.fence, l.identity, l.fence)
	case w.reserved < l.reserved.Load():
		return w, fmt.Errorf("the Lease %s reservation moved backwards from %d to %d", l.name, l.reserved.Load(), w.reserved)
	}
	return w, nil
}

// maxMoves bounds the writes of one call that find the object moved by
// this lease's own earlier writes applied without a reply.
const maxMoves = 4

// write updates the object with change applied to what this lease last
// wrote, carrying its resourceVersion, in attempts until left reports no
// time (or ctx ends). On a conflict it reads the object: still this
// claim's (an earlier write of this lease applied late), it adopts it and
// returns when done reports the goal reached, else writes again; anyone
// else's, the lease is lost. A write past the local deadline loses the
// lease. Called with op held.
func (l *lease) write(ctx context.Context, left func() time.Duration, change func(*worker), done func(worker) bool) error {
	s := l.src
	for range maxMoves {
		if l.Left() <= 0 {
			return l.lose(fmt.Errorf("the Lease %s: %w", l.name, errExpired))
		}
		w, err := decodeWorker(l.obj)
		if err != nil {
			return l.lose(err)
		}
		change(&w)
		obj := l.obj.DeepCopy()
		setWorker(obj, w)
		sent := s.cfg.Clock.Now()
		mt := metav1.NewMicroTime(sent)
		obj.Spec.RenewTime = &mt
		var got *coordv1.Lease
		tries := 0
		err = attempts(ctx, s.attempt, left, func(ctx context.Context) (err error) {
			tries++
			got, err = s.cli.Update(ctx, obj, metav1.UpdateOptions{})
			return err
		})
		switch {
		case err == nil:
			l.obj = got
			l.renewed(sent)
			return nil
		case apierrors.IsConflict(err):
			var cur *coordv1.Lease
			gerr := attempts(ctx, s.attempt, left, func(ctx context.Context) (err error) {
				cur, err = s.cli.Get(ctx, obj.Name, metav1.GetOptions{})
				return err
			})
			if apierrors.IsNotFound(gerr) {
				cur, gerr = nil, nil
			}
			if gerr != nil {
				if l.Left() <= 0 {
					return l.lose(fmt.Errorf("the Lease %s: %w", l.name, errExpired))
				}
				return fmt.Errorf("floe: %w", explain(gerr, "get", s.cfg.Namespace, obj.Name))
			}
			cw, cause := l.check(cur)
			if w.holder == "" && tries > 1 && cur != nil {
				if rw, err := decodeWorker(cur); err == nil && rw.holder == "" && rw.fence == l.fence && !rw.retired {
					l.obj = cur
					return nil
				}
			}
			if cause != nil {
				return l.lose(cause)
			}
			l.obj = cur
			if done != nil && done(cw) {
				return nil
			}
		case apierrors.IsNotFound(err):
			return l.lose(fmt.Errorf("the Lease %s was deleted", l.name))
		case l.Left() <= 0:
			return l.lose(fmt.Errorf("the Lease %s: %w: %v", l.name, errExpired, err))
		default:
			return fmt.Errorf("floe: %w", explain(err, "update", s.cfg.Namespace, obj.Name))
		}
	}
	return l.lose(fmt.Errorf("the Lease %s changed %d times under this claim's writes", l.name, maxMoves))
}

// Reserve raises the reservation with one Update conditioned on the
// resourceVersion of this lease's last write: an attempt applied late can
// never bring R down, and a write after another claim's is refused. Only
// a write known to have applied, or the object read back at tick or
// above, raises R here. Attempts go on until ctx ends or the local
// deadline passes (then the lease is lost).
func (l *lease) Reserve(ctx context.Context, tick uint64) error {
	l.op.Lock()
	defer l.op.Unlock()
	if err := l.Err(); err != nil {
		return err
	}
	if tick <= l.reserved.Load() {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	err := l.write(ctx, l.Left,
		func(w *worker) { w.reserved = max(w.reserved, tick) },
		func(w worker) bool { return w.reserved >= tick })
	if err != nil {
		return err
	}
	l.reserved.Store(tick)
	return nil
}

// Release stops the renewals, then gives the worker ID back with one
// Update carrying the resourceVersion: no holder, last recorded (capped
// at R), R kept.
func (l *lease) Release(ctx context.Context, last uint64) error {
	l.stop()
	l.wg.Wait()
	l.op.Lock()
	defer l.op.Unlock()
	if err := l.Err(); err != nil {
		return err
	}
	s := l.src
	rctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	released := false
	r := l.reserved.Load()
	err := l.write(rctx, nil,
		func(w *worker) {
			w.holder, w.last = "", 0
			if last != 0 && r != 0 {
				w.last = min(last, r, w.reserved)
			}
		},
		nil)
	var lost *workerid.LeaseLostError
	switch {
	case err == nil:
		released = true
	case errors.As(err, &lost):
		return err
	}
	l.end(workerid.ErrReleased, nil)
	if !released {
		return fmt.Errorf("floe: releasing worker ID %d: %w", l.id, err)
	}
	return nil
}

// giveBack frees the worker ID of a claim that is not returned, best
// effort: no holder, with the resourceVersion just written. The claim
// issued nothing, so the last tick of the clean release it took over,
// its floor, is kept for the next claim: else a graceful handoff that
// meets a failed claim would start above the whole reservation.
func (l *lease) giveBack() {
	l.op.Lock()
	defer l.op.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), l.src.cfg.RequestTimeout)
	defer cancel()
	l.end(workerid.ErrReleased, nil) // first: a refused write is no loss to log
	_ = l.write(ctx, nil, func(w *worker) {
		w.holder = ""
		if l.floor < w.reserved {
			w.last = l.floor
		}
	}, nil)
}

// keep renews the lease every TTL/3 with one Update at a time, moving the
// local deadline to the send time of the last write that applied plus the
// TTL. It ends the lease when the deadline passes or a write finds the
// object another's.
func (l *lease) keep() {
	defer l.wg.Done()
	s := l.src
	timer := time.NewTimer(min(s.renew, l.Left()))
	defer timer.Stop()
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-timer.C:
		}
		if l.Left() <= 0 {
			l.lose(fmt.Errorf("the Lease %s: %w", l.name, errExpired))
			return
		}
		// A Reserve renews too: wait for the renewal interval since it.
		if since := s.ttl - l.Left(); since < s.renew {
			timer.Reset(s.renew - since)
			continue
		}
		l.op.Lock()
		err := l.ctx.Err()
		if err == nil {
			err = l.write(l.ctx, l.Left, func(*worker) {}, func(worker) bool { return false })
		}
		l.op.Unlock()
		next := s.renew
		switch {
		case l.ctx.Err() != nil || l.Err() != nil:
			return
		case err != nil:
			next = s.retry
		}
		left := l.Left()
		if left <= 0 {
			l.lose(fmt.Errorf("the Lease %s: %w", l.name, errExpired))
			return
		}
		timer.Reset(min(next, left))
	}
}
