// Package faultproxy is an in-process TCP proxy for tests that injects
// network faults between a client and a server: a black hole, one-way
// cuts, a freeze and one-way holds, delays and connection resets. Faults
// change at run time and apply to the connections already open as well as
// to new ones.
//
// A fault drops bytes silently, as a network that stops delivering them.
// TCP never skips bytes: once the network is back it either delivers what
// was sent or the connection dies. So when a fault is turned off, each
// connection that lost bytes under it is closed, as one whose
// retransmissions ran out; a connection that lost none carries on. A stream
// with a hole in it would otherwise carry on with its framing broken (an
// HTTP/2 connection answering every new stream with PROTOCOL_ERROR), which
// no real network makes.
//
// A hold, or a freeze (a hold both ways), drops nothing: it keeps every
// byte going its way, and delivers them all in order when it is turned
// off. It stands for a peer that stops reading and writing without
// closing anything (a process stopped with SIGSTOP, a host that hangs),
// or a black hole shorter than TCP's retransmissions: connections stay
// open, new ones are accepted, and nothing arrives until it ends.
package faultproxy

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Direction is one way of a proxied connection.
type Direction int

const (
	// ToTarget is the way from the client to the target.
	ToTarget Direction = iota
	// ToClient is the way from the target back to the client.
	ToClient
)

func (d Direction) String() string {
	if d == ToTarget {
		return "to target"
	}
	return "to client"
}

// chunkSize is the most one read forwards at a time: the size of the
// protocol frames the tests see, without growing buffers.
const chunkSize = 32 << 10

// queueLen bounds the chunks one direction holds back while delaying;
// past it, reading from the sender waits, as a full network would.
const queueLen = 1024

// Proxy listens on a loopback port and forwards each accepted connection
// to its target. It is safe for concurrent use.
type Proxy struct {
	target string       // immutable
	ln     net.Listener // immutable

	mu        sync.Mutex
	blackhole bool                     // guarded by mu
	cut       [2]bool                  // guarded by mu: by Direction
	held      [2]chan struct{}         // guarded by mu: by Direction, non-nil while held; closed when released
	label     func([]byte) string      // immutable: nil, or names a connection by its first bytes
	heldLabel map[string]chan struct{} // guarded by mu: as held, both ways, by label
	delay     time.Duration            // guarded by mu
	links     map[*link]struct{}       // guarded by mu
	closed    bool                     // guarded by mu

	wg sync.WaitGroup // the accept loop and every link's goroutines
}

// Listen starts a Proxy on a free loopback port forwarding to target.
func Listen(target string) (*Proxy, error) { return ListenLabeled(target, nil) }

// ListenLabeled is Listen with connections named by label, for
// FreezeLabel: label gets the bytes of each read from the client (the
// first holds the request line and headers, for an HTTP client) until it
// returns the connection's label; "" for none yet. A nil label labels
// nothing.
func ListenLabeled(target string, label func(first []byte) string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{target: target, ln: ln, links: make(map[*link]struct{}), label: label, heldLabel: make(map[string]chan struct{})}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the address clients connect to.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Blackhole drops every byte both ways while on, silently: connections
// stay open and new ones are accepted, but nothing arrives. Turned off, it
// closes the connections that lost bytes.
func (p *Proxy) Blackhole(on bool) {
	p.mu.Lock()
	p.blackhole = on
	p.mu.Unlock()
	if !on {
		p.closeBroken()
	}
}

// Cut drops the bytes going one way while on, silently. Turned off, it
// closes the connections that lost bytes.
func (p *Proxy) Cut(dir Direction, on bool) {
	p.mu.Lock()
	p.cut[dir] = on
	p.mu.Unlock()
	if !on {
		p.closeBroken()
	}
}

// Freeze holds every byte both ways while on: connections stay open and
// new ones are accepted, but nothing arrives. Turned off, it delivers what
// it held, in order, and connections carry on.
func (p *Proxy) Freeze(on bool) {
	p.Hold(ToTarget, on)
	p.Hold(ToClient, on)
}

// Hold holds the bytes going one way while on, as Freeze does both ways.
// Turned off, it delivers them, in order.
func (p *Proxy) Hold(dir Direction, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holdLocked(dir, on)
}

func (p *Proxy) holdLocked(dir Direction, on bool) {
	switch {
	case on && p.held[dir] == nil:
		p.held[dir] = make(chan struct{})
	case !on && p.held[dir] != nil:
		close(p.held[dir])
		p.held[dir] = nil
	}
}

// FreezeLabel holds every byte both ways, as Freeze does, of the
// connections labeled label (see ListenLabeled) only, those open now and
// those to come; the others carry on.
func (p *Proxy) FreezeLabel(label string, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch := p.heldLabel[label]
	switch {
	case on && ch == nil:
		p.heldLabel[label] = make(chan struct{})
	case !on && ch != nil:
		close(ch)
		delete(p.heldLabel, label)
	}
}

// Delay holds each chunk read for d before forwarding it, in order, each
// way. Zero forwards at once.
func (p *Proxy) Delay(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay = d
}

// Heal turns every fault off, delivers the bytes held, and closes the
// connections that lost bytes.
func (p *Proxy) Heal() {
	p.mu.Lock()
	p.blackhole, p.cut, p.delay = false, [2]bool{}, 0
	p.holdLocked(ToTarget, false)
	p.holdLocked(ToClient, false)
	for label, ch := range p.heldLabel {
		close(ch)
		delete(p.heldLabel, label)
	}
	p.mu.Unlock()
	p.closeBroken()
}

// closeBroken closes each connection that lost bytes while no fault drops
// bytes its way any more.
func (p *Proxy) closeBroken() {
	p.mu.Lock()
	var broken []*link
	for l := range p.links {
		if (l.lost[ToTarget].Load() && !p.dropsLocked(ToTarget)) || (l.lost[ToClient].Load() && !p.dropsLocked(ToClient)) {
			broken = append(broken, l)
		}
	}
	p.mu.Unlock()
	for _, l := range broken {
		l.close()
	}
}

// Reset closes every connection open now; new ones are accepted.
func (p *Proxy) Reset() {
	p.mu.Lock()
	links := make([]*link, 0, len(p.links))
	for l := range p.links {
		links = append(links, l)
	}
	p.mu.Unlock()
	for _, l := range links {
		l.close()
	}
}

// Close stops listening, closes every connection and waits for the
// Proxy's goroutines to end.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	err := p.ln.Close()
	p.Reset()
	p.wg.Wait()
	return err
}

