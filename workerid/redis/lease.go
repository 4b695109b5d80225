package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/floeid/floe/workerid"
)

// lease is a held worker ID: its owner key holds token. One goroutine
// renews the owner key every TTL/3 until the lease ends.
type lease struct {
	src      *Source // immutable
	id       int     // immutable
	fence    int64   // immutable
	token    string  // immutable
	floor    uint64  // immutable once Claim returns
	ownerKey string  // immutable: Prefix+"workers/<id>"
	resKey   string  // immutable: Prefix+"reserved/<id>"
	done     chan struct{}
	exited   chan struct{}      // closed when the renewal goroutine returns
	ctx      context.Context    // immutable: done when the lease ends
	cancel   context.CancelFunc // immutable

	op sync.Mutex // serializes Reserve and Release

	mu       sync.Mutex
	reserved uint64    // guarded by mu
	deadline time.Time // guarded by mu: on the Source's Clock
	err      error     // guarded by mu: why the lease ended
	drop     bool      // guarded by mu: delete the owner key once the lease ends
}

// retryDivisor sets how soon a failed renewal is tried again: TTL/10, so a
// server that answers again within the TTL sees several attempts.
const retryDivisor = 10

func newLease(s *Source, id int, fence int64, token string, sent time.Time) *lease {
	ctx, cancel := context.WithCancel(context.Background())
	n := strconv.Itoa(id)
	return &lease{
		src: s, id: id, fence: fence, token: token,
		ownerKey: s.cfg.Prefix + "workers/" + n,
		resKey:   s.cfg.Prefix + "reserved/" + n,
		done:     make(chan struct{}),
		exited:   make(chan struct{}),
		ctx:      ctx,
		cancel:   cancel,
		deadline: sent.Add(s.cfg.TTL),
	}
}

func (l *lease) ID() int               { return l.id }
func (l *lease) Fence() int64          { return l.fence }
func (l *lease) Floor() uint64         { return l.floor }
func (l *lease) Done() <-chan struct{} { return l.done }

func (l *lease) Reserved() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reserved
}

func (l *lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// start starts the renewal goroutine.
func (l *lease) start() { go l.renew() }

// end ends the lease with err unless it ended already, and returns why it
// ended and whether this call ended it. drop asks the renewal goroutine to
// delete the owner key.
//
// log, when not nil, runs before Done closes, so whoever Done wakes finds
// the line written.
func (l *lease) end(err error, drop bool, log func()) (ended bool, why error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return false, l.err
	}
	l.err, l.drop = err, drop
	if log != nil {
		log()
	}
	close(l.done)
	l.cancel()
	return true, err
}

// lose ends the lease as lost and returns why it ended. Unless the owner
// key is known to hold another token, the renewal goroutine then deletes
// it if it still holds this lease's, so the ID is free before the TTL.
//
// When the owner key holds another token, a Catalog's Source first asks
// whether the catalog destroyed the sequence (Catalog.Destroy deletes the
// owner keys): then, as when a reservation found the sequence gone, the
// cause wraps workerid.ErrNotFound and the end is logged as planned, not
// as a loss.
func (l *lease) lose(why error) error {
	if err := l.Err(); err != nil {
		return err
	}
	drop := !errors.Is(why, ErrNotOwner)
	destroyed := errors.Is(why, workerid.ErrNotFound)
	if !destroyed && errors.Is(why, ErrNotOwner) && l.src.destroyed() {
		destroyed, why = true, l.src.destroyedError()
	}
	_, err := l.end(&workerid.LeaseLostError{ID: l.id, Fence: l.fence, Err: why}, drop, func() {
		if destroyed {
			l.src.cfg.Logger.Info("worker ID lease ended: the sequence was destroyed", "worker_id", l.id, "fence", l.fence,
				"key_prefix", l.src.cfg.Prefix, "reason", "destroy")
		} else {
			l.src.cfg.Logger.Warn("worker ID lease lost", "worker_id", l.id, "fence", l.fence,
				"key_prefix", l.src.cfg.Prefix, "error", why)
		}
	})
	return err
}

// Left returns the time to the local deadline, zero or less once it passed:
// the sequencer issues nothing past it, even while a write is in flight.
func (l *lease) Left() time.Duration { d, _ := l.left(); return d }

// left returns the time to the local deadline, and the deadline.
func (l *lease) left() (time.Duration, time.Time) {
	l.mu.Lock()
	d := l.deadline
	l.mu.Unlock()
	return d.Sub(l.src.cfg.Clock.Now()), d
}

