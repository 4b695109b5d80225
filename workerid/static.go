package workerid

import (
	"context"
	"fmt"
	"sync"
)

// Record is what a Store keeps for a worker ID.
type Record struct {
	// Reserved is the reservation R; it never goes down.
	Reserved uint64
	// Last, when not zero, is the last tick issued before a clean release
	// (at most Reserved): the next holder may start right above it.
	Last uint64
}

// Store keeps one worker ID's Record durably: Save returns only once the
// record would survive a crash. Static calls it from one goroutine at a
// time.
type Store interface {
	Load() (rec Record, ok bool, err error)
	Save(rec Record) error
}

// Static is the Source of one fixed worker ID whose reservation lives in a
// Store, usually a local state file: a single node, or a cluster whose
// worker IDs an operator assigns. It hands out one lease at a time.
type Static struct {
	id    int
	store Store

	mu    sync.Mutex
	held  bool  // guarded by mu: a lease is out
	fence int64 // guarded by mu: claims so far
}

// NewStatic returns the Source of worker ID id with its reservation in
// store.
func NewStatic(id int, store Store) *Static {
	return &Static{id: id, store: store}
}

// Claim returns the lease of the Static's worker ID, or ErrExhausted while
// an earlier lease is neither released nor lost.
func (s *Static) Claim(ctx context.Context) (Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held {
		return nil, fmt.Errorf("%w: worker ID %d is leased", ErrExhausted, s.id)
	}
	rec, _, err := s.store.Load()
	if err != nil {
		return nil, fmt.Errorf("floe: reading the reservation of worker ID %d: %w", s.id, err)
	}
	if rec.Last > rec.Reserved {
		return nil, fmt.Errorf("floe: worker ID %d: last tick %d above the reservation %d", s.id, rec.Last, rec.Reserved)
	}
	if rec.Last != 0 {
		// The new holder may issue above Last without reserving: a crash
		// must leave the next one above R, not above Last.
		if err := s.store.Save(Record{Reserved: rec.Reserved}); err != nil {
			return nil, fmt.Errorf("floe: claiming worker ID %d: %w", s.id, err)
		}
	}
	s.held = true
	s.fence++
	l := &staticLease{src: s, fence: s.fence, floor: rec.Reserved, reserved: rec.Reserved, done: make(chan struct{})}
	if rec.Last != 0 {
		l.floor = rec.Last
	}
	return l, nil
}

type staticLease struct {
	src   *Static
	fence int64
	floor uint64
	done  chan struct{}

	mu       sync.Mutex // serializes the store's writes
	reserved uint64     // guarded by mu
	err      error      // guarded by mu: why the lease ended
}

func (l *staticLease) ID() int               { return l.src.id }
func (l *staticLease) Fence() int64          { return l.fence }
func (l *staticLease) Floor() uint64         { return l.floor }
func (l *staticLease) Done() <-chan struct{} { return l.done }

func (l *staticLease) Reserved() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reserved
}

func (l *staticLease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

func (l *staticLease) Reserve(ctx context.Context, tick uint64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if tick <= l.reserved {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := l.src.store.Save(Record{Reserved: tick}); err != nil {
		return fmt.Errorf("floe: reserving worker ID %d up to tick %d: %w", l.src.id, tick, err)
	}
	l.reserved = tick
	return nil
}

func (l *staticLease) Release(ctx context.Context, last uint64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	var err error
	if last != 0 {
		if err = ctx.Err(); err == nil {
			err = l.src.store.Save(Record{Reserved: l.reserved, Last: min(last, l.reserved)})
		}
		if err != nil {
			err = fmt.Errorf("floe: recording the last tick of worker ID %d: %w", l.src.id, err)
		}
	}
	l.err = ErrReleased
	close(l.done)
	l.src.mu.Lock()
	l.src.held = false
	l.src.mu.Unlock()
	return err
}
