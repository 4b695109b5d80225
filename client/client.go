package client

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/wire"
)

// Client fetches IDs from noeq-protocol servers (floed, noeqd), failing
// over between them. It is safe for concurrent use; share one per process
// and its connections and batching serve every goroutine.
type Client struct {
	opts      options         // immutable
	endpoints []*endpoint     // immutable: in the order given to New
	pool      *pool           // immutable
	flights   int             // immutable: the most flights in the air: the pool's size, or 1 with prefetch
	start     time.Time       // immutable: when New ran, by opts.now: see clock
	ctx       context.Context // immutable: ends at Close, calling off flights
	cancel    context.CancelFunc
	wg        sync.WaitGroup // the refills
	waiters   sync.Pool      // of *waiter, for reuse

	invalidReplies atomic.Uint64 // replies rejected by verify

	mu        sync.Mutex
	closed    bool      // guarded by mu
	queue     []*waiter // guarded by mu: calls waiting to board a flight
	queued    int       // guarded by mu: the IDs they want
	flying    int       // guarded by mu: flights in the air
	incoming  int       // guarded by mu: IDs on their way to buf
	buf       buffer    // guarded by mu: prefetched IDs
	refillOff bool      // guarded by mu: the last flight failed
}

// New returns a client for the servers at addrs, each host:port where host
// is an IP address or a DNS name. It checks the addresses and options but
// does no I/O: connections are dialled when calls need them, so New
// succeeds while servers are down, and the first call reports what is
// wrong with them.
func New(addrs []string, opts ...Option) (*Client, error) {
	if len(addrs) == 0 {
		return nil, ErrNoAddresses
	}
	o := defaults()
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	c := &Client{opts: o, pool: newPool(o.poolSize), flights: o.poolSize}
	if o.prefetch > 0 {
		c.flights = 1 // see Order in the package documentation
	}
	for _, addr := range addrs {
		ep, err := parseEndpoint(addr)
		if err != nil {
			return nil, err
		}
		c.endpoints = append(c.endpoints, ep)
	}
	c.buf = buffer{size: o.prefetch, validity: o.validity}
	c.start = o.now()
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// Next returns a new ID.
//
// Concurrent calls share requests: calls that come while every connection
// of the pool has a request in flight queue, and the next request asks for
// all of them at once (see Batching in the package documentation). When a
// call returns before another begins, in any goroutine, the later call's
// IDs are greater, as long as both come from one server, with WithPrefetch
// too (see Order).
//
// When ctx ends first, Next returns ctx.Err(), or an *AttemptsError that
// wraps it when attempts had failed; it returns at once, leaving its
// request to finish without it.
func (c *Client) Next(ctx context.Context) (id64.ID, error) {
	var one [1]id64.ID
	if err := c.get(ctx, one[:]); err != nil {
		return 0, err
	}
	return one[0], nil
}

// NextN fills dst with new IDs and returns how many it filled: len(dst), or
// fewer with an error, in which case dst[:n] holds valid IDs.
//
// Up to 255 IDs are fetched as one request, batched with concurrent calls
// as Next does, and always in full or not at all. More are fetched on one
// connection as pipelined requests of 255; when that connection fails the
// call goes on from another server, keeping the IDs it had, so that each
// run of IDs from one server increases but the whole may not.
func (c *Client) NextN(ctx context.Context, dst []id64.ID) (int, error) {
	switch {
	case len(dst) == 0:
		return 0, nil
	case len(dst) <= wire.MaxCount:
		if err := c.get(ctx, dst); err != nil {
			return 0, err
		}
		return len(dst), nil
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var log attemptLog
	n, s, err := c.fill(ctx, dst, c.opts.attempts, &log, nil)
	if s != nil {
		c.pool.put(s)
	}
	if n > 0 && c.buf.size > 0 {
		// Buffered IDs drawn before these must not follow them.
		c.mu.Lock()
		c.buf.raise(slices.Max(dst[:n]))
		c.mu.Unlock()
	}
	return n, err
}

// Close closes the client's connections and stops its goroutines; calls
// in progress fail with ErrClosed, as do calls after Close. Prefetched IDs
// are dropped. Close returns nil, also when called again.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	for _, w := range c.queue {
		w.err = ErrClosed
		w.delivered = true
		w.done <- struct{}{}
	}
	c.queue = nil
	c.queued = 0
	c.buf.reset()
	c.mu.Unlock()

	// The pool first: flights interrupted by the end of c.ctx then see
	// that the client is closing and fail with ErrClosed.
	c.pool.close()
	c.cancel()
	c.wg.Wait()
	return nil
}

// clock returns the time since New by the monotonic clock, which measures
// the age of prefetched IDs. It reads no wall clock: time.Now reads both,
// and costs about twice as much, a cost every call from the buffer pays.
func (c *Client) clock() time.Duration { return c.opts.since(c.start) }

// warn logs at level Warn when the client has a logger.
func (c *Client) warn(msg string, args ...any) {
	if c.opts.logger != nil {
		c.opts.logger.Warn("floe client: "+msg, args...)
	}
}