// drops reports whether a chunk going dir is dropped now.
func (p *Proxy) drops(dir Direction) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dropsLocked(dir)
}

func (p *Proxy) dropsLocked(dir Direction) bool { return p.blackhole || p.cut[dir] }

// hold returns a channel closed when dir of l is no longer held, nil
// when it is not held now.
func (p *Proxy) hold(l *link, dir Direction) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held[dir] != nil {
		return p.held[dir]
	}
	if l.labeled {
		return p.heldLabel[l.label]
	}
	return nil
}

// setLabel labels l by bytes its client sent, unless it has a label.
func (p *Proxy) setLabel(l *link, first []byte) {
	if p.label == nil {
		return
	}
	p.mu.Lock()
	done := l.labeled
	p.mu.Unlock()
	if done {
		return
	}
	label := p.label(first)
	p.mu.Lock()
	l.label, l.labeled = label, label != ""
	p.mu.Unlock()
}

func (p *Proxy) currentDelay() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.delay
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		target, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		l := &link{client: client, target: target, done: make(chan struct{})}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			l.close()
			return
		}
		p.links[l] = struct{}{}
		p.wg.Add(3)
		p.mu.Unlock()
		go func() {
			defer p.wg.Done()
			<-l.done
			p.mu.Lock()
			delete(p.links, l)
			p.mu.Unlock()
		}()
		go p.pipe(l, ToTarget, client, target)
		go p.pipe(l, ToClient, target, client)
	}
}

// link is one proxied connection.
type link struct {
	client, target net.Conn
	done           chan struct{} // closed by close
	once           sync.Once
	lost           [2]atomic.Bool // by Direction: a fault dropped bytes going that way
	label          string         // guarded by the Proxy's mu
	labeled        bool           // guarded by the Proxy's mu: label is set, not empty
}

func (l *link) close() {
	l.once.Do(func() {
		l.client.Close()
		l.target.Close()
		close(l.done)
	})
}

type chunk struct {
	b   []byte
	due time.Time
}

// pipe forwards one direction of l: a reader that applies the faults
// when a chunk arrives, and a writer that waits out each chunk's delay
// and any hold, and applies them again when it is due. A held chunk waits
// in the queue; once the queue is full, reading from the sender waits
// too, as a full network would. An end of either side (a close,
// a half-close) closes the whole connection, dropping delayed chunks.
func (p *Proxy) pipe(l *link, dir Direction, src, dst net.Conn) {
	defer p.wg.Done()
	queue := make(chan chunk, queueLen)
	writer := make(chan struct{})
	go func() {
		defer close(writer)
		timer := time.NewTimer(0)
		timer.Stop()
		for {
			var c chunk
			select {
			case <-l.done:
				return
			case c = <-queue:
			}
			if wait := time.Until(c.due); wait > 0 {
				timer.Reset(wait)
				select {
				case <-l.done:
					return
				case <-timer.C:
				}
			}
			for held := p.hold(l, dir); held != nil; held = p.hold(l, dir) {
				select {
				case <-l.done:
					return
				case <-held:
				}
			}
			if p.drops(dir) {
				l.lost[dir].Store(true)
				continue
			}
			if _, err := dst.Write(c.b); err != nil {
				l.close()
				return
			}
		}
	}()
	defer func() { <-writer }()
	for {
		buf := make([]byte, chunkSize)
		n, err := src.Read(buf)
		if n > 0 && dir == ToTarget {
			p.setLabel(l, buf[:n])
		}
		if n > 0 && p.drops(dir) {
			l.lost[dir].Store(true)
		} else if n > 0 {
			select {
			case queue <- chunk{b: buf[:n], due: time.Now().Add(p.currentDelay())}:
			case <-l.done:
				return
			}
		}
		if err != nil {
			l.close()
			return
		}
	}
}
