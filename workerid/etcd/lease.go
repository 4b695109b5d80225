package etcd

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/floeid/floe/workerid"
)

// Causes of a loss, wrapped in a *workerid.LeaseLostError.
var (
	errExpired      = errors.New("no renewal of the etcd lease within its TTL")
	errNotFound     = errors.New("the etcd lease is gone")
	errOwnerDeleted = errors.New("the owner key was deleted")
	errTakenOver    = errors.New("the owner key is not this claim's")
	errClosed       = errors.New("the etcd client is closed")
)

// lease is one claim of a worker ID. Reserve and Release are serialized;
// the other methods never wait for etcd.
type lease struct {
	src         *Source            // immutable
	id          int                // immutable
	fence       int64              // immutable: the owner key's create revision
	floor       uint64             // immutable
	etcdID      clientv3.LeaseID   // immutable
	ownerKey    string             // immutable
	reservedKey string             // immutable
	done        chan struct{}      // closed when the lease ends
	stop        context.CancelFunc // immutable: stops the renewal and watch goroutines
	wg          sync.WaitGroup     // the renewal and watch goroutines

	reserved atomic.Uint64 // atomic: the last durable reservation
	rev      int64         // guarded by op: the reservation's mod revision, each write's condition (0: none)
	deadline atomic.Int64  // atomic: Unix nanoseconds on the Clock after which the etcd lease may have expired

	op sync.Mutex // serializes Reserve and Release

	mu  sync.Mutex
	err error // guarded by mu: why the lease ended
}

