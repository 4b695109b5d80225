package main

import (
	"bufio"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/floeid/floe/internal/wire"
)

// fakeNoeq is a noeq server on 127.0.0.1 for the tests of floe get: it
// hands out the IDs 1, 2, 3, ... and, when it has a token, closes
// connections that do not send it.
type fakeNoeq struct {
	addr     string
	token    string
	last     atomic.Uint64 // the last ID handed out
	requests atomic.Int64
}

// startFakeNoeq starts a fakeNoeq that stops at the end of the test.
func startFakeNoeq(t testing.TB, token string) *fakeNoeq {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeNoeq{addr: ln.Addr().String(), token: token}
	var mu sync.Mutex
	conns := map[net.Conn]struct{}{}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns[nc] = struct{}{}
			mu.Unlock()
			wg.Go(func() {
				defer nc.Close()
				f.serve(nc)
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for nc := range conns {
			nc.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return f
}

func (f *fakeNoeq) serve(nc net.Conn) {
	r := bufio.NewReader(nc)
	token, present, err := wire.ReadAuth(r, nil)
	if err != nil || (f.token != "" && (!present || string(token) != f.token)) {
		return
	}
	var reply []byte
	for {
		n, err := wire.ReadRequest(r)
		if err != nil {
			return
		}
		f.requests.Add(1)
		reply = reply[:0]
		for range n {
			reply = wire.AppendID(reply, f.last.Add(1))
		}
		if _, err := nc.Write(reply); err != nil {
			return
		}
	}
}

// fakeNoeqRefused returns a loopback address where nothing listens.
func fakeNoeqRefused(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
