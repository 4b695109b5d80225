package client_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/wire"
)

// TestClient_InvalidReply: a reply that cannot be an ID of the client's
// layout from a live server fails its attempt, is counted, drops its
// connection, and the call fails over to the next server; with no other
// server the call fails, naming the server and what was wrong.
func TestClient_InvalidReply(t *testing.T) {
	snowcast, err := id64.Snowcast(1024)
	if err != nil {
		t.Fatal(err)
	}
	// from starts a fake server whose first ID is first.
	from := func(first func(now time.Time) id64.ID) func(t *testing.T) string {
		return func(t *testing.T) string {
			ids := new(atomic.Uint64)
			ids.Store(uint64(first(time.Now())) - 1)
			return newFake(t, fakeConfig{ids: ids}).Addr
		}
	}
	// backAt starts a fake server that, at its request number at, first
	// moves its counter back by back IDs.
	backAt := func(at int, back uint64) func(t *testing.T) string {
		return func(t *testing.T) string {
			return newFake(t, fakeConfig{onRequest: func(s *fakeServer, _ int) {
				if s.Requests() == at {
					s.cfg.ids.Add(-back)
				}
			}}).Addr
		}
	}
	http := func(t *testing.T) string { return startRaw(t, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n") }
	prefetch := client.WithPrefetch(10, time.Minute)
	tests := []struct {
		name  string
		bad   func(t *testing.T) string // starts the bad server
		opts  []client.Option
		good  int    // calls the bad server answers well before the bad reply
		want  string // in the error
		wantN int    // IDs per call
	}{
		{"http status line", http, nil, 0, "ID 5211883372140375601 reads as 2050-", 1},
		{"http status line, several IDs", http, nil, 0, "ID 5211883372140375601 reads as 2050-", 3},
		{"an hour ahead", from(func(now time.Time) id64.ID { return id64.Twitter.First(now.Add(time.Hour)) }), nil, 0, "more than 10m0s from the local clock", 1},
		{"a day behind", from(func(now time.Time) id64.ID { return id64.Twitter.First(now.Add(-24 * time.Hour)) }), nil, 0, "more than 10m0s from the local clock", 1},
		{"an hour ahead, prefetch", from(func(now time.Time) id64.ID { return id64.Twitter.First(now.Add(time.Hour)) }), []client.Option{prefetch}, 0, "more than 10m0s from the local clock", 1},
		{"beyond a tighter bound", from(func(now time.Time) id64.ID { return id64.Twitter.First(now.Add(time.Minute)) }), []client.Option{client.WithMaxSkew(30 * time.Second)}, 0, "more than 30s from the local clock", 1},
		{"top bit of a signed layout", from(func(time.Time) id64.ID { return 1<<63 | id64.Twitter.First(time.Now()) }), nil, 0, "has the top bit set", 1},
		{"another layout", from(func(now time.Time) id64.ID { return snowcast.First(now) }), nil, 0, "reads as 20", 1},
		{"decreasing", backAt(2, 1000), nil, 1, "does not increase on the connection", 1},
		{"repeated", backAt(2, 1), nil, 1, "does not increase on the connection", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			next := func(c *client.Client) ([]id64.ID, error) {
				ids := make([]id64.ID, tc.wantN)
				_, err := c.NextN(context.Background(), ids)
				return ids, err
			}
			// Failover: the bad server first, a good one second.
			bad, good := tc.bad(t), newFake(t, fakeConfig{})
			c := newClient(t, []string{bad, good.Addr}, append([]client.Option{client.WithNoRandomize(), client.WithPoolSize(1), fast}, tc.opts...)...)
			for range tc.good {
				if _, err := next(c); err != nil {
					t.Fatal(err)
				}
			}
			ids, err := next(c)
			if err != nil || ids[0] != good.Nth(1) {
				t.Fatalf("got %v, %v; want the good server's first ID %d", ids, err, good.Nth(1))
			}
			if got := c.Stats().InvalidReplies; got != 1 {
				t.Errorf("Stats().InvalidReplies = %d, want 1", got)
			}

			// Alone, the bad server fails the call.
			bad = tc.bad(t)
			c = newClient(t, []string{bad}, append([]client.Option{client.WithMaxAttempts(1), fast}, tc.opts...)...)
			for range tc.good {
				if _, err := next(c); err != nil {
					t.Fatal(err)
				}
			}
			_, err = next(c)
			var ae *client.AttemptsError
			if !errors.As(err, &ae) || len(ae.Attempts) != 1 || ae.Attempts[0].Addr != bad ||
				!errors.Is(err, client.ErrInvalidReply) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v; want an attempt on %s failing with ErrInvalidReply, with %q", err, bad, tc.want)
			}
			if got := c.Stats().InvalidReplies; got != 1 {
				t.Errorf("Stats().InvalidReplies = %d, want 1", got)
			}
		})
	}
}

