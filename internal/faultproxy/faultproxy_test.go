package faultproxy

import (
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// quiet is how long a test waits to conclude that nothing arrives.
const quiet = 150 * time.Millisecond

// echo is a loopback server that writes back what it reads and counts it.
type echo struct {
	ln       net.Listener
	received atomic.Int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    []net.Conn
}

func startEcho(t *testing.T) *echo {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &echo{ln: ln}
	e.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			e.mu.Lock()
			e.conns = append(e.conns, c)
			e.mu.Unlock()
			e.wg.Go(func() {
				buf := make([]byte, 1024)
				for {
					n, err := c.Read(buf)
					e.received.Add(int64(n))
					if n > 0 {
						c.Write(buf[:n])
					}
					if err != nil {
						return
					}
				}
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		e.mu.Lock()
		for _, c := range e.conns {
			c.Close()
		}
		e.mu.Unlock()
		e.wg.Wait()
	})
	return e
}

func listen(t *testing.T, target string) *Proxy {
	t.Helper()
	p, err := Listen(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func dial(t *testing.T, p *Proxy) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip writes msg and reads the reply until wait has passed; it
// returns what came back and how long it took.
func roundTrip(t *testing.T, c net.Conn, msg string, wait time.Duration) (string, time.Duration) {
	t.Helper()
	start := time.Now()
	if _, err := c.Write([]byte(msg)); err != nil {
		t.Fatalf("write: %v", err)
	}
	c.SetReadDeadline(start.Add(wait))
	defer c.SetReadDeadline(time.Time{})
	buf := make([]byte, len(msg))
	n, err := io.ReadFull(c, buf)
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read: %v", err)
	}
	return string(buf[:n]), time.Since(start)
}

func TestProxy_Faults(t *testing.T) {
	tests := []struct {
		name         string
		fault        func(p *Proxy)
		wait         time.Duration
		wantReply    string
		wantReceived int64 // bytes the server got
		minTime      time.Duration
		wantClosed   bool // healed, the connection that lost bytes is closed
	}{
		{name: "no fault", fault: func(*Proxy) {}, wait: 5 * time.Second, wantReply: "ping", wantReceived: 4},
		{name: "black hole", fault: func(p *Proxy) { p.Blackhole(true) }, wait: quiet, wantReply: "", wantReceived: 0, wantClosed: true},
		{name: "cut to target", fault: func(p *Proxy) { p.Cut(ToTarget, true) }, wait: quiet, wantReply: "", wantReceived: 0, wantClosed: true},
		{name: "cut to client", fault: func(p *Proxy) { p.Cut(ToClient, true) }, wait: quiet, wantReply: "", wantReceived: 4, wantClosed: true},
		{name: "delay each way", fault: func(p *Proxy) { p.Delay(50 * time.Millisecond) }, wait: 5 * time.Second, wantReply: "ping", wantReceived: 4, minTime: 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startEcho(t)
			p := listen(t, e.ln.Addr().String())
			c := dial(t, p)
			// The connection works before the fault, which then applies
			// to it, open as it is.
			if got, _ := roundTrip(t, c, "warm", 5*time.Second); got != "warm" {
				t.Fatalf("before the fault: got %q, want %q", got, "warm")
			}
			tt.fault(p)
			got, took := roundTrip(t, c, "ping", tt.wait)
			if got != tt.wantReply {
				t.Errorf("reply %q, want %q", got, tt.wantReply)
			}
			if took < tt.minTime {
				t.Errorf("reply after %v, want at least %v", took, tt.minTime)
			}
			if got, want := e.received.Load()-4, tt.wantReceived; got != want {
				t.Errorf("server received %d bytes, want %d", got, want)
			}
			// Healed, a connection that lost bytes is closed, as TCP's
			// would be once its retransmissions ran out; one that lost
			// none carries new bytes. A new connection always does.
			p.Heal()
			if tt.wantClosed {
				wantClosed(t, c)
				c = dial(t, p)
			}
			if got, _ := roundTrip(t, c, "heal", 5*time.Second); got != "heal" {
				t.Errorf("after healing: got %q, want %q", got, "heal")
			}
		})
	}
}

func TestProxy_FaultsApplyToNewConnections(t *testing.T) {
	e := startEcho(t)
	p := listen(t, e.ln.Addr().String())
	p.Blackhole(true)
	c := dial(t, p)
	if got, _ := roundTrip(t, c, "ping", quiet); got != "" {
		t.Fatalf("through a black hole: got %q, want nothing", got)
	}
	p.Blackhole(false)
	wantClosed(t, c)
	if got, _ := roundTrip(t, dial(t, p), "pong", 5*time.Second); got != "pong" {
		t.Fatalf("after the black hole: got %q, want %q", got, "pong")
	}
}

// A connection that lost nothing under a fault (no bytes went through it
// meanwhile) carries on once the fault is off: only lost bytes break one.
func TestProxy_IdleThroughFault(t *testing.T) {
	e := startEcho(t)
	p := listen(t, e.ln.Addr().String())
	c := dial(t, p)
	if got, _ := roundTrip(t, c, "warm", 5*time.Second); got != "warm" {
		t.Fatalf("before the fault: got %q, want %q", got, "warm")
	}
	p.Blackhole(true)
	p.Heal()
	if got, _ := roundTrip(t, c, "ping", 5*time.Second); got != "ping" {
		t.Fatalf("after a fault it did not meet: got %q, want %q", got, "ping")
	}
}

// wantClosed fails unless the proxy has closed c: a read ends with EOF
// (or a reset) rather than its deadline.
func wantClosed(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	defer c.SetReadDeadline(time.Time{})
	_, err := c.Read(make([]byte, 1))
	if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read after healing: %v, want the connection closed (it lost bytes)", err)
	}
}

