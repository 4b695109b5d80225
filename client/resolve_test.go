package client_test

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/floetest"
)

// TestClient_Localhost dials a DNS name.
func TestClient_Localhost(t *testing.T) {
	s := newFake(t, fakeConfig{})
	_, port, _ := net.SplitHostPort(s.Addr)
	// localhost may also resolve to ::1, where the fake server does not
	// listen: the client moves on to 127.0.0.1.
	c := newClient(t, []string{net.JoinHostPort("localhost", port)}, fast)
	for want := s.Nth(1); want <= s.Nth(3); want++ {
		if got, err := c.Next(context.Background()); got != want || err != nil {
			t.Fatalf("got %d, %v; want %d", got, err, want)
		}
	}
}

// TestClient_Resolve: names are looked up again after the resolve
// interval, and each connection takes the next address.
func TestClient_Resolve(t *testing.T) {
	s := newFake(t, fakeConfig{})
	_, port, _ := net.SplitHostPort(s.Addr)
	clock := floetest.NewClock(time.Now()) // the time of the fake's IDs
	var mu sync.Mutex
	var lookups []string
	var dialled []string
	answer := []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.0.2")}
	lookup := func(ctx context.Context, host string) ([]netip.Addr, error) {
		mu.Lock()
		defer mu.Unlock()
		lookups = append(lookups, host)
		return slices.Clone(answer), nil
	}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		dialled = append(dialled, addr)
		mu.Unlock()
		return new(net.Dialer).DialContext(ctx, network, s.Addr) // every address leads to the fake server
	}
	c := newClient(t, []string{"ids.test:" + port}, client.WithLookup(lookup), client.WithDialer(dial),
		client.WithNow(clock.Now), client.WithResolveInterval(time.Minute), client.WithPoolSize(1), fast)
	ctx := context.Background()
	next := func() {
		t.Helper()
		if _, err := c.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	next()
	s.DropConns() // a new dial, within the interval: no lookup
	next()
	clock.Step(time.Minute)
	mu.Lock()
	answer = []netip.Addr{netip.MustParseAddr("::ffff:127.0.0.3")}
	mu.Unlock()
	s.DropConns() // a new dial, after the interval: a lookup
	next()

	mu.Lock()
	defer mu.Unlock()
	if want := []string{"ids.test", "ids.test"}; !slices.Equal(lookups, want) {
		t.Errorf("lookups: got %v, want %v", lookups, want)
	}
	// Each failed connection is followed by a dial to the name's other
	// address, then the new answer is used.
	if len(dialled) < 3 || dialled[0] == dialled[1] || dialled[len(dialled)-1] != "127.0.0.3:"+port {
		t.Errorf("dialled %v; want the two first addresses in turn, then 127.0.0.3:%s", dialled, port)
	}
	for _, a := range dialled[:len(dialled)-1] {
		if a != "127.0.0.1:"+port && a != "127.0.0.2:"+port {
			t.Errorf("dialled %s before the new lookup", a)
		}
	}
}
