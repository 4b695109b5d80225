package client

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// downFor is how long an address that failed is passed over while others
// answer: long enough that the calls retrying after a failure go elsewhere,
// short enough that a restarted daemon takes load again soon.
const downFor = time.Second

// endpoint is one address given to New: an IP address or a DNS name, and a
// port.
type endpoint struct {
	addr string // immutable: as given to New
	host string // immutable
	port string // immutable
	ip   bool   // immutable: host is an IP address, never looked up

	// gen counts the endpoint's failures. A connection remembers the
	// generation it was dialled in and is dropped when it is next taken
	// after a failure: a daemon that closed one connection (restarted, lost
	// its lease, saw its clock go back) has usually closed the others too.
	gen  atomic.Uint64
	down atomic.Int64  // Unix nanoseconds until which the endpoint is passed over
	next atomic.Uint32 // the resolved address the next dial takes

	mu       sync.Mutex
	addrs    []netip.Addr // guarded by mu: the name's addresses
	resolved time.Time    // guarded by mu: when addrs was looked up
}

// parseEndpoint checks that addr is host:port with a numeric port.
func parseEndpoint(addr string) (*endpoint, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrAddress, addr, err)
	}
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
		return nil, fmt.Errorf("%w %q: port %q is not a number in 1..65535", ErrAddress, addr, port)
	}
	if host == "" {
		return nil, fmt.Errorf("%w %q: no host", ErrAddress, addr)
	}
	ep := &endpoint{addr: addr, host: host, port: port}
	if ip, err := netip.ParseAddr(host); err == nil {
		ep.ip = true
		ep.addrs = []netip.Addr{ip}
	}
	ep.next.Store(rand.Uint32())
	return ep, nil
}

// fail passes the endpoint over for downFor from now and retires its
// connections.
func (ep *endpoint) fail(now time.Time) {
	ep.down.Store(now.Add(downFor).UnixNano())
	ep.gen.Add(1)
}

// pick returns the endpoint a new connection goes to: a random one (the
// first one with WithNoRandomize) among those not passed over, or, when all
// of them are, the one whose time out ends first.
func (c *Client) pick() *endpoint {
	eps := c.endpoints
	start := 0
	if !c.opts.noRandomize && len(eps) > 1 {
		start = rand.IntN(len(eps))
	}
	now := c.opts.now().UnixNano()
	var best *endpoint
	var bestDown int64
	for i := range eps {
		ep := eps[(start+i)%len(eps)]
		down := ep.down.Load()
		if down <= now {
			return ep
		}
		if best == nil || down < bestDown {
			best, bestDown = ep, down
		}
	}
	return best
}

// target returns the address to dial for ep: the next of its resolved
// addresses, looked up again when the last lookup is older than the resolve
// interval. When a lookup fails and earlier addresses are known, they are
// used until the next interval.
func (c *Client) target(ctx context.Context, ep *endpoint) (string, error) {
	if c.opts.resolve < 0 && !ep.ip {
		return ep.addr, nil
	}
	ep.mu.Lock()
	addrs, stale := ep.addrs, !ep.ip && c.opts.now().Sub(ep.resolved) >= c.opts.resolve
	ep.mu.Unlock()
	if stale {
		// Looked up without the lock: a lookup may be slow, and a
		// duplicate one now and then (at most one per pooled
		// connection) does no harm.
		fresh, err := c.opts.lookup(ctx, ep.host)
		if err == nil && len(fresh) == 0 {
			err = fmt.Errorf("%s has no addresses", ep.host)
		}
		ep.mu.Lock()
		if err == nil {
			for i, a := range fresh {
				fresh[i] = a.Unmap()
			}
			ep.addrs = fresh
			addrs = fresh
		}
		if err == nil || len(ep.addrs) > 0 {
			ep.resolved = c.opts.now()
		}
		ep.mu.Unlock()
		if err != nil {
			c.warn("lookup failed", "addr", ep.addr, "known_addrs", len(addrs), "err", err)
			if len(addrs) == 0 {
				return "", err
			}
		}
	}
	ip := addrs[ep.next.Add(1)%uint32(len(addrs))]
	return net.JoinHostPort(ip.String(), ep.port), nil
}
