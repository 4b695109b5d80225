package client

import (
	"context"
	"net/netip"
	"time"
)

// WithNow sets the clock that measures the age of prefetched IDs, the
// resolve interval and how long a failed address is passed over.
func WithNow(now func() time.Time) Option {
	return func(o *options) {
		o.now = now
		o.since = func(t time.Time) time.Duration { return now().Sub(t) }
	}
}

// WithLookup replaces the DNS lookup of names.
func WithLookup(lookup func(ctx context.Context, host string) ([]netip.Addr, error)) Option {
	return func(o *options) { o.lookup = lookup }
}

// Queued returns how many calls wait to board a flight.
func (c *Client) Queued() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}

// Buffered returns how many prefetched IDs the buffer holds, stale or not.
func (c *Client) Buffered() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.n
}

// Flights returns how many flights are in the air.
func (c *Client) Flights() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.flying
}
