package client_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
)

// TestClient_Batch holds every request on the server while 50 more calls
// come after the first: the first calls each fly at once, one flight per
// connection of the pool, and the calls that came once every connection
// was busy all go out in one request, when the first flight lands.
func TestClient_Batch(t *testing.T) {
	const waiting = 50
	tests := []struct {
		name string
		opts []client.Option
		want []int // the requests' counts, sorted
	}{
		{"default pool", nil, []int{1, 1, 1, 1, waiting - 3}},
		{"pool of one", []client.Option{client.WithPoolSize(1)}, []int{1, waiting}},
		{"pool of eight", []client.Option{client.WithPoolSize(8)}, []int{1, 1, 1, 1, 1, 1, 1, 1, waiting - 7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hold := make(chan struct{})
			s := newFake(t, fakeConfig{hold: hold})
			c := newClient(t, []string{s.Addr}, tc.opts...)
			ctx := context.Background()
			var wg sync.WaitGroup
			check := floetest.NewChecker[id64.ID](waiting + 1)
			call := nextInto(t, c, ctx, check)
			wg.Go(call)
			<-s.arrived
			for range waiting {
				wg.Go(call)
			}
			// While the server holds them, each flight carries one call.
			waitFor(t, "calls to fly or queue", func() bool { return c.Queued()+c.Flights() == waiting+1 })
			close(hold)
			wg.Wait()
			got := s.Counts()
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("requests: got %v, want %v", got, tc.want)
			}
			if err := check.Err(); err != nil || check.Len() != waiting+1 {
				t.Errorf("%d distinct IDs, want %d: %v", check.Len(), waiting+1, err)
			}
		})
	}
}

// TestClient_Concurrent hammers one server from many goroutines: each
// goroutine's IDs increase, no ID repeats, and calls share requests.
func TestClient_Concurrent(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     []client.Option
		cmp      func(a, b id64.ID) int
		deadline bool // each call has a deadline
	}{
		{"batched", nil, id64.ID.Compare, false},
		{"pool of one", []client.Option{client.WithPoolSize(1)}, id64.ID.Compare, false},
		{"calls with deadlines", nil, id64.ID.Compare, true},
		{"prefetch", []client.Option{client.WithPrefetch(100, time.Minute)}, id64.ID.Compare, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newFake(t, fakeConfig{})
			c := newClient(t, []string{s.Addr}, tc.opts...)
			next := func() (id64.ID, error) {
				ctx := context.Background()
				if tc.deadline {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, time.Minute)
					defer cancel()
				}
				return c.Next(ctx)
			}
			const workers, each = 32, 100
			floetest.Hammer(t, workers, each, next, tc.cmp)
			t.Logf("%d calls, %d requests", workers*each, s.Requests())
		})
	}
}

// TestClient_FullFlight holds the server's requests while more calls queue
// than one flight carries (16 pipelined requests of 255): the next flight
// to leave carries that many, and the rest leave on the one after.
func TestClient_FullFlight(t *testing.T) {
	const waiting = 16*255 + 20
	full := slices.Repeat([]int{255}, 16)
	tests := []struct {
		name string
		opts []client.Option
		want []int // the requests' counts, sorted
	}{
		{"default pool", nil, append([]int{1, 1, 1, 1, 17}, full...)},
		{"pool of one", []client.Option{client.WithPoolSize(1)}, append([]int{1, 20}, full...)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hold := make(chan struct{})
			s := newFake(t, fakeConfig{hold: hold})
			// Thousands of goroutines take a while to start: no attempt
			// timeout while the server holds the requests.
			c := newClient(t, []string{s.Addr}, append(tc.opts, client.WithTimeout(0))...)
			var wg sync.WaitGroup
			check := floetest.NewChecker[id64.ID](waiting + 1)
			call := nextInto(t, c, context.Background(), check)
			wg.Go(call)
			<-s.arrived
			for range waiting {
				wg.Go(call)
			}
			waitFor(t, "calls to fly or queue", func() bool { return c.Queued()+c.Flights() == waiting+1 })
			close(hold)
			wg.Wait()
			got := s.Counts()
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("requests: got %v, want %v", got, tc.want)
			}
			if err := check.Err(); err != nil || check.Len() != waiting+1 {
				t.Errorf("%d distinct IDs, want %d: %v", check.Len(), waiting+1, err)
			}
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
		c := newClient(t, []string{floetest.FreeAddrs(t, 1)[0]}, client.WithMaxAttempts(0), client.WithBackoff(time.Millisecond, time.Millisecond))
		// 500 ms, where it was 50: the test checks that attempts go on
		// until the deadline (at least two of them, 1 ms apart), not how
		// soon it comes, and a loaded machine made one refused dial take
		// most of 50 ms.
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		_, err := c.Next(ctx)
		var ae *client.AttemptsError
		if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &ae) || len(ae.Attempts) < 2 {
			t.Errorf("got %v; want DeadlineExceeded after failed attempts", err)
		}
	})
}

