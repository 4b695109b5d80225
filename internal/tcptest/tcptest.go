// Package tcptest runs TCP servers on loopback addresses for tests of
// clients that meet a server that misbehaves: one that takes the
// connection and never answers, one that answers in another protocol,
// or no server at all. It also finds the free port a test's own server
// process listens on.
package tcptest

import (
	"crypto/tls"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
)

// Serve listens on a free loopback port, with TLS when cfg is not nil,
// and handles each connection with handle, in a goroutine of its own,
// until the test ends: then it closes the listener and every connection
// and waits for the handlers to return. It returns the address.
func Serve(tb testing.TB, cfg *tls.Config, handle func(net.Conn)) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	if cfg != nil {
		l = tls.NewListener(l, cfg)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() { handle(c) })
		}
	})
	tb.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return l.Addr().String()
}

// Discard is a handler of Serve that reads and never answers, until the
// connection closes.
func Discard(c net.Conn) { io.Copy(io.Discard, c) }

// Answer returns a handler of Serve that reads the client's first bytes,
// writes reply, then reads and never answers again, as a server of
// another protocol that has said what it had to say.
func Answer(reply string) func(net.Conn) {
	return func(c net.Conn) {
		var b [64]byte
		if _, err := c.Read(b[:]); err == nil {
			c.Write([]byte(reply))
		}
		io.Copy(io.Discard, c)
	}
}

// Silent is a server that takes every connection and never answers, until
// the test ends: Serve with Discard and no TLS. It returns the address.
func Silent(tb testing.TB) string {
	tb.Helper()
	return Serve(tb, nil, Discard)
}

// Refused returns a loopback address where nothing listens, as a server
// that is down: a port free a moment ago. It is for Examples, which have
// no testing.TB; tests take floetest.FreeAddrs.
func Refused() (string, error) {
	port, err := FreePort()
	if err != nil {
		return "", err
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), nil
}

// FreePort returns a loopback port free a moment ago, for a server that a
// test starts to listen on. Another process may take it first: the test
// tries again on another port if the server cannot listen.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
