package workeridtest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/floeid/floe/workerid"
)

// MemSource is a worker-ID namespace in memory, for the tests of what is
// built on a Source: its leases a test can end, as an expiry or a
// takeover would, and its reservations it can refuse, as a coordinator
// out of reach does. It passes Run.
type MemSource struct {
	mu       sync.Mutex
	n        int
	held     map[int]*memLease
	reserved map[int]uint64
	last     map[int]uint64
	fence    int64
	released []uint64 // the last ticks of the releases, in order
	refuse   error    // when set, Reserve fails with it
}

// NewMemSource returns a namespace of n worker IDs, none held.
func NewMemSource(n int) *MemSource {
	return &MemSource{n: n, held: make(map[int]*memLease), reserved: make(map[int]uint64), last: make(map[int]uint64)}
}

// Claim hands out the lowest free worker ID.
func (ns *MemSource) Claim(ctx context.Context) (workerid.Lease, error) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	for id := range ns.n {
		if ns.held[id] == nil {
			return ns.claimLocked(id), nil
		}
	}
	return nil, workerid.ErrExhausted
}

// claimLocked hands out a lease of the free worker ID id; ns.mu is held.
func (ns *MemSource) claimLocked(id int) *memLease {
	ns.fence++
	l := &memLease{ns: ns, id: id, fence: ns.fence, floor: ns.reserved[id], reserved: ns.reserved[id], done: make(chan struct{})}
	if last := ns.last[id]; last != 0 {
		l.floor = last
		delete(ns.last, id)
	}
	ns.held[id] = l
	return l
}

// Steal ends the lease of id and hands id to another holder at once, as a
// takeover does, before the loser can claim it again.
func (ns *MemSource) Steal(id int) workerid.Lease {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	ns.loseLocked(id, nil)
	return ns.claimLocked(id)
}

// Lose ends the lease of id, if it is held.
func (ns *MemSource) Lose(id int) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	ns.loseLocked(id, nil)
}

// loseLocked ends the lease of id for cause (nil: unknown); ns.mu is held.
func (ns *MemSource) loseLocked(id int, cause error) {
	if l := ns.held[id]; l != nil {
		delete(ns.held, id)
		l.err = &workerid.LeaseLostError{ID: id, Fence: l.fence, Err: cause}
		close(l.done)
	}
}

// Holder returns the lease that holds id, or nil.
func (ns *MemSource) Holder(id int) workerid.Lease {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if l := ns.held[id]; l != nil {
		return l
	}
	return nil
}

// Refuse makes every Reserve fail with err until Refuse(nil).
func (ns *MemSource) Refuse(err error) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	ns.refuse = err
}

// Released returns the last ticks the releases so far recorded, in order.
func (ns *MemSource) Released() []uint64 {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	return slices.Clone(ns.released)
}

// Destroy ends every lease of the namespace, with a cause wrapping
// workerid.ErrNotFound as the adapters' leases of a destroyed catalog
// sequence end; later claims fail. It returns the highest tick the namespace's holders could have issued: the
// reservation of each worker ID, or the last tick of one released cleanly
// and not claimed since.
func (ns *MemSource) Destroy() uint64 {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	var top uint64
	for id, r := range ns.reserved {
		if last := ns.last[id]; last != 0 && ns.held[id] == nil {
			r = last
		}
		top = max(top, r)
	}
	for id := range ns.held {
		ns.loseLocked(id, fmt.Errorf("%w: the sequence was destroyed", workerid.ErrNotFound))
	}
	ns.n = 0
	return top
}

type memLease struct {
	ns       *MemSource
	id       int
	fence    int64
	floor    uint64
	done     chan struct{}
	reserved uint64 // guarded by ns.mu
	err      error  // guarded by ns.mu
}

func (l *memLease) ID() int               { return l.id }
func (l *memLease) Fence() int64          { return l.fence }
func (l *memLease) Floor() uint64         { return l.floor }
func (l *memLease) Done() <-chan struct{} { return l.done }

func (l *memLease) Reserved() uint64 {
	l.ns.mu.Lock()
	defer l.ns.mu.Unlock()
	return l.reserved
}

func (l *memLease) Err() error {
	l.ns.mu.Lock()
	defer l.ns.mu.Unlock()
	return l.err
}

