package main

import (
	"bufio"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/wire"
)

// benchFault is how a fakeNoeq misbehaves.
type benchFault int

const (
	benchFaultNone       benchFault = iota
	benchFaultOwnCounter            // each connection counts from 1, so IDs repeat across connections
	benchFaultRepeat                // request at starts with the ID before it
	benchFaultDecrease              // request at starts with a small ID, unique but less than the one before
	benchFaultClose                 // the connection closes instead of answering request at
	benchFaultSilent                // request at and those after get no reply
)

// benchFakeBase is added to the IDs of the bench tests' fakes, so that
// those below it are free for benchFaultDecrease.
const benchFakeBase = 1 << 40

// fakeNoeq is a noeq server on 127.0.0.1 for the tests of floe get and floe
// bench. It hands out base+1, base+2, ... from one counter, so its IDs are
// unique, and increasing on each connection, unless its fault says
// otherwise. Faults happen on every connection, at its request number at
// (from 1). With a token it closes connections that do not send it.
type fakeNoeq struct {
	addr  string     // immutable
	token string     // immutable; required when not empty
	fault benchFault // immutable
	at    int        // immutable
	base  uint64     // immutable

	l     net.Listener
	next  atomic.Uint64 // IDs handed out
	small atomic.Uint64 // small IDs handed out by benchFaultDecrease
	wg    sync.WaitGroup

	mu     sync.Mutex
	tokens []string              // guarded by mu: tokens of the auth frames received
	conns  map[net.Conn]struct{} // guarded by mu
}

// startFakeNoeq starts a well-behaved fakeNoeq that stops with the test.
// Its first ID, base+1, is the first of the current millisecond in the
// layout twitter, so that floe get takes its IDs for a live daemon's.
func startFakeNoeq(t testing.TB, token string) *fakeNoeq {
	t.Helper()
	return startFake(t, token, benchFaultNone, 0, uint64(id64.Twitter.First(time.Now()))-1)
}

// startBenchFake starts a fakeNoeq for the bench tests, with IDs above
// benchFakeBase, that stops with the test.
func startBenchFake(t testing.TB, token string, fault benchFault, at int) *fakeNoeq {
	t.Helper()
	return startFake(t, token, fault, at, benchFakeBase)
}

func startFake(t testing.TB, token string, fault benchFault, at int, base uint64) *fakeNoeq {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeNoeq{addr: l.Addr().String(), token: token, fault: fault, at: at, base: base, l: l, conns: map[net.Conn]struct{}{}}
	f.wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.conns[c] = struct{}{}
			f.mu.Unlock()
			f.wg.Go(func() { f.serve(c) })
		}
	})
	t.Cleanup(func() {
		l.Close()
		f.mu.Lock()
		for c := range f.conns {
			c.Close()
		}
		f.mu.Unlock()
		f.wg.Wait()
	})
	return f
}

// receivedTokens returns the tokens of the auth frames received so far.
func (f *fakeNoeq) receivedTokens() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.tokens...)
}

func (f *fakeNoeq) serve(c net.Conn) {
	defer func() {
		f.mu.Lock()
		delete(f.conns, c)
		f.mu.Unlock()
		c.Close()
	}()
	r := bufio.NewReader(c)
	token, present, err := wire.ReadAuth(r, nil)
	if err != nil {
		return
	}
	if present {
		f.mu.Lock()
		f.tokens = append(f.tokens, string(token))
		f.mu.Unlock()
	}
	if f.token != "" && string(token) != f.token {
		return
	}
	var own, last uint64
	reply := make([]byte, 0, wire.MaxCount*wire.IDSize)
	for req := 1; ; req++ {
		n, err := wire.ReadRequest(r)
		if err != nil {
			return
		}
		fault := benchFaultNone
		if req == f.at || f.fault == benchFaultOwnCounter {
			fault = f.fault
		}
		var base uint64
		switch fault {
		case benchFaultOwnCounter:
			base = own
			own += uint64(n)
		case benchFaultClose:
			return
		case benchFaultSilent:
			_, _ = io.Copy(io.Discard, r)
			return
		default:
			base = f.next.Add(uint64(n)) - uint64(n)
		}
		reply = reply[:0]
		for i := range uint64(n) {
			reply = wire.AppendID(reply, f.base+base+i+1)
		}
		switch fault {
		case benchFaultRepeat:
			reply = wire.AppendID(reply[:0], last)[:len(reply)]
		case benchFaultDecrease:
			reply = wire.AppendID(reply[:0], f.small.Add(1))[:len(reply)]
		}
		last = f.base + base + uint64(n)
		if _, err := c.Write(reply); err != nil {
			return
		}
	}
}