// TestClient_CancelShared cancels the first of three calls that share a
// request (queued, with a pool of one, behind the flight in the air): it
// returns at once, and the other two still get their IDs.
func TestClient_CancelShared(t *testing.T) {
	first, rest := make(chan struct{}), make(chan struct{})
	var requests atomic.Int64
	s := newFake(t, fakeConfig{onRequest: func(s *fakeServer, n int) {
		gate := rest
		if requests.Add(1) == 1 {
			gate = first
		}
		select {
		case <-gate:
		case <-s.quit:
		}
	}})
	c := newClient(t, []string{s.Addr}, client.WithPoolSize(1))
	bg := context.Background()
	check := floetest.NewChecker[id64.ID](3)
	var wg sync.WaitGroup
	call := nextInto(t, c, bg, check)
	wg.Go(call)
	<-s.arrived
	ctx, cancel := context.WithCancel(bg)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Next(ctx)
		errc <- err
	}()
	waitFor(t, "the call to queue", func() bool { return c.Queued() == 1 })
	wg.Go(call)
	wg.Go(call)
	waitFor(t, "calls to queue", func() bool { return c.Queued() == 3 })
	close(first)
	if n := <-s.arrived; n != 3 {
		t.Fatalf("the second request asks for %d IDs, want 3", n)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("the canceled call: got %v, want context.Canceled", err)
	}
	close(rest)
	wg.Wait()
	if err := check.Err(); err != nil || check.Len() != 3 {
		t.Errorf("%d distinct IDs, want 3: %v", check.Len(), err)
	}
}

// TestClient_CancelUnderLoad cancels every other call at a random point
// while many goroutines fetch IDs: calls end with an ID or
// context.Canceled, each goroutine's IDs increase and no ID goes to two
// calls.
func TestClient_CancelUnderLoad(t *testing.T) {
	tests := []struct {
		name string
		opts []client.Option
		cmp  func(a, b id64.ID) int
	}{
		{"default pool", nil, id64.ID.Compare},
		{"pool of one", []client.Option{client.WithPoolSize(1)}, id64.ID.Compare},
		{"prefetch", []client.Option{client.WithPrefetch(100, time.Minute)}, id64.ID.Compare},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newFake(t, fakeConfig{})
			c := newClient(t, []string{s.Addr}, tc.opts...)
			// A goroutine cancels the calls handed to it as soon as it
			// gets to them: at whatever point each call has reached.
			cancels := make(chan context.CancelFunc, 16)
			var canceller sync.WaitGroup
			canceller.Go(func() {
				for cancel := range cancels {
					cancel()
				}
			})
			const workers, each = 16, 300
			check := floetest.NewChecker[id64.ID](workers * each)
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					var ids []id64.ID
					for i := range each {
						ctx, cancel := context.WithCancel(context.Background())
						if i%2 == 0 {
							cancels <- cancel
						}
						id, err := c.Next(ctx)
						cancel()
						switch {
						case err == nil:
							ids = append(ids, id)
						case !errors.Is(err, context.Canceled):
							t.Errorf("got %v, want an ID or context.Canceled", err)
							return
						}
					}
					if tc.cmp != nil {
						if err := floetest.Increasing(ids, tc.cmp); err != nil {
							t.Error(err)
						}
					}
					check.Add(ids...)
				})
			}
			wg.Wait()
			close(cancels)
			canceller.Wait()
			if err := check.Err(); err != nil {
				t.Error(err)
			}
			t.Logf("%d IDs in %d requests", check.Len(), s.Requests())
		})
	}
}

// TestClient_CancelSent cancels a call that is alone on a flight whose
// request is already out (sent, with a pool of one, as the flight before
// it landed): the flight is called off, and the client goes on.
func TestClient_CancelSent(t *testing.T) {
	first, left := make(chan struct{}), make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var requests atomic.Int64
	s := newFake(t, fakeConfig{onRequest: func(s *fakeServer, n int) {
		gate := left
		switch requests.Add(1) {
		case 1:
			gate = first
		case 2:
			cancel() // and answer only once the call has returned
		default:
			return
		}
		select {
		case <-gate:
		case <-s.quit:
		}
	}})
	c := newClient(t, []string{s.Addr}, client.WithPoolSize(1))
	bg := context.Background()
	ids := make(chan id64.ID, 1)
	go func() {
		id, err := c.Next(bg)
		if err != nil {
			t.Error(err)
		}
		ids <- id
	}()
	<-s.arrived
	errc := make(chan error, 1)
	go func() {
		_, err := c.Next(ctx)
		errc <- err
	}()
	waitFor(t, "the call to queue", func() bool { return c.Queued() == 1 })
	close(first)
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("the canceled call: got %v, want context.Canceled", err)
	}
	close(left)
	check := floetest.NewChecker[id64.ID](2)
	check.Add(<-ids)
	id, err := c.Next(bg)
	if err != nil {
		t.Fatalf("the call after: %v", err)
	}
	check.Add(id)
	if err := check.Err(); err != nil {
		t.Error(err)
	}
	waitFor(t, "the flights to land", func() bool { return c.Flights() == 0 })
}

// nextInto returns a call of c.Next with ctx that adds its ID to check and
// reports an error to t, for tests that start many of them.
func nextInto(t *testing.T, c *client.Client, ctx context.Context, check *floetest.Checker[id64.ID]) func() {
	return func() {
		id, err := c.Next(ctx)
		if err != nil {
			t.Error(err)
		}
		check.Add(id)
	}
}
