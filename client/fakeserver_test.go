package client_test

import (
	"bufio"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/wire"
)

// fakeConfig configures a fakeServer.
type fakeConfig struct {
	token string         // required in the auth frame when not empty
	ids   *atomic.Uint64 // the last ID handed out, shared between servers; nil: the server's own, from nowIDs
	// hold, when not nil, holds every request until it is closed (or the
	// server is).
	hold chan struct{}
	// onRequest, when not nil, is called with each request's count before
	// the server answers it.
	onRequest func(s *fakeServer, n int)
	// onReply, when not nil, is called with each request's count once
	// the server has drawn its IDs, before it writes the reply: holding
	// it makes a reply land after replies whose IDs are greater.
	onReply func(s *fakeServer, n int)
}

// nowIDs returns a counter for fake servers whose next ID is the first of
// the current millisecond in the client's default layout, id64.Twitter, so
// that the client takes the IDs for those of a live server.
func nowIDs() *atomic.Uint64 {
	ids := new(atomic.Uint64)
	ids.Store(uint64(id64.Twitter.First(time.Now())) - 1)
	return ids
}

// Nth returns the k-th ID (from 1) the server hands out, when it has its
// own counter.
func (s *fakeServer) Nth(k int) id64.ID { return s.first + id64.ID(k-1) }

// fakeServer is an in-process noeq server on the loopback interface. It
// hands out IDs from a counter, so that they increase across all its
// connections (and across servers sharing the counter).
type fakeServer struct {
	Addr    string
	cfg     fakeConfig
	ln      net.Listener
	arrived chan int      // each request's count, while there is room
	quit    chan struct{} // closed by Close
	failing atomic.Bool   // close connections at their next request, as on an error
	first   id64.ID       // immutable: the first ID of cfg.ids

	mu     sync.Mutex
	conns  map[net.Conn]struct{} // guarded by mu
	counts []int                 // guarded by mu: each request's count
	closed bool                  // guarded by mu
	wg     sync.WaitGroup
}

// startFake starts a fake server on 127.0.0.1 at a free port.
func startFake(cfg fakeConfig) (*fakeServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if cfg.ids == nil {
		cfg.ids = nowIDs()
	}
	s := &fakeServer{
		Addr:    ln.Addr().String(),
		cfg:     cfg,
		ln:      ln,
		arrived: make(chan int, 1024),
		quit:    make(chan struct{}),
		conns:   make(map[net.Conn]struct{}),
		first:   id64.ID(cfg.ids.Load() + 1),
	}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// newFake starts a fake server that stops at the end of the test.
func newFake(t testing.TB, cfg fakeConfig) *fakeServer {
	t.Helper()
	s, err := startFake(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func (s *fakeServer) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nc.Close()
			return
		}
		s.conns[nc] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(nc)
	}
}

func (s *fakeServer) serve(nc net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, nc)
		s.mu.Unlock()
		nc.Close()
	}()
	r := bufio.NewReader(nc)
	token, present, err := wire.ReadAuth(r, nil)
	if err != nil || (s.cfg.token != "" && (!present || string(token) != s.cfg.token)) {
		return
	}
	var reply []byte
	for {
		n, err := wire.ReadRequest(r)
		if err != nil {
			return
		}
		s.mu.Lock()
		s.counts = append(s.counts, n)
		s.mu.Unlock()
		select {
		case s.arrived <- n:
		default:
		}
		if s.cfg.onRequest != nil {
			s.cfg.onRequest(s, n)
		}
		if s.failing.Load() {
			return
		}
		if s.cfg.hold != nil {
			select {
			case <-s.cfg.hold:
			case <-s.quit:
				return
			}
		}
		reply = reply[:0]
		for range n {
			reply = wire.AppendID(reply, s.cfg.ids.Add(1))
		}
		if s.cfg.onReply != nil {
			s.cfg.onReply(s, n)
		}
		if _, err := nc.Write(reply); err != nil {
			return
		}
	}
}

// Close stops the server: it closes the listener and every connection and
// waits for its goroutines. Dials to its address are refused afterwards.
func (s *fakeServer) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.quit)
	s.ln.Close()
	for nc := range s.conns {
		nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// DropConns closes the server's open connections, as a server does after
// an idle timeout, and keeps listening.
func (s *fakeServer) DropConns() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for nc := range s.conns {
		nc.Close()
	}
}

// Counts returns the count of each request so far, in the order they came.
func (s *fakeServer) Counts() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.counts)
}

// Requests returns the number of requests so far.
func (s *fakeServer) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.counts)
}

// waitFor polls cond until it holds. The deadline only keeps a broken test
// from hanging; nothing depends on how soon cond holds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