// TestClient_InvalidReplyWithin: IDs from within a reply that do not
// increase are rejected too.
func TestClient_InvalidReplyWithin(t *testing.T) {
	first := uint64(id64.Twitter.First(time.Now()))
	addr := startRaw(t, string(wire.AppendID(wire.AppendID(wire.AppendID(nil, first), first+2), first+1)))
	c := newClient(t, []string{addr}, client.WithMaxAttempts(1))
	_, err := c.NextN(context.Background(), make([]id64.ID, 3))
	if !errors.Is(err, client.ErrInvalidReply) || !strings.Contains(err.Error(), "does not increase") {
		t.Errorf("got %v; want ErrInvalidReply for an ID that does not increase", err)
	}
}

// TestClient_Layout: a client given the servers' layout and a looser bound
// takes IDs it would otherwise reject.
func TestClient_Layout(t *testing.T) {
	snowcast, err := id64.Snowcast(1024)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		first func(now time.Time) id64.ID
		opts  []client.Option
	}{
		{"twitter now", id64.Twitter.First, nil},
		{"snowcast now", snowcast.First, []client.Option{client.WithLayout(snowcast)}},
		{"an hour ahead, 2h bound", func(now time.Time) id64.ID { return id64.Twitter.First(now.Add(time.Hour)) }, []client.Option{client.WithMaxSkew(2 * time.Hour)}},
		{"a week behind, 8 day bound", func(now time.Time) id64.ID { return id64.Twitter.First(now.Add(-7 * 24 * time.Hour)) }, []client.Option{client.WithMaxSkew(8 * 24 * time.Hour)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ids := new(atomic.Uint64)
			ids.Store(uint64(tc.first(time.Now())) - 1)
			s := newFake(t, fakeConfig{ids: ids})
			c := newClient(t, []string{s.Addr}, append([]client.Option{client.WithMaxAttempts(1)}, tc.opts...)...)
			got := make([]id64.ID, 300)
			if _, err := c.NextN(context.Background(), got); err != nil || got[0] != s.Nth(1) || got[299] != s.Nth(300) {
				t.Fatalf("got %d..%d, %v; want %d..%d", got[0], got[299], err, s.Nth(1), s.Nth(300))
			}
			if n := c.Stats().InvalidReplies; n != 0 {
				t.Errorf("Stats().InvalidReplies = %d, want 0", n)
			}
		})
	}
}

// startRaw starts a server on 127.0.0.1 that reads each connection's
// first byte (a request, as the client sends no token) and answers reply,
// then closes the connection; it stops at the end of the test.
func startRaw(t testing.TB, reply string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		ln.Close()
		<-done
	})
	go func() {
		defer close(done)
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			r := bufio.NewReader(nc)
			if _, err := r.ReadByte(); err == nil {
				nc.Write([]byte(reply))
			}
			nc.Close()
		}
	}()
	return ln.Addr().String()
}