// renew extends the owner key every TTL/3, and TTL/retryDivisor after a
// failure, and moves the local deadline to the send time of each renewal
// that succeeded plus the TTL. Past the deadline, when the owner key holds
// another token, or when the server became unsafe (Source.recheck), the
// lease is lost.
func (l *lease) renew() {
	defer close(l.exited)
	cfg := l.src.cfg
	every, retry := cfg.TTL/3, cfg.TTL/retryDivisor
	wait := every
	timer := time.NewTimer(wait)
	defer timer.Stop()
loop:
	for {
		left, _ := l.left()
		if left <= 0 {
			l.lose(ErrExpired)
			break
		}
		timer.Reset(min(wait, left))
		select {
		case <-l.ctx.Done():
			break loop
		case <-timer.C:
		}
		sent := cfg.Clock.Now()
		left, _ = l.left()
		if left <= 0 {
			l.lose(ErrExpired)
			break
		}
		ctx, cancel := context.WithTimeout(l.ctx, min(cfg.Timeout, left))
		ok, err := await(ctx, func(ctx context.Context) (int64, error) {
			return renewScript().Run(ctx, l.src.rdb, []string{l.ownerKey}, l.token, cfg.TTL.Milliseconds()).Int64()
		})
		cancel()
		switch {
		case l.ctx.Err() != nil:
			break loop
		case err != nil:
			cfg.Logger.Warn("worker ID lease renewal failed", "worker_id", l.id, "fence", l.fence,
				"key_prefix", cfg.Prefix, "error", err)
			wait = retry
		case ok != 1:
			l.lose(ErrNotOwner)
			break loop
		default:
			l.mu.Lock()
			if d := sent.Add(cfg.TTL); d.After(l.deadline) {
				l.deadline = d
			}
			l.mu.Unlock()
			// The safety check's time comes out of the wait, so that a
			// slow answer does not push the next renewal later.
			checking := time.Now()
			if err := l.src.recheck(l.ctx); err != nil {
				l.lose(err)
				break loop
			}
			wait = max(every-time.Since(checking), retry)
		}
	}
	l.mu.Lock()
	drop := l.drop
	l.mu.Unlock()
	if drop {
		l.dropOwner(context.Background())
	}
}

// dropOwner deletes the owner key if it still holds the lease's token, as
// well as it can within the request timeout.
func (l *lease) dropOwner(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, l.src.cfg.Timeout)
	defer cancel()
	await(ctx, func(ctx context.Context) (int64, error) {
		return dropScript().Run(ctx, l.src.rdb, []string{l.ownerKey}, l.token).Int64()
	})
}

func (l *lease) Reserve(ctx context.Context, tick uint64) error {
	l.op.Lock()
	defer l.op.Unlock()
	l.mu.Lock()
	err, reserved := l.err, l.reserved
	l.mu.Unlock()
	if err != nil {
		return err
	}
	if tick <= reserved {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err // nothing was sent
	}
	left, _ := l.left()
	if left <= 0 {
		return l.lose(ErrExpired)
	}
	rctx, cancel := context.WithTimeout(ctx, min(l.src.cfg.Timeout, left))
	defer cancel()
	args := []any{l.token, formatTick(tick), l.src.cfg.Owner, "", "", ""}
	if q := l.src.cfg.seq; q != nil {
		args[3], args[4], args[5] = q.hash, q.name, q.gen
	}
	ok, err := await(rctx, func(ctx context.Context) (int64, error) {
		return reserveScript().Run(ctx, l.src.rdb, []string{l.ownerKey, l.resKey}, args...).Int64()
	})
	switch {
	case err != nil:
		return l.lose(fmt.Errorf("reserving up to tick %d: %w", tick, scriptError(err)))
	case ok == -2:
		return l.lose(l.src.destroyedError())
	case ok != 1:
		return l.lose(ErrNotOwner)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	l.reserved = tick
	return nil
}

func (l *lease) Release(ctx context.Context, last uint64) error {
	l.op.Lock()
	defer l.op.Unlock()
	l.mu.Lock()
	err, reserved := l.err, l.reserved
	l.mu.Unlock()
	if err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, l.src.cfg.Timeout)
	defer cancel()
	ok, err := await(rctx, func(ctx context.Context) (int64, error) {
		return releaseScript().Run(ctx, l.src.rdb, []string{l.ownerKey, l.resKey},
			l.token, formatTick(min(last, reserved)), l.src.cfg.Owner).Int64()
	})
	switch {
	case err != nil:
		// The owner key may still be set: the renewal goroutine deletes
		// it if it holds this token, else it expires after the TTL.
		if ended, why := l.end(workerid.ErrReleased, true, nil); !ended {
			err = why
		} else {
			err = fmt.Errorf("floe: releasing worker ID %d: %w", l.id, scriptError(err))
		}
	case ok != 1:
		err = l.lose(ErrNotOwner)
	default:
		if ended, why := l.end(workerid.ErrReleased, false, nil); !ended {
			err = why // lost meanwhile, by its local deadline
		}
	}
	<-l.exited
	return err
}

// dropLease deletes the owner key of a lease Claim does not return.
func (l *lease) dropLease(ctx context.Context) {
	l.end(workerid.ErrReleased, false, nil)
	l.dropOwner(ctx)
}