func (l *memLease) Reserve(ctx context.Context, tick uint64) error {
	l.ns.mu.Lock()
	defer l.ns.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if l.ns.refuse != nil {
		return l.ns.refuse
	}
	if tick > l.reserved {
		l.reserved = tick
		l.ns.reserved[l.id] = tick
	}
	return nil
}

func (l *memLease) Release(ctx context.Context, last uint64) error {
	l.ns.mu.Lock()
	defer l.ns.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if last != 0 {
		l.ns.last[l.id] = min(last, l.reserved)
	}
	l.ns.released = append(l.ns.released, last)
	delete(l.ns.held, l.id)
	l.err = workerid.ErrReleased
	close(l.done)
	return nil
}

// MemCatalog is a cluster's catalog in memory; each sequence generation
// has its own MemSource of worker IDs, whose leases Destroy ends. It
// passes RunCatalog.
type MemCatalog struct {
	ids     int
	mu      sync.Mutex
	seqs    map[string]workerid.Sequence
	retired map[string]workerid.Retired
	ns      map[int64]*MemSource
	gen     int64
	changed chan struct{} // closed and replaced by each Destroy
}

// NewMemCatalog returns an empty catalog whose sequences have ids worker
// IDs each.
func NewMemCatalog(ids int) *MemCatalog {
	return &MemCatalog{ids: ids, seqs: make(map[string]workerid.Sequence), retired: make(map[string]workerid.Retired),
		ns: make(map[int64]*MemSource), changed: make(chan struct{})}
}

func (c *MemCatalog) Create(ctx context.Context, name, spec string, tokens ...workerid.TokenHash) (workerid.Sequence, error) {
	if !workerid.ValidName(name) {
		return workerid.Sequence{}, fmt.Errorf("%w: %q", workerid.ErrName, name)
	}
	set := workerid.NewTokens(tokens...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if seq, ok := c.seqs[name]; ok {
		if seq.Spec != spec {
			return workerid.Sequence{}, fmt.Errorf("%w: %s", workerid.ErrConflict, name)
		}
		if len(tokens) > 0 && seq.Tokens != set {
			return workerid.Sequence{}, fmt.Errorf("%w: %s has other tokens", workerid.ErrConflict, name)
		}
		return seq, nil
	}
	c.gen++
	seq := workerid.Sequence{Name: name, Spec: spec, Gen: c.gen, Retired: c.retired[name], Tokens: set}
	c.seqs[name] = seq
	return seq, nil
}

func (c *MemCatalog) Get(ctx context.Context, name string) (workerid.Sequence, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seq, ok := c.seqs[name]
	if !ok {
		return workerid.Sequence{}, fmt.Errorf("%w: %s", workerid.ErrNotFound, name)
	}
	return seq, nil
}

func (c *MemCatalog) List(ctx context.Context) ([]workerid.Sequence, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var list []workerid.Sequence
	for _, seq := range c.seqs {
		list = append(list, seq)
	}
	slices.SortFunc(list, func(a, b workerid.Sequence) int { return strings.Compare(a.Name, b.Name) })
	return list, nil
}

func (c *MemCatalog) Destroy(ctx context.Context, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	seq, ok := c.seqs[name]
	if !ok {
		return fmt.Errorf("%w: %s", workerid.ErrNotFound, name)
	}
	delete(c.seqs, name)
	if ns := c.ns[seq.Gen]; ns != nil {
		if top := ns.Destroy(); top != 0 {
			c.retired[name] = workerid.Retired{Gen: seq.Gen, Spec: seq.Spec, Tick: top}
		}
	}
	close(c.changed)
	c.changed = make(chan struct{})
	return nil
}

func (c *MemCatalog) WaitGone(ctx context.Context, name string, gen int64) error {
	for {
		c.mu.Lock()
		seq, ok := c.seqs[name]
		changed := c.changed
		c.mu.Unlock()
		if !ok || seq.Gen != gen {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Source returns the worker IDs of seq's generation; it fails once the
// sequence is destroyed or defined again.
func (c *MemCatalog) Source(seq workerid.Sequence) (workerid.Source, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.seqs[seq.Name]; !ok || cur.Gen != seq.Gen {
		return nil, fmt.Errorf("%w: %s generation %d", workerid.ErrNotFound, seq.Name, seq.Gen)
	}
	ns := c.ns[seq.Gen]
	if ns == nil {
		ns = NewMemSource(c.ids)
		c.ns[seq.Gen] = ns
	}
	return ns, nil
}
