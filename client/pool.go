package client

import (
	"context"
	"net"
	"sync"
	"time"
)

// pool holds the client's connections: a fixed number of slots, each with
// at most one open connection. A caller takes a slot, uses (or dials) its
// connection alone, and puts the slot back; the number of slots bounds both
// the open connections and the requests in flight.
//
// Slots are taken most recently used first, so that a client that needs
// one connection at a time keeps using the same one, and the others are
// never dialled.
//
// A pool is safe for concurrent use.
type pool struct {
	free chan struct{} // immutable: a token for each free slot
	done chan struct{} // immutable: closed by close

	mu     sync.Mutex
	slots  []*slot            // guarded by mu: the free slots, the most recently used last
	open   map[*conn]struct{} // guarded by mu: every open connection, for close
	closed bool               // guarded by mu
}

// slot is a place for one connection. Only the holder of a slot reads or
// writes its conn.
type slot struct {
	cn *conn // nil until dialled, and after a failure
}

// conn is one connection to a server.
type conn struct {
	nc     net.Conn
	ep     *endpoint
	addr   string // the address dialled
	gen    uint64 // ep.gen when dialled
	authed bool   // the auth frame has been sent, or none is needed
	// deadline is the I/O deadline of the round in flight, set by send.
	deadline time.Time
	buf      []byte // scratch space for requests and replies
	ids      []uint64
	last     uint64 // the last ID read: the next must be above it
}

func newPool(size int) *pool {
	p := &pool{
		free: make(chan struct{}, size),
		done: make(chan struct{}),
		open: make(map[*conn]struct{}),
	}
	for range size {
		p.free <- struct{}{}
		p.slots = append(p.slots, new(slot))
	}
	return p
}

// get takes a free slot, waiting for one until ctx ends or the pool is
// closed.
func (p *pool) get(ctx context.Context) (*slot, error) {
	select {
	case <-p.free:
	default:
		select {
		case <-p.free:
		case <-p.done:
			return nil, ErrClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		p.free <- struct{}{}
		return nil, ErrClosed
	}
	s := p.slots[len(p.slots)-1]
	p.slots = p.slots[:len(p.slots)-1]
	return s, nil
}

// put returns a slot taken by get.
func (p *pool) put(s *slot) {
	p.mu.Lock()
	p.slots = append(p.slots, s)
	p.mu.Unlock()
	p.free <- struct{}{}
}

// add records a new connection so that close can close it; after close it
// closes the connection and returns ErrClosed.
func (p *pool) add(cn *conn) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		cn.nc.Close()
		return ErrClosed
	}
	p.open[cn] = struct{}{}
	return nil
}

// drop closes a connection and forgets it.
func (p *pool) drop(cn *conn) {
	p.mu.Lock()
	delete(p.open, cn)
	p.mu.Unlock()
	cn.nc.Close()
}

// close closes every connection, in use or not: calls using one fail at
// once. Slots taken later fail with ErrClosed.
func (p *pool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	close(p.done)
	for cn := range p.open {
		cn.nc.Close()
	}
	clear(p.open)
}
