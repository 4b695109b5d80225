package client_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
)

func TestClient_Token(t *testing.T) {
	tests := []struct {
		name                string
		server, client      string
		wantErr             bool
		wantFailedAttempts  int
		wantShortReplyError bool
	}{
		{"right token", "s3cret", "s3cret", false, 0, false},
		{"server without token ignores the frame", "", "s3cret", false, 0, false},
		{"wrong token", "s3cret", "guess", true, 3, true},
		{"no token", "s3cret", "", true, 3, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newFake(t, fakeConfig{token: tc.server})
			c := newClient(t, []string{s.Addr}, client.WithToken(tc.client), client.WithMaxAttempts(3), fast)
			id, err := c.Next(context.Background())
			if !tc.wantErr {
				if id != s.Nth(1) || err != nil {
					t.Fatalf("got %d, %v; want %d", id, err, s.Nth(1))
				}
				return
			}
			var ae *client.AttemptsError
			if !errors.As(err, &ae) || len(ae.Attempts) != tc.wantFailedAttempts {
				t.Fatalf("got %v; want an *AttemptsError of %d attempts", err, tc.wantFailedAttempts)
			}
			if errors.Is(err, client.ErrShortReply) != tc.wantShortReplyError {
				t.Errorf("got %v; want ErrShortReply", err)
			}
			for _, a := range ae.Attempts {
				if a.Addr != s.Addr {
					t.Errorf("attempt on %q, want %q", a.Addr, s.Addr)
				}
			}
		})
	}
}

// TestClient_Failover kills one of three servers while many goroutines
// fetch IDs: every call must succeed on the others, and every ID must be
// unique.
func TestClient_Failover(t *testing.T) {
	ids := nowIDs() // one counter for the three: IDs unique across them
	var total atomic.Int64
	var killed atomic.Pointer[fakeServer]
	cfg := fakeConfig{ids: ids, onRequest: func(s *fakeServer, _ int) {
		if total.Add(1) == 20 {
			killed.Store(s)
			go s.Close()
		}
	}}
	servers := []*fakeServer{newFake(t, cfg), newFake(t, cfg), newFake(t, cfg)}
	var addrs []string
	for _, s := range servers {
		addrs = append(addrs, s.Addr)
	}
	c := newClient(t, addrs, client.WithBackoff(0, time.Millisecond))
	ctx := context.Background()
	const workers, each = 16, 200
	got := floetest.Hammer(t, workers, each, func() (id64.ID, error) { return c.Next(ctx) }, nil)
	if len(got) != workers*each {
		t.Fatalf("got %d IDs, want %d", len(got), workers*each)
	}
	dead := killed.Load()
	if dead == nil {
		t.Fatal("no server was killed")
	}
	before := dead.Requests()
	for range 50 {
		if _, err := c.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if after := dead.Requests(); after != before {
		t.Errorf("the killed server took %d requests after the run", after-before)
	}
}

// TestClient_FailoverShared: the server closes the connection on the
// request that the calls queued behind another share (with a pool of one,
// calls queue behind the flight in the air); they go on to the next
// server.
func TestClient_FailoverShared(t *testing.T) {
	ids := nowIDs()
	hold := make(chan struct{})
	a, b := newFake(t, fakeConfig{ids: ids, hold: hold}), newFake(t, fakeConfig{ids: ids})
	c := newClient(t, []string{a.Addr, b.Addr}, client.WithNoRandomize(), fast, client.WithPoolSize(1))
	ctx := context.Background()
	check := floetest.NewChecker[id64.ID](3)
	var wg sync.WaitGroup
	call := nextInto(t, c, ctx, check)
	wg.Go(call)
	<-a.arrived
	wg.Go(call)
	wg.Go(call)
	waitFor(t, "calls to queue", func() bool { return c.Queued() == 2 })
	a.failing.Store(true)
	close(hold)
	wg.Wait()
	if err := check.Err(); err != nil || check.Len() != 3 {
		t.Errorf("%d distinct IDs, want 3: %v", check.Len(), err)
	}
	if got, want := a.Counts(), []int{1, 2}; !slices.Equal(got, want) {
		t.Errorf("requests to a: got %v, want %v", got, want)
	}
	if got, want := b.Counts(), []int{2}; !slices.Equal(got, want) {
		t.Errorf("requests to b: got %v, want %v", got, want)
	}
}

// TestClient_FailoverSendShared: the write of the request that calls
// queued behind another share fails (with a pool of one, calls queue
// behind the flight in the air); they go on on a new connection.
func TestClient_FailoverSendShared(t *testing.T) {
	hold := make(chan struct{})
	s := newFake(t, fakeConfig{hold: hold})
	var dials atomic.Int64
	var failWrite atomic.Bool
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		nc, err := new(net.Dialer).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return writeFailer{nc, &failWrite}, nil
	}
	c := newClient(t, []string{s.Addr}, client.WithDialer(dial), fast, client.WithPoolSize(1))
	ctx := context.Background()
	check := floetest.NewChecker[id64.ID](2)
	var wg sync.WaitGroup
	call := nextInto(t, c, ctx, check)
	wg.Go(call)
	<-s.arrived
	wg.Go(call)
	waitFor(t, "the call to queue", func() bool { return c.Queued() == 1 })
	failWrite.Store(true)
	close(hold)
	wg.Wait()
	if err := check.Err(); err != nil || check.Len() != 2 {
		t.Errorf("%d distinct IDs, want 2: %v", check.Len(), err)
	}
	if got, want := s.Counts(), []int{1, 1}; !slices.Equal(got, want) {
		t.Errorf("requests: got %v, want %v", got, want)
	}
	if got := dials.Load(); got != 2 {
		t.Errorf("%d dials, want 2", got)
	}
}

