package client_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"testing"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/server"
)

// memStore is a server.Store in memory.
type memStore struct {
	mu   sync.Mutex
	recs map[string]server.Record
}

func (m *memStore) Load(name string) (server.Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.recs[name]
	return rec, ok, nil
}

func (m *memStore) Save(name string, rec server.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs[name] = rec
	return nil
}

// startFloed runs floed's server on loopback with one sequence, for worker
// w, selected by token.
func startFloed(t *testing.T, w uint64, token string) string {
	t.Helper()
	s, err := server.New(server.Config{
		Sequences: []server.SequenceConfig{{Name: "default", Worker: w, Tokens: []string{token}}},
		Store:     &memStore{recs: map[string]server.Record{}},
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
