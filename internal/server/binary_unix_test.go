//go:build unix

package server

import (
	"errors"
	"io"
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/floeid/floe/internal/wire"
)

// idleConnHeap bounds the heap an idle binary connection takes, both ends
// of it counted: the sockets, the connection and its goroutine, about 1 KiB
// in all. It is generous; the buffers a connection once kept were 8.7 KiB.
const idleConnHeap = 4 << 10

// TestServer_IdleConnMemory opens many connections, makes each ask for IDs
// once, and checks that the idle connections then hold no buffers: the
// heap in use grows by less than idleConnHeap a connection. The stack a
// connection's goroutine takes is logged, not checked: the runtime sizes
// new stacks by the average of those it saw.
func TestServer_IdleConnMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 connections; skipped with -short")
	}
	const conns = 1000
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < 2*conns+100 {
		t.Skipf("the limit on open files (%d, %v) is below the %d this test needs", lim.Cur, err, 2*conns+100)
	}
	tests := []struct {
		name  string
		cfg   Config
		token string
	}{
		{name: "without a token"},
		{
			name:  "with a token",
			cfg:   Config{Sequences: []SequenceConfig{{Name: "default", Tokens: []string{"the-token"}}}},
			token: "the-token",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, addr := newTestServer(t, tc.cfg)
			var req []byte
			if tc.token != "" {
				req, _ = wire.AppendAuth(nil, tc.token)
			}
			req = append(req, wire.MaxCount)
			reply := make([]byte, wire.MaxCount*wire.IDSize)

			before := memStats()
			for i := range conns {
				nc, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatalf("connection %d: %v", i+1, err)
				}
				defer nc.Close()
				nc.SetDeadline(time.Now().Add(30 * time.Second))
				if _, err := nc.Write(req); err != nil {
					t.Fatalf("connection %d: %v", i+1, err)
				}
				if _, err := io.ReadFull(nc, reply); err != nil {
					t.Fatalf("connection %d: %v", i+1, err)
				}
			}
			// A connection gives its buffers back just after its reply:
			// wait for the last ones.
			var heap, stack float64
			for deadline := time.Now().Add(10 * time.Second); ; {
				after := memStats()
				heap = float64(int64(after.HeapInuse)-int64(before.HeapInuse)) / conns
				stack = float64(int64(after.StackInuse)-int64(before.StackInuse)) / conns
				if heap < idleConnHeap || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Logf("%d idle connections: heap %.0f B, stacks %.0f B a connection", conns, heap, stack)
			if heap >= idleConnHeap {
				t.Errorf("heap in use %.0f B an idle connection, want under %d", heap, idleConnHeap)
			}
		})
	}
}

// memStats returns the runtime's memory statistics once the garbage,
// pooled buffers included, is collected.
func memStats() runtime.MemStats {
	runtime.GC()
	runtime.GC() // a pool keeps what it held until the second collection
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}

// TestServer_RefusalResets checks how a refused token ends the connection,
// as noeqd's does: noeqd reads the auth frame (its first two bytes when
// they are no frame) and no further, then closes, so bytes the client sent
// after them make the kernel answer with a reset; without such bytes the
// client reads the end of the stream.
func TestServer_RefusalResets(t *testing.T) {
	frame := func(token string, after ...byte) []byte {
		b, err := wire.AppendAuth(nil, token)
		if err != nil {
			t.Fatal(err)
		}
		return append(b, after...)
	}
	tests := []struct {
		name      string
		send      []byte
		wantReset bool
		wantIDs   int
	}{
		{name: "wrong token, then a request", send: frame("bad", 1), wantReset: true},
		{name: "wrong token, then requests", send: frame("bad", 1, 2, 3), wantReset: true},
		{name: "wrong token alone", send: frame("bad")},
		{name: "no token, three requests", send: []byte{1, 1, 1}, wantReset: true},
		{name: "no token, two requests", send: []byte{1, 1}},
		{name: "the right token, then a request", send: frame("tok", 2), wantIDs: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, addr := newTestServer(t, Config{Sequences: []SequenceConfig{{Name: "default", Tokens: []string{"tok"}}}})
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(30 * time.Second))
			if _, err := nc.Write(tt.send); err != nil {
				t.Fatal(err)
			}
			if tt.wantIDs > 0 {
				got := make([]byte, tt.wantIDs*wire.IDSize)
				if _, err := io.ReadFull(nc, got); err != nil {
					t.Fatalf("reading %d IDs: %v", tt.wantIDs, err)
				}
				return
			}
			n, err := io.Copy(io.Discard, nc)
			switch {
			case n > 0:
				t.Errorf("read %d bytes from a refused connection", n)
			case tt.wantReset && !errors.Is(err, syscall.ECONNRESET):
				t.Errorf("the connection ended with %v, want a reset (ECONNRESET), as noeqd's", err)
			case !tt.wantReset && err != nil:
				t.Errorf("the connection ended with %v, want the end of the stream, as noeqd's", err)
			}
		})
	}
}