// writeFailer fails the next write once fail is set.
type writeFailer struct {
	net.Conn
	fail *atomic.Bool
}

func (c writeFailer) Write(p []byte) (int, error) {
	if c.fail.CompareAndSwap(true, false) {
		return 0, errors.New("write failed")
	}
	return c.Conn.Write(p)
}

// TestClient_FailoverOrder: with WithNoRandomize the client takes the first
// address that answers, and moves on when that server fails.
func TestClient_FailoverOrder(t *testing.T) {
	ids := nowIDs()
	a, b := newFake(t, fakeConfig{ids: ids}), newFake(t, fakeConfig{ids: ids})
	c := newClient(t, []string{floetest.FreeAddrs(t, 1)[0], a.Addr, b.Addr}, client.WithNoRandomize(), fast, client.WithPoolSize(1))
	ctx := context.Background()
	for range 3 {
		if _, err := c.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if a.Requests() != 3 || b.Requests() != 0 {
		t.Fatalf("requests: a %d, b %d; want 3, 0", a.Requests(), b.Requests())
	}
	// a closes connections on requests, as on a clock or lease error. The
	// pooled connection is replaced once for free (the server might have
	// closed it for being idle); the new one fails too, and the call moves
	// on to b.
	a.failing.Store(true)
	if _, err := c.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if a.Requests() != 5 || b.Requests() != 1 {
		t.Errorf("requests: a %d, b %d; want 5, 1", a.Requests(), b.Requests())
	}
}

// TestClient_IdleClosed: a pooled connection the server closed while idle
// costs no attempt.
func TestClient_IdleClosed(t *testing.T) {
	s := newFake(t, fakeConfig{})
	var dials atomic.Int64
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return new(net.Dialer).DialContext(ctx, network, addr)
	}
	c := newClient(t, []string{s.Addr}, client.WithMaxAttempts(1), client.WithDialer(dial))
	ctx := context.Background()
	for want := s.Nth(1); want <= s.Nth(3); want++ {
		if got, err := c.Next(ctx); got != want || err != nil {
			t.Fatalf("got %d, %v; want %d", got, err, want)
		}
		s.DropConns()
	}
	if got := dials.Load(); got != 3 {
		t.Errorf("%d dials, want 3", got)
	}
}

func TestClient_AllDown(t *testing.T) {
	addrs := floetest.FreeAddrs(t, 2)
	c := newClient(t, addrs, client.WithMaxAttempts(4), fast)
	_, err := c.Next(context.Background())
	var ae *client.AttemptsError
	if !errors.As(err, &ae) || len(ae.Attempts) != 4 {
		t.Fatalf("got %v; want an *AttemptsError of 4 attempts", err)
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) {
		t.Errorf("got %v; want a *net.OpError inside", err)
	}
	for _, a := range ae.Attempts {
		if !slices.Contains(addrs, a.Addr) {
			t.Errorf("attempt on %q, want one of %v", a.Addr, addrs)
		}
	}
}

// TestClient_Timeout: a server that takes no more requests (stalled, or a
// half-open connection) fails the attempt at the attempt timeout.
func TestClient_Timeout(t *testing.T) {
	s := newFake(t, fakeConfig{hold: make(chan struct{})})
	c := newClient(t, []string{s.Addr}, client.WithTimeout(20*time.Millisecond), client.WithMaxAttempts(2), fast)
	_, err := c.Next(context.Background())
	var ae *client.AttemptsError
	if !errors.As(err, &ae) || len(ae.Attempts) != 2 {
		t.Fatalf("got %v; want an *AttemptsError of 2 attempts", err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("got %v; want a timeout", err)
	}
}