func (s *Source) newLease(id int, fence int64, etcdID clientv3.LeaseID, floor, reserved uint64, rev int64, sent time.Time) *lease {
	ctx, stop := context.WithCancel(context.Background())
	l := &lease{
		src:         s,
		id:          id,
		fence:       fence,
		floor:       floor,
		etcdID:      etcdID,
		ownerKey:    s.ownerKey(id),
		reservedKey: s.reservedKey(id),
		done:        make(chan struct{}),
		stop:        stop,
		rev:         rev,
	}
	l.reserved.Store(reserved)
	l.deadline.Store(sent.Add(s.ttl).UnixNano())
	l.wg.Add(2)
	go l.keep(ctx)
	go l.watch(ctx)
	return l
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

// end records why the lease ended, closes Done and stops the goroutines.
// It reports whether this call ended the lease.
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

// lose ends the lease as lost and returns the reason it ended. When the
// owner key is gone or not this claim's, a Catalog's Source first asks
// whether the catalog destroyed the sequence: then the cause wraps
// workerid.ErrNotFound and the end is logged as planned, not as a loss.
func (l *lease) lose(cause error) error {
	if err := l.Err(); err != nil {
		return err
	}
	destroyed := (errors.Is(cause, errOwnerDeleted) || errors.Is(cause, errTakenOver)) && l.src.destroyed()
	if destroyed {
		cause = fmt.Errorf("%w: sequence at %q, generation %d, was destroyed", workerid.ErrNotFound, l.src.guard.key, l.src.guard.gen)
	}
	l.end(&workerid.LeaseLostError{ID: l.id, Fence: l.fence, Err: cause}, func() {
		if destroyed {
			l.src.cfg.Logger.Info("worker ID lease ended: the sequence was destroyed", "worker_id", l.id, "fence", l.fence,
				"reserved", l.reserved.Load(), "reason", "destroy")
		} else {
			l.src.cfg.Logger.Warn("worker ID lease lost", "worker_id", l.id, "fence", l.fence,
				"reserved", l.reserved.Load(), "err", cause)
		}
	})
	return l.Err()
}

// Left returns the time to the local deadline, zero or less once it passed:
// the sequencer issues nothing past it, even while a write is in flight.
func (l *lease) Left() time.Duration { return l.untilDeadline() }

// untilDeadline is how long the etcd lease is sure to last; zero or less
// once it may have expired.
func (l *lease) untilDeadline() time.Duration {
	return time.Duration(l.deadline.Load() - l.src.cfg.Clock.Now().UnixNano())
}

// Reserve raises the reservation in one transaction conditioned on the
// owner key still being this claim's and on the reservation's mod
// revision being the last one this lease wrote or read: an attempt that
// got no reply, applied late, can never bring R down. Only a transaction
// known to have succeeded, or a reservation read at tick or above, raises
// R here. An attempt that gets no reply is tried again, on another member,
// until ctx ends or the lease's local deadline passes (then the lease is
// lost); a refused transaction ends the lease; a Reserve that fails
// otherwise leaves the lease as it was, for the caller to try again.
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
	// A write of this lease's that etcd applied without a reply moves the
	// mod revision: read, it is taken into account and the write tried
	// again, a few times at most.
	for range maxMoves {
		if l.untilDeadline() <= 0 {
			return l.lose(errExpired)
		}
		var resp *clientv3.TxnResponse
		err := l.src.do(ctx, l.untilDeadline, func(ctx context.Context) (err error) {
			resp, err = l.src.cli.Txn(ctx).
				If(clientv3.Compare(clientv3.CreateRevision(l.ownerKey), "=", l.fence),
					clientv3.Compare(clientv3.ModRevision(l.reservedKey), "=", l.rev)).
				Then(clientv3.OpPut(l.reservedKey, reservation{R: tick, Owner: l.src.cfg.Owner}.encode())).
				Else(clientv3.OpGet(l.ownerKey), clientv3.OpGet(l.reservedKey)).
				Commit()
			return err
		})
		switch {
		case err != nil && l.untilDeadline() <= 0:
			return l.lose(errExpired)
		case err != nil:
			return fmt.Errorf("floe: reserving worker ID %d up to tick %d: %w", l.id, tick, err)
		case resp.Succeeded:
			l.rev = resp.Header.Revision
			l.reserved.Store(tick)
			return nil
		}
		owner, kvs := resp.Responses[0].GetResponseRange().GetKvs(), resp.Responses[1].GetResponseRange().GetKvs()
		if len(owner) == 0 || owner[0].CreateRevision != l.fence {
			return l.lose(errTakenOver)
		}
		var rec reservation
		l.rev = 0
		if len(kvs) > 0 {
			if rec, err = decodeReservation(kvs[0].Value); err != nil {
				return l.lose(err)
			}
			l.rev = kvs[0].ModRevision
		}
		if rec.R >= tick {
			l.reserved.Store(tick)
			return nil
		}
	}
	return l.lose(fmt.Errorf("the reservation changed %d times under this claim's writes", maxMoves))
}

// maxMoves bounds the writes of one Reserve that find the reservation
// moved: by this lease's attempts without a reply, one each at most.
const maxMoves = 4

// Release stops the renewals, records last and deletes the owner key in
// one fenced transaction, and revokes the etcd lease.
func (l *lease) Release(ctx context.Context, last uint64) error {
	l.op.Lock()
	defer l.op.Unlock()
	if err := l.Err(); err != nil {
		return err
	}
	l.stop()
	l.wg.Wait()
	if err := l.Err(); err != nil {
		return err // lost before the goroutines stopped
	}
	defer l.src.revoke(ctx, l.etcdID)
	ops := []clientv3.Op{clientv3.OpDelete(l.ownerKey)}
	if r := l.reserved.Load(); last != 0 && r != 0 {
		rec := reservation{R: r, Last: min(last, r), Owner: l.src.cfg.Owner}
		ops = append(ops, clientv3.OpPut(l.reservedKey, rec.encode()))
	}
	attempts := 0
	var resp *clientv3.TxnResponse
	err := l.src.call(ctx, func(ctx context.Context) (err error) {
		attempts++
		resp, err = l.src.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(l.ownerKey), "=", l.fence)).
			Then(ops...).
			Commit()
		return err
	})
	switch {
	case err != nil:
		l.end(workerid.ErrReleased, nil)
		return fmt.Errorf("floe: releasing worker ID %d: %w", l.id, err)
	case !resp.Succeeded && attempts == 1:
		return l.lose(errTakenOver)
	}
	// A refusal after an attempt without a reply: that attempt released.
	l.end(workerid.ErrReleased, nil)
	return nil
}

