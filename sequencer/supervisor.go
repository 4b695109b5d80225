package sequencer

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/floeid/floe/workerid"
)

// standbyRetry is the longest wait between claims while every worker ID is
// held. A freed ID (its holder died, its lease expired) is served this late
// at most after the coordinator frees it. A claim that finds every ID held
// is cheap: in etcd a lease grant, a read and a revocation, in Redis one
// script.
const standbyRetry = 250 * time.Millisecond

// faultRetry is the longest wait between claims after a claim failed (the
// coordinator out of reach or refusing, a timeout), and between tries of a
// reservation write that failed: the wait doubles from 50 ms (10 ms for a
// write) up to it, less up to a quarter at random so that nodes cut off
// together do not claim in step. A node claims again at most this long
// after the coordinator answers again, unless a claim sent during the
// fault still waits out its request (ClaimTimeout). With a 2 s cap,
// serving again took up to 3.7 s after a node's link to etcd healed.
const faultRetry = 250 * time.Millisecond

// claimLogEvery is how many failed claims in a row log one error: the
// first does, then one in claimLogEvery, about every 2 s at faultRetry.
const claimLogEvery = 8

// jitter returns d less up to a quarter of it, at random.
func jitter(d time.Duration) time.Duration {
	if d < 4 {
		return d
	}
	return d - rand.N(d/4)
}

// run is the sequencer's supervisor: it holds a worker ID while attached,
// keeps its reservation ahead, and when the lease is lost ends the term at
// once and claims again. It returns when stop is closed.
func (s *Sequencer) run(t *term) {
	defer close(s.done)
	backoff := time.Duration(0)
	failed := 0 // claims failed in a row, but for every ID held
	for {
		if t == nil && s.attached.Load() && !s.destroyed.Load() {
			var err error
			ctx, cancel := contextUntil(s.stop, nil)
			t, err = s.claim(ctx)
			cancel()
			if err != nil {
				backoff = min(max(2*backoff, 50*time.Millisecond), faultRetry)
				s.setWhy(err.Error(), err)
				if s.gone() {
					s.setDestroyed("destroyed cluster-wide")
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
					if failed%claimLogEvery == 0 {
						s.log.Error("claiming a worker ID failed; claiming again", "err", err, "retry", backoff, "failed", failed+1)
					}
					failed++
				}
				select {
				case <-s.stop:
					return
				case req := <-s.req:
					req.done <- s.answer(req.op)
				case <-time.After(jitter(backoff)):
				}
				continue
			}
			backoff, failed = 0, 0
			if !s.publish(t) {
				// Closed while claiming: nothing was issued.
				s.releaseLease(context.Background(), t)
				return
			}
		}
		if t == nil {
			select {
			case <-s.stop:
				return
			case req := <-s.req:
				req.done <- s.answer(req.op)
			}
			continue
		}
		req, lost := s.keep(t)
		switch {
		case lost != nil:
			// A lease the catalog ended with a destroyed sequence is no
			// loss: the lease's cause tells (destroyedCause), else the
			// catalog does, after issuing stopped. Outside a catalog it is a loss,
			// counted before the state changes.
			inCatalog := s.catalog != nil && s.gen != 0
			s.cut(t, lost) // unless the fuse did
			id := t.lease.ID()
			t = nil
			if inCatalog && (s.destroyedCause(lost) || s.gone()) {
				s.destroys.Add(1)
				s.log.Info("worker ID released: the sequence was destroyed cluster-wide; no longer serving it", "worker_id", id, "reason", "destroy")
				s.setDestroyed("destroyed cluster-wide")
				continue
			}
			if inCatalog {
				s.lost.Add(1)
			}
			s.log.Error("worker ID lease lost; issuing stopped", "worker_id", id, "err", lost)
		case req != nil:
			var err error
			id := t.lease.ID()
			switch req.op {
			case opDetach:
				err = s.release(t, "detached")
				s.detaches.Add(1)
				s.setAttached(false)
				s.log.Info("worker ID released: detached", "worker_id", id, "reason", "detach")
			case opDestroy:
				// The catalog dropped the worker IDs with the sequence:
				// there is nothing to release.
				s.endTerm(t, "destroyed", nil)
				s.destroys.Add(1)
				s.log.Info("worker ID released: the sequence was destroyed", "worker_id", id, "reason", "destroy")
				s.setDestroyed("destroyed")
			case opGone:
				s.endTerm(t, "destroyed cluster-wide", nil)
				s.destroys.Add(1)
				s.log.Info("worker ID released: the sequence was destroyed cluster-wide; no longer serving it", "worker_id", id, "reason", "destroy")
				s.setDestroyed("destroyed cluster-wide")
			}
			t = nil
			req.done <- err
		default: // stop
			return
		}
	}
}

// answer carries out op while no worker ID is held.
func (s *Sequencer) answer(o op) error {
	if s.destroyed.Load() {
		if o == opDestroy || o == opGone {
			return nil
		}
		return s.notReady()
	}
	switch o {
	case opAttach:
		s.setAttached(true)
	case opDetach:
		s.setAttached(false)
	case opDestroy:
		s.setDestroyed("destroyed")
	case opGone:
		s.setDestroyed("destroyed cluster-wide")
	}
	return nil
}

// setAttached records whether the supervisor holds or claims a worker ID,
// before the request is answered: a caller reading the state after a
// Detach sees it detached.
func (s *Sequencer) setAttached(on bool) {
	if s.attached.Swap(on) != on {
		s.notify()
	}
}

// setDestroyed records that the sequence was destroyed, for why: the
// sequencer no longer claims. Whoever logs the release does so first, so
// that a caller woken by the Destroyed state finds the line written.
func (s *Sequencer) setDestroyed(why string) {
	s.setWhy(why, nil)
	s.attached.Store(false)
	s.destroyed.Store(true)
	s.notify()
}

// goneTimeout bounds the catalog read of gone. The supervisor waits for
// it after every lost lease and failed claim, so a coordinator out of
// reach must not hold it long: with a longer bound, a node claimed again
// up to 10 s after a partition healed.
const goneTimeout = time.Second

// gone reports whether the catalog no longer has the sequencer's
// generation: asked after a lost lease and a failed claim, before claiming
// again. An unreachable catalog is not proof: the supervisor claims again,
// which fails as long as the coordinator is out of reach. Outside a
// catalog it is false.
func (s *Sequencer) gone() bool {
	if s.catalog == nil || s.gen == 0 {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), goneTimeout)
	defer cancel()
	def, err := s.catalog.Get(ctx, s.name)
	switch {
	case errors.Is(err, workerid.ErrNotFound):
		return true
	case err != nil:
		return false
	}
	return def.Gen != s.gen
}

// destroyedCause reports whether err ends a lease of a catalog sequence
// because the sequence was destroyed: the coordinator adapters end such a
// lease with a *workerid.LeaseLostError whose cause wraps
// workerid.ErrNotFound (the sequence, in this generation, is gone). A
// planned end, not a loss; outside a catalog it is false.
func (s *Sequencer) destroyedCause(err error) bool {
	var lost *workerid.LeaseLostError
	return s.catalog != nil && s.gen != 0 && errors.As(err, &lost) && errors.Is(lost, workerid.ErrNotFound)
}

// contextUntil returns a context cancelled when stop or other closes (a
// nil other never does).
func contextUntil(stop, other <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-stop:
			cancel()
		case <-other:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
