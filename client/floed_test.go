package client_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/server"
	"github.com/floeid/floe/internal/server/servertest"
)

// startFloed runs floed's server on loopback with one sequence, for worker
// w, selected by token (none when empty).
func startFloed(t testing.TB, w uint64, token string) string {
	t.Helper()
	var tokens []string
	if token != "" {
		tokens = []string{token}
	}
	return startFloedSeq(t, server.SequenceConfig{Name: "default", Worker: w, Tokens: tokens})
}

// startFloedSeq runs floed's server on loopback with the one sequence sc.
func startFloedSeq(t testing.TB, sc server.SequenceConfig) string {
	t.Helper()
	s, err := server.New(server.Config{
		Sequences: []server.SequenceConfig{sc},
		Store:     &servertest.Store{},
		Logger:    slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		<-done
	})
	return ln.Addr().String()
}

// TestClient_Floed runs the client against floed's own server: two
// workers, a token, batching and pipelined runs.
func TestClient_Floed(t *testing.T) {
	addrs := []string{startFloed(t, 1, "s3cret"), startFloed(t, 2, "s3cret")}
	c := newClient(t, addrs, client.WithToken("s3cret"))
	ctx := context.Background()
	ids := floetest.Hammer(t, 16, 200, func() (id64.ID, error) { return c.Next(ctx) }, nil)
	run := make([]id64.ID, 3000)
	if n, err := c.NextN(ctx, run); n != len(run) || err != nil {
		t.Fatalf("NextN: %d, %v", n, err)
	}
	if err := floetest.Increasing(run, id64.ID.Compare); err != nil {
		t.Errorf("a run from one server: %v", err)
	}
	if err := floetest.Unique(append(ids, run...)); err != nil {
		t.Error(err)
	}
	workers := map[uint64]int{}
	for _, id := range ids {
		workers[id64.Twitter.Parts(id).Worker]++
	}
	if workers[1]+workers[2] != len(ids) {
		t.Errorf("IDs by worker: %v; want workers 1 and 2 only", workers)
	}

	bad := newClient(t, addrs, client.WithToken("guess"), client.WithMaxAttempts(2), fast)
	if _, err := bad.Next(ctx); !errors.Is(err, client.ErrShortReply) {
		t.Errorf("wrong token: got %v, want ErrShortReply", err)
	}
}

// TestClient_FloedConcurrent hammers floed from many goroutines: each
// goroutine's IDs increase, no ID repeats, the client asks for no more IDs
// than its calls take (no prefetch) and it opens no more connections than
// its pool holds.
func TestClient_FloedConcurrent(t *testing.T) {
	tests := []struct {
		name       string
		goroutines int
		opts       []client.Option
		pool       int64
	}{
		{"8 goroutines", 8, nil, 4},
		{"32 goroutines", 32, nil, 4},
		{"pool of one", 8, []client.Option{client.WithPoolSize(1)}, 1},
		{"pool of eight", 32, []client.Option{client.WithPoolSize(8)}, 8},
	}
	addr := startFloed(t, 1, "")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var dials, read atomic.Int64
			dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
				dials.Add(1)
				nc, err := new(net.Dialer).DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return readCounter{nc, &read}, nil
			}
			c := newClient(t, []string{addr}, append(tc.opts, client.WithDialer(dial))...)
			const each = 500
			ids := floetest.Hammer(t, tc.goroutines, each, func() (id64.ID, error) { return c.Next(context.Background()) }, id64.ID.Compare)
			if got, want := read.Load()/8, int64(len(ids)); got != want {
				t.Errorf("the client read %d IDs for %d calls", got, want)
			}
			if got := dials.Load(); got > tc.pool {
				t.Errorf("%d connections, want at most %d", got, tc.pool)
			}
		})
	}
}

// readCounter counts the bytes read from a connection.
type readCounter struct {
	net.Conn
	n *atomic.Int64
}

func (c readCounter) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}
