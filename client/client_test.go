package client_test

import (
	"context"
	"errors"
	"net"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
)

// fast retries at once: the tests count attempts, not wait times.
var fast = client.WithDelayFunc(func(int) time.Duration { return 0 })

func newClient(t testing.TB, addrs []string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(addrs, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// seq returns the IDs from..to.
func seq(from, to id64.ID) []id64.ID {
	var ids []id64.ID
	for id := from; id <= to; id++ {
		ids = append(ids, id)
	}
	return ids
}

func TestNew(t *testing.T) {
	ok := []string{"127.0.0.1:4444"}
	tests := []struct {
		name  string
		addrs []string
		opts  []client.Option
		err   error
	}{
		{"ip address", ok, nil, nil},
		{"names and ipv6", []string{"localhost:4444", "[::1]:4444", "ids.example:1"}, nil, nil},
		{"every option", ok, []client.Option{
			client.WithToken("t"), client.WithDialTimeout(0), client.WithTimeout(time.Second),
			client.WithPoolSize(1), client.WithMaxAttempts(0), client.WithBackoff(0, 0),
			client.WithJitter(1), fast, client.WithNoRandomize(), client.WithResolveInterval(-1),
			client.WithPrefetch(10, time.Millisecond), client.WithLogger(nil),
			client.WithDialer(new(net.Dialer).DialContext), client.WithLayout(id64.Instagram),
			client.WithMaxSkew(time.Hour),
		}, nil},
		{"no addresses", nil, nil, client.ErrNoAddresses},
		{"no port", []string{"127.0.0.1"}, nil, client.ErrAddress},
		{"named port", []string{"127.0.0.1:http"}, nil, client.ErrAddress},
		{"port 0", []string{"127.0.0.1:0"}, nil, client.ErrAddress},
		{"port too big", []string{"127.0.0.1:65536"}, nil, client.ErrAddress},
		{"no host", []string{":4444"}, nil, client.ErrAddress},
		{"one bad of two", []string{"127.0.0.1:1", "x"}, nil, client.ErrAddress},
		{"token too long", ok, []client.Option{client.WithToken(string(make([]byte, 256)))}, client.ErrTokenLength},
		{"pool size 0", ok, []client.Option{client.WithPoolSize(0)}, client.ErrOption},
		{"negative attempts", ok, []client.Option{client.WithMaxAttempts(-1)}, client.ErrOption},
		{"back-off min above max", ok, []client.Option{client.WithBackoff(time.Second, time.Millisecond)}, client.ErrOption},
		{"jitter above 1", ok, []client.Option{client.WithJitter(1.5)}, client.ErrOption},
		{"negative timeout", ok, []client.Option{client.WithTimeout(-1)}, client.ErrOption},
		{"negative dial timeout", ok, []client.Option{client.WithDialTimeout(-1)}, client.ErrOption},
		{"prefetch without validity", ok, []client.Option{client.WithPrefetch(10, 0)}, client.ErrOption},
		{"negative prefetch", ok, []client.Option{client.WithPrefetch(-1, time.Second)}, client.ErrOption},
		{"nil dialer", ok, []client.Option{client.WithDialer(nil)}, client.ErrOption},
		{"invalid layout", ok, []client.Option{client.WithLayout(id64.Layout{})}, client.ErrOption},
		{"max skew 0", ok, []client.Option{client.WithMaxSkew(0)}, client.ErrOption},
		{"negative max skew", ok, []client.Option{client.WithMaxSkew(-time.Second)}, client.ErrOption},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := client.New(tc.addrs, tc.opts...)
			if !errors.Is(err, tc.err) {
				t.Fatalf("got %v, want %v", err, tc.err)
			}
			if err == nil {
				c.Close()
			}
		})
	}
}

// TestClient_NextN asks one server for runs of several sizes and checks the
// IDs and the requests the server saw.
func TestClient_NextN(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		counts []int
	}{
		{"one", 1, []int{1}},
		{"a few", 7, []int{7}},
		{"one full request", 255, []int{255}},
		{"two requests", 256, []int{255, 1}},
		{"pipelined", 1000, []int{255, 255, 255, 235}},
		{"two rounds", 5000, append(slices.Repeat([]int{255}, 19), 155)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newFake(t, fakeConfig{})
			c := newClient(t, []string{s.Addr})
			got := make([]id64.ID, tc.n)
			n, err := c.NextN(context.Background(), got)
			if n != tc.n || err != nil {
				t.Fatalf("got %d, %v; want %d", n, err, tc.n)
			}
			if want := seq(s.Nth(1), s.Nth(tc.n)); !slices.Equal(got, want) {
				t.Errorf("got IDs %v..., want the fake's first %d", got[:min(5, n)], tc.n)
			}
			if got := s.Counts(); !slices.Equal(got, tc.counts) {
				t.Errorf("requests: got %v, want %v", got, tc.counts)
			}
		})
	}
}

func TestClient_Next(t *testing.T) {
	s := newFake(t, fakeConfig{})
	c := newClient(t, []string{s.Addr})
	ctx := context.Background()
	for want := s.Nth(1); want <= s.Nth(3); want++ {
		if got, err := c.Next(ctx); got != want || err != nil {
			t.Fatalf("got %d, %v; want %d", got, err, want)
		}
	}
	if n, err := c.NextN(ctx, nil); n != 0 || err != nil {
		t.Errorf("NextN(nil): got %d, %v; want 0, nil", n, err)
	}
}

func TestClient_Close(t *testing.T) {
	base := runtime.NumGoroutine()
	hold := make(chan struct{})
	s, err := startFake(fakeConfig{hold: hold})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New([]string{s.Addr}, client.WithPoolSize(2), client.WithPrefetch(50, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Calls in flight and queued when Close comes fail with ErrClosed.
	const calls = 5
	errc := make(chan error, calls+1)
	for range calls {
		go func() {
			_, err := c.Next(ctx)
			errc <- err
		}()
	}
	go func() {
		_, err := c.NextN(ctx, make([]id64.ID, 600))
		errc <- err
	}()
	waitFor(t, "a request to arrive", func() bool { return len(s.arrived) > 0 })
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for range calls + 1 {
		if err := <-errc; !errors.Is(err, client.ErrClosed) {
			t.Errorf("call during Close: got %v, want ErrClosed", err)
		}
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := c.Next(ctx); !errors.Is(err, client.ErrClosed) {
		t.Errorf("Next after Close: got %v, want ErrClosed", err)
	}
	if _, err := c.NextN(ctx, make([]id64.ID, 1000)); !errors.Is(err, client.ErrClosed) {
		t.Errorf("NextN after Close: got %v, want ErrClosed", err)
	}
	close(hold)
	s.Close()
	waitFor(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= base })
}

// TestClient_CloseAfterPrefetch: background refills end with Close.
func TestClient_CloseAfterPrefetch(t *testing.T) {
	base := runtime.NumGoroutine()
	s, err := startFake(fakeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New([]string{s.Addr}, client.WithPrefetch(1000, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	floetest.Hammer(t, 8, 500, func() (id64.ID, error) { return c.Next(context.Background()) }, nil)
	c.Close()
	s.Close()
	waitFor(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= base })
}