// keep renews the etcd lease every TTL/3 with one keepalive request at a
// time, moving the local deadline to the send time of the last renewal
// that succeeded plus the TTL. It ends the lease when the deadline passes
// or etcd no longer knows the lease, and then revokes it.
func (l *lease) keep(ctx context.Context) {
	defer l.wg.Done()
	defer func() {
		// Only a lease that expired here may still hold its owner key in
		// etcd: revoking it frees the worker ID at once. After any other
		// loss (the owner key deleted, by a destroy among others, or taken
		// over; the etcd lease gone; the client closed) nothing is left
		// to free, and a revoke would only race the application's close
		// of its client.
		if errors.Is(l.Err(), errExpired) {
			l.src.revoke(context.Background(), l.etcdID)
		}
	}()
	s := l.src
	timer := time.NewTimer(min(s.renew, l.untilDeadline()))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		left := l.untilDeadline()
		if left <= 0 {
			l.lose(errExpired)
			return
		}
		// Each attempt goes to another member than the last one that did
		// not answer, until the deadline.
		var sent time.Time
		err := s.do(ctx, l.untilDeadline, func(ctx context.Context) error {
			sent = s.cfg.Clock.Now()
			_, err := s.cli.KeepAliveOnce(ctx, l.etcdID)
			return err
		})
		next := s.renew
		switch {
		case err == nil:
			if d := sent.Add(s.ttl).UnixNano(); d > l.deadline.Load() {
				l.deadline.Store(d)
			}
		case ctx.Err() != nil:
			return
		case errors.Is(err, rpctypes.ErrLeaseNotFound) || rpctypes.Error(err) == rpctypes.ErrLeaseNotFound:
			l.lose(errNotFound)
			return
		case s.cli.Ctx().Err() != nil:
			l.lose(errClosed)
			return
		default:
			next = s.retry
		}
		left = l.untilDeadline()
		if left <= 0 {
			l.lose(errExpired)
			return
		}
		timer.Reset(min(next, left))
	}
}

// watch ends the lease as soon as its owner key is deleted: by an
// expiry, a revocation, Catalog.Destroy or an operator.
func (l *lease) watch(ctx context.Context) {
	defer l.wg.Done()
	s := l.src
	rev := l.fence + 1
	// A member that loses its leader ends the watch: it resumes on one
	// that has one.
	wctx := clientv3.WithRequireLeader(ctx)
	for {
		for wr := range s.cli.Watch(wctx, l.ownerKey, clientv3.WithRev(rev), clientv3.WithFilterPut()) {
			if wr.CompactRevision != 0 || wr.Err() != nil {
				break
			}
			for _, ev := range wr.Events {
				if ev.Type == mvccpb.DELETE {
					l.lose(errOwnerDeleted)
					return
				}
			}
			rev = wr.Header.Revision + 1
		}
		if ctx.Err() != nil {
			return
		}
		if s.cli.Ctx().Err() != nil {
			l.lose(errClosed)
			return
		}
		// The watch ended (a compaction, a canceled stream): look at the
		// key, then watch again from the revision read.
		var resp *clientv3.GetResponse
		err := s.call(ctx, func(ctx context.Context) (err error) {
			resp, err = s.cli.Get(ctx, l.ownerKey)
			return err
		})
		switch {
		case err != nil:
			select {
			case <-ctx.Done():
				return
			case <-time.After(s.retry):
			}
			continue
		case len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != l.fence:
			l.lose(errOwnerDeleted)
			return
		}
		rev = resp.Header.Revision + 1
	}
}
