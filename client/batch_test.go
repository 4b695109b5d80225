package client_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
)

// TestClient_Batch holds the first request on the server while 50 more
// calls queue; they must all go out in the next request.
func TestClient_Batch(t *testing.T) {
	hold := make(chan struct{})
	s := newFake(t, fakeConfig{hold: hold})
	c := newClient(t, []string{s.Addr}, client.WithPoolSize(1))
	ctx := context.Background()
	const waiting = 50
	var wg sync.WaitGroup
	check := floetest.NewChecker[id64.ID](waiting + 1)
	call := func() {
		id, err := c.Next(ctx)
		if err != nil {
			t.Error(err)
		}
		check.Add(id)
	}
	wg.Go(call)
	<-s.arrived
	for range waiting {
		wg.Go(call)
	}
	waitFor(t, "calls to queue", func() bool { return c.Queued() == waiting })
	close(hold)
	wg.Wait()
	if got, want := s.Counts(), []int{1, waiting}; !slices.Equal(got, want) {
		t.Errorf("requests: got %v, want %v", got, want)
	}
	if err := check.Err(); err != nil || check.Len() != waiting+1 {
		t.Errorf("%d distinct IDs, want %d: %v", check.Len(), waiting+1, err)
	}
}

// TestClient_Concurrent hammers one server from many goroutines: each
// goroutine's IDs increase, no ID repeats, and calls share requests.
func TestClient_Concurrent(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []client.Option
		cmp  func(a, b id64.ID) int
	}{
		{"batched", nil, id64.ID.Compare},
		{"pool of one", []client.Option{client.WithPoolSize(1)}, id64.ID.Compare},
		{"prefetch", []client.Option{client.WithPrefetch(100, time.Minute)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newFake(t, fakeConfig{})
			c := newClient(t, []string{s.Addr}, tc.opts...)
			const workers, each = 32, 100
			floetest.Hammer(t, workers, each, func() (id64.ID, error) { return c.Next(context.Background()) }, tc.cmp)
			t.Logf("%d calls, %d requests", workers*each, s.Requests())
		})
	}
}

func TestClient_Cancel(t *testing.T) {
	tests := []struct {
		name string
		// call runs in the background and is the call canceled; before
		// starting it, the test starts (with ctx background) a call that
		// holds the only connection when hold is set.
		holdFirst bool
		n         int
	}{
		{"in flight", false, 1},
		{"queued behind another call", true, 1},
		{"batched run", false, 10},
		{"pipelined run", false, 1000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hold := make(chan struct{})
			s := newFake(t, fakeConfig{hold: hold})
			c := newClient(t, []string{s.Addr}, client.WithPoolSize(1))
			var wg sync.WaitGroup
			if tc.holdFirst {
				wg.Go(func() {
					if _, err := c.Next(context.Background()); err != nil {
						t.Errorf("first call: %v", err)
					}
				})
				<-s.arrived
			}
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := c.NextN(ctx, make([]id64.ID, tc.n))
				errc <- err
			}()
			if tc.holdFirst {
				waitFor(t, "the call to queue", func() bool { return c.Queued() == 1 })
			} else {
				<-s.arrived
			}
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Errorf("got %v, want context.Canceled", err)
			}
			if got := c.Queued(); got != 0 {
				t.Errorf("%d calls still queued", got)
			}
			close(hold)
			wg.Wait()
		})
	}

	t.Run("done before the call", func(t *testing.T) {
		s := newFake(t, fakeConfig{})
		c := newClient(t, []string{s.Addr})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for _, n := range []int{1, 1000} {
			if _, err := c.NextN(ctx, make([]id64.ID, n)); !errors.Is(err, context.Canceled) {
				t.Errorf("NextN %d: got %v, want context.Canceled", n, err)
			}
		}
		if got := s.Requests(); got != 0 {
			t.Errorf("server got %d requests, want 0", got)
		}
	})

	t.Run("deadline while servers are down", func(t *testing.T) {
		c := newClient(t, []string{refusedAddr(t)}, client.WithMaxAttempts(0), client.WithBackoff(time.Millisecond, time.Millisecond))
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := c.Next(ctx)
		var ae *client.AttemptsError
		if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &ae) || len(ae.Attempts) < 2 {
			t.Errorf("got %v; want DeadlineExceeded after failed attempts", err)
		}
	})
}
