package client_test

import (
	"context"
	"net"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
)

// TestClient_Prefetch takes IDs from the buffer until the clock says they
// are stale.
func TestClient_Prefetch(t *testing.T) {
	const validity = time.Second
	tests := []struct {
		name     string
		step     time.Duration // after the first call
		want     int           // from the second call: the fake's want-th ID
		requests []int
	}{
		{"fresh", 0, 2, []int{11}},
		{"just valid", validity - 1, 2, []int{11}},
		{"stale at the bound", validity, 12, []int{11, 11}},
		{"long stale", time.Minute, 12, []int{11, 11}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := floetest.NewClock(time.Now()) // the time of the fake's IDs
			s := newFake(t, fakeConfig{})
			c := newClient(t, []string{s.Addr}, client.WithPrefetch(10, validity), client.WithNow(clock.Now))
			ctx := context.Background()
			if id, err := c.Next(ctx); id != s.Nth(1) || err != nil {
				t.Fatalf("first call: got %d, %v; want %d", id, err, s.Nth(1))
			}
			if got := c.Buffered(); got != 10 {
				t.Fatalf("buffered %d IDs, want 10", got)
			}
			clock.Step(tc.step)
			if id, err := c.Next(ctx); id != s.Nth(tc.want) || err != nil {
				t.Errorf("second call: got %d, %v; want %d", id, err, s.Nth(tc.want))
			}
			if got := s.Counts(); !slices.Equal(got, tc.requests) {
				t.Errorf("requests: got %v, want %v", got, tc.requests)
			}
		})
	}
}

// TestClient_PrefetchRefill: the buffer is refilled in the background once
// it falls below half.
func TestClient_PrefetchRefill(t *testing.T) {
	s := newFake(t, fakeConfig{})
	c := newClient(t, []string{s.Addr}, client.WithPrefetch(10, time.Hour))
	ctx := context.Background()
	got := make([]id64.ID, 7) // the 7th leaves 4 of 10 buffered
	for i := range got {
		id, err := c.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got[i] = id
	}
	if want := seq(s.Nth(1), s.Nth(7)); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	waitFor(t, "the refill", func() bool { return s.Requests() == 2 && c.Flights() == 0 })
	if got, want := s.Counts(), []int{11, 6}; !slices.Equal(got, want) {
		t.Errorf("requests: got %v, want %v", got, want)
	}
	if got := c.Buffered(); got != 10 {
		t.Errorf("buffered %d, want 10", got)
	}
	// A run larger than the buffer holds goes to the server.
	run := make([]id64.ID, 20)
	if _, err := c.NextN(ctx, run); err != nil || run[0] != s.Nth(18) {
		t.Errorf("run: got %v..., %v; want from %d", run[:3], err, s.Nth(18))
	}
}

// TestClient_PrefetchDown: while servers are down, a failed call does not
// leave a refill retrying in the background.
func TestClient_PrefetchDown(t *testing.T) {
	var dials atomic.Int64
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return new(net.Dialer).DialContext(ctx, network, addr)
	}
	c := newClient(t, []string{floetest.FreeAddrs(t, 1)[0]}, client.WithPrefetch(100, time.Minute),
		client.WithDialer(dial), client.WithMaxAttempts(3), fast)
	if _, err := c.Next(context.Background()); err == nil {
		t.Fatal("Next succeeded with the server down")
	}
	waitFor(t, "the flight to land", func() bool { return c.Flights() == 0 })
	if got := dials.Load(); got != 3 {
		t.Errorf("%d dials, want 3", got)
	}
}