func TestProxy_Reset(t *testing.T) {
	e := startEcho(t)
	p := listen(t, e.ln.Addr().String())
	c := dial(t, p)
	if got, _ := roundTrip(t, c, "ping", 5*time.Second); got != "ping" {
		t.Fatalf("got %q, want %q", got, "ping")
	}
	p.Reset()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read after Reset: %d bytes, %v; want the connection closed", n, err)
	}
	c2 := dial(t, p)
	if got, _ := roundTrip(t, c2, "pong", 5*time.Second); got != "pong" {
		t.Fatalf("new connection after Reset: got %q, want %q", got, "pong")
	}
}

func TestProxy_Close(t *testing.T) {
	e := startEcho(t)
	p, err := Listen(e.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, p)
	p.Delay(time.Hour) // a chunk held back must not keep Close waiting
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- p.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
	if _, err := net.Dial("tcp", p.Addr()); err == nil {
		t.Fatal("dial after Close succeeded")
	}
}

// A hold keeps what goes its way and, released, delivers all of it in
// order on the same connection, which carries on: nothing is lost, nothing
// is closed.
func TestProxy_Hold(t *testing.T) {
	tests := []struct {
		name         string
		hold         func(p *Proxy, on bool)
		wantReceived int64 // bytes the server got while held
	}{
		{name: "freeze", hold: func(p *Proxy, on bool) { p.Freeze(on) }, wantReceived: 0},
		{name: "hold to target", hold: func(p *Proxy, on bool) { p.Hold(ToTarget, on) }, wantReceived: 0},
		{name: "hold to client", hold: func(p *Proxy, on bool) { p.Hold(ToClient, on) }, wantReceived: 6},
		{name: "freeze healed", hold: func(p *Proxy, on bool) {
			if on {
				p.Freeze(true)
			} else {
				p.Heal()
			}
		}, wantReceived: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startEcho(t)
			p := listen(t, e.ln.Addr().String())
			c := dial(t, p)
			if got, _ := roundTrip(t, c, "warm", 5*time.Second); got != "warm" {
				t.Fatalf("before the hold: got %q, want %q", got, "warm")
			}
			tt.hold(p, true)
			// Three writes, each its own chunk.
			for _, msg := range []string{"ab", "cd", "ef"} {
				if _, err := c.Write([]byte(msg)); err != nil {
					t.Fatalf("write: %v", err)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if got := readFor(t, c, 6, quiet); got != "" {
				t.Errorf("while held: got %q, want nothing", got)
			}
			wantServer(t, e, 4+tt.wantReceived)
			tt.hold(p, false)
			if got := readFor(t, c, 6, 5*time.Second); got != "abcdef" {
				t.Errorf("released: got %q, want %q", got, "abcdef")
			}
			wantServer(t, e, 4+6)
			if got, _ := roundTrip(t, c, "more", 5*time.Second); got != "more" {
				t.Errorf("after the hold: got %q, want %q", got, "more")
			}
		})
	}
}

// A frozen proxy accepts new connections and holds what they carry until
// it thaws.
func TestProxy_FreezeNewConnections(t *testing.T) {
	e := startEcho(t)
	p := listen(t, e.ln.Addr().String())
	p.Freeze(true)
	c := dial(t, p)
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	if got := readFor(t, c, 4, quiet); got != "" {
		t.Fatalf("frozen: got %q, want nothing", got)
	}
	p.Freeze(false)
	if got := readFor(t, c, 4, 5*time.Second); got != "ping" {
		t.Fatalf("thawed: got %q, want %q", got, "ping")
	}
}

// readFor reads up to n bytes from c for at most wait.
func readFor(t *testing.T, c net.Conn, n int, wait time.Duration) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(wait))
	defer c.SetReadDeadline(time.Time{})
	buf := make([]byte, n)
	got, err := io.ReadFull(c, buf)
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read: %v", err)
	}
	return string(buf[:got])
}

// wantServer fails unless the server has received want bytes in all,
// waiting up to 5 s for bytes under way.
func wantServer(t *testing.T, e *echo, want int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for e.received.Load() < want && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := e.received.Load(); got != want {
		t.Errorf("server received %d bytes, want %d", got, want)
	}
}

// FreezeLabel holds the connections of one label, open or new, and no
// other; released, they get what it held.
func TestProxy_FreezeLabel(t *testing.T) {
	e := startEcho(t)
	// A connection's label is what its first bytes hold before a colon.
	p, err := ListenLabeled(e.ln.Addr().String(), func(first []byte) string {
		label, _, _ := strings.Cut(string(first), ":")
		return label
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	a, b := dial(t, p), dial(t, p)
	for _, tc := range []struct {
		c   net.Conn
		msg string
	}{{a, "a:hi"}, {b, "b:hi"}} {
		if got, _ := roundTrip(t, tc.c, tc.msg, 5*time.Second); got != tc.msg {
			t.Fatalf("before the freeze: got %q, want %q", got, tc.msg)
		}
	}
	p.FreezeLabel("a", true)
	newA := dial(t, p)
	tests := []struct {
		name      string
		c         net.Conn
		msg       string
		wantWhile string
	}{
		{"open, labeled a", a, "more", ""},
		{"new, labeled a", newA, "a:new", ""},
		{"open, labeled b", b, "more", "more"},
	}
	for _, tt := range tests {
		wait := 5 * time.Second // for a reply that comes
		if tt.wantWhile == "" {
			wait = quiet
		}
		if got, _ := roundTrip(t, tt.c, tt.msg, wait); got != tt.wantWhile {
			t.Errorf("%s, a frozen: got %q, want %q", tt.name, got, tt.wantWhile)
		}
	}
	p.FreezeLabel("a", false)
	for _, tt := range tests {
		if tt.wantWhile != "" {
			continue
		}
		if got := readFor(t, tt.c, len(tt.msg), 5*time.Second); got != tt.msg {
			t.Errorf("%s, a released: got %q, want %q", tt.name, got, tt.msg)
		}
	}
}
