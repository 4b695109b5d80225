package server

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/internal/wire"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
)

// fill issues dst from s's default sequence, as a request does.
func fill(s *Server, dst []id64.ID) error {
	w := waiter{s: s, arrival: time.Now()}
	defer w.done()
	return s.seqs()[0].fill64(dst, &w)
}

// hangSource is a coordinator that stops answering on demand: its leases'
// writes then block until their context ends.
type hangSource struct {
	*workeridtest.MemSource
	hang atomic.Bool
}

func (h *hangSource) Claim(ctx context.Context) (workerid.Lease, error) {
	l, err := h.MemSource.Claim(ctx)
	if err != nil {
		return nil, err
	}
	return &hangLease{Lease: l, src: h}, nil
}

type hangLease struct {
	workerid.Lease
	src *hangSource
}

func (l *hangLease) Reserve(ctx context.Context, tick uint64) error {
	if l.src.hang.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return l.Lease.Reserve(ctx, tick)
}

func (l *hangLease) Release(ctx context.Context, last uint64) error {
	if l.src.hang.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return l.Lease.Release(ctx, last)
}

// faults are the ways the reservation cannot be extended: a store that
// fails (a full or read-only disk) and a coordinator that does not answer.
var faults = []struct {
	name  string
	setup func(cfg *Config) (on func())
}{
	{"store fails", func(cfg *Config) func() {
		store := newMemStore()
		cfg.Store = store
		return func() { store.setFail(errors.New("no space left on device")) }
	}},
	{"coordinator does not answer", func(cfg *Config) func() {
		src := &hangSource{MemSource: workeridtest.NewMemSource(1)}
		cfg.Sequences = []SequenceConfig{{Name: "default", Source: src}}
		return func() { src.hang.Store(true) }
	}},
}

// faultyServer starts a server with maxWait whose reservation cannot be
// extended any more and whose clock is past it, with a binary listener and
// an HTTP server: every request waits at the reservation ceiling.
func faultyServer(t *testing.T, setup func(*Config) func(), maxWait time.Duration) (s *Server, binAddr, httpURL string) {
	t.Helper()
	clock := floetest.NewClock(start)
	cfg := Config{Clock: clock, Window: time.Second, MaxWait: maxWait}
	fault := setup(&cfg)
	s, binAddr = newTestServer(t, cfg)
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	fault()
	clock.Step(3 * time.Second) // past the reservation
	return s, binAddr, hs.URL
}

// outcome is how one request ended, in real time.
type outcome struct {
	sent, ended time.Time
	failed      bool   // a 503, or the connection closed
	code        string // an HTTP error's code
}

// getHTTP asks for one ID over HTTP with ctx.
func getHTTP(ctx context.Context, url string) outcome {
	o := outcome{sent: time.Now()}
	req, err := http.NewRequestWithContext(ctx, "GET", url+"/v1/ids", nil)
	if err != nil {
		panic(err)
	}
	resp, err := http.DefaultClient.Do(req)
	o.ended = time.Now()
	if err != nil {
		o.failed, o.code = true, "transport: "+err.Error()
		return o
	}
	defer resp.Body.Close()
	var e httpError
	json.NewDecoder(resp.Body).Decode(&e)
	o.failed, o.code = resp.StatusCode == http.StatusServiceUnavailable, e.Code
	return o
}

// getNoeq asks for one ID on a new binary connection.
func getNoeq(t *testing.T, addr string) outcome {
	c := dialNoeq(t, addr, "")
	o := outcome{sent: time.Now()}
	_, err := c.get(1)
	o.ended = time.Now()
	o.failed = err != nil
	return o
}

// slack is what an idle machine may add to a bound on waiting (the
// requests' round trips, the server's goroutines); stretchSlack stretches
// it by the load measured.
const slack = 2 * time.Second

// stretchSlack returns slack stretched by the slowdown schedtest measured
// since m, at most limit (at least slack): the limit keeps the bound below
// what the defect a test guards would add, however loaded the machine.
func stretchSlack(m schedtest.Mark, limit time.Duration) time.Duration {
	return min(m.Scale(slack), max(limit, slack))
}

// TestServer_WaitBoundPerRequest sends eight concurrent requests while the
// reservation cannot be extended: each fails within MaxWait of its own
// arrival, instead of one MaxWait after the other.
func TestServer_WaitBoundPerRequest(t *testing.T) {
	const maxWait = time.Second
	for _, f := range faults {
		for _, proto := range []string{"http", "noeq"} {
			t.Run(f.name+"/"+proto, func(t *testing.T) {
				m := schedtest.Now()
				_, bin, url := faultyServer(t, f.setup, maxWait)
				var wg sync.WaitGroup
				got := make([]outcome, 8)
				for i := range got {
					wg.Go(func() {
						if proto == "http" {
							got[i] = getHTTP(context.Background(), url)
						} else {
							got[i] = getNoeq(t, bin)
						}
					})
				}
				wg.Wait()
				// The defect, waits one after the other, ends the last of
				// the 8 requests 8 max-waits after it was sent: the slack
				// stays under 5.
				sl := stretchSlack(m, 5*maxWait)
				for i, o := range got {
					if !o.failed {
						t.Errorf("request %d served beyond a reservation that cannot be extended", i)
					}
					if d := o.ended.Sub(o.sent); d > maxWait+sl {
						t.Errorf("request %d failed after %v, want within the %v max-wait (+%v)", i, d.Round(time.Millisecond), maxWait, sl)
					}
				}
			})
		}
	}
}

// TestServer_GoneClientGivesUpItsTurn makes the first of two waiting
// requests lose its client: the second takes its turn at once and waits
// at the reservation itself, instead of behind the first for its MaxWait.
func TestServer_GoneClientGivesUpItsTurn(t *testing.T) {
	// maxWait is above twice the slack: behind a client gone, the second
	// would wait out the first's max-wait, which the stretched slack, at
	// most maxWait/2, stays below.
	const maxWait = 8 * time.Second
	for _, proto := range []string{"http", "noeq"} {
		t.Run(proto, func(t *testing.T) {
			m := schedtest.Now()
			s, bin, url := faultyServer(t, faults[0].setup, maxWait)
			seq := s.seqs()[0]
			hits := func() uint64 { return seq.stats().CeilingHits }
			waitFor := func(what string, cond func() bool) {
				t.Helper()
				start := time.Now()
				for !cond() {
					if sl := stretchSlack(m, maxWait/2); time.Since(start) > sl {
						t.Fatalf("%s: not within %v", what, sl)
					}
					time.Sleep(time.Millisecond)
				}
			}
			// The first request takes the turn and waits at the ceiling.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var first net.Conn
			before := hits()
			if proto == "http" {
				go getHTTP(ctx, url)
			} else {
				c := dialNoeq(t, bin, "")
				first = c.nc
				if _, err := c.nc.Write([]byte{1}); err != nil {
					t.Fatal(err)
				}
			}
			waitFor("the first request at the ceiling", func() bool { return hits() > before })
			// The second waits for its turn behind it.
			second := make(chan outcome, 1)
			go func() {
				if proto == "http" {
					second <- getHTTP(context.Background(), url)
				} else {
					second <- getNoeq(t, bin)
				}
			}()
			time.Sleep(100 * time.Millisecond) // let it queue: no timing is asserted on it
			mid := hits()
			// The first client goes: the second reaches the ceiling.
			if proto == "http" {
				cancel()
			} else {
				first.Close()
			}
			waitFor("the second request at the ceiling after the first client left", func() bool { return hits() > mid })
			if o, bound := <-second, maxWait+stretchSlack(m, maxWait/2); !o.failed || o.ended.Sub(o.sent) > bound {
				t.Errorf("second request: failed %v after %v, want a failure within %v", o.failed, o.ended.Sub(o.sent), bound)
			}
		})
	}
}

// TestServer_ShutdownDuringFault stops a server whose reservation cannot
// be extended while requests wait: the stop ends their waits and returns
// at once, without an error (the clean stop is not recorded: the next
// start begins above the reservation, as after a crash).
func TestServer_ShutdownDuringFault(t *testing.T) {
	const maxWait = 10 * time.Second
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			m := schedtest.Now()
			s, bin, url := faultyServer(t, f.setup, maxWait)
			var wg sync.WaitGroup
			got := make([]outcome, 8)
			for i := range got {
				wg.Go(func() {
					if i%2 == 0 {
						got[i] = getHTTP(context.Background(), url)
					} else {
						got[i] = getNoeq(t, bin)
					}
				})
			}
			seq := s.seqs()[0]
			deadline := time.Now().Add(slack)
			for seq.stats().CeilingHits == 0 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond) // the others arrive and wait
			ctx, cancel := context.WithTimeout(context.Background(), 3*maxWait)
			defer cancel()
			stop := time.Now()
			err := s.Shutdown(ctx)
			took := time.Since(stop)
			if err != nil {
				t.Errorf("Shutdown during the fault: %v, want nil", err)
			}
			// The defect, a stop that waits for the requests' waits,
			// takes maxWait: the slack stays under half of it.
			if sl := stretchSlack(m, maxWait/2); took > sl {
				t.Errorf("Shutdown took %v during the fault, want within %v", took.Round(time.Millisecond), sl)
			}
			wg.Wait()
			sl := stretchSlack(m, maxWait/2)
			for i, o := range got {
				if !o.failed {
					t.Errorf("request %d served beyond a reservation that cannot be extended", i)
				}
				if d := o.ended.Sub(stop); d > sl {
					t.Errorf("request %d ended %v after the stop, want within %v", i, d.Round(time.Millisecond), sl)
				}
			}
		})
	}
}

// TestServer_FillAllocs checks that a request that does not wait pays
// nothing for its bound: no allocation.
func TestServer_FillAllocs(t *testing.T) {
	s, _ := newTestServer(t, Config{Clock: floetest.NewClock(start), Window: time.Hour})
	seq := s.seqs()[0]
	dst := make([]id64.ID, 16)
	var err error
	got := testing.AllocsPerRun(100, func() {
		w := waiter{s: s, arrival: time.Now()}
		err = seq.fill64(dst, &w)
		w.done()
	})
	if err != nil {
		t.Fatal(err)
	}
	if got != 0 {
		t.Errorf("%v allocations per request, want 0", got)
	}
}

// TestServer_PipelinedWhileWaiting sends requests on a binary connection
// while its first one waits for the reservation: the watch for the peer's
// close reads them, and they are served, in order, once the reservation
// is extended.
func TestServer_PipelinedWhileWaiting(t *testing.T) {
	clock := floetest.NewClock(start)
	store := newMemStore()
	s, addr := newTestServer(t, Config{Clock: clock, Store: store, Window: time.Second, MaxWait: 20 * time.Second})
	store.setFail(errors.New("no space left on device"))
	clock.Step(3 * time.Second)
	c := dialNoeq(t, addr, "")
	seq := s.seqs()[0]
	if _, err := c.nc.Write([]byte{2}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(slack)
	for seq.stats().CeilingHits < 2 { // the first try, then the wait
		if time.Now().After(deadline) {
			t.Fatal("the request did not wait at the ceiling")
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := c.nc.Write([]byte{3, 1}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // read by the watch, no timing asserted
	store.setFail(nil)
	ids := make([]uint64, 6)
	if _, err := wire.ReadIDs(c.r, ids, nil); err != nil {
		t.Fatalf("after the reservation was extended: %v", err)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Fatalf("IDs %v not increasing", ids)
		}
	}
	// The connection serves on.
	if _, err := c.get(1); err != nil {
		t.Fatal(err)
	}
}

// TestServer_TextAllocs: a reply's IDs as text, in every format, cost no
// allocation per ID when the reply is sized by textLen: no ID's text
// outgrows it or the buffer each ID is written through. (Before, each
// id128 ID's 36 characters outgrew a 32-byte buffer.)
func TestServer_TextAllocs(t *testing.T) {
	s, _ := newTestServer(t, Config{Clock: floetest.NewClock(start), Window: time.Hour, Sequences: []SequenceConfig{
		{Name: "default"},
		{Name: "sno", Format: Format80, Node: 1},
		{Name: "guid", Format: Format96, Node: 2},
		{Name: "uuid", Format: Format128, Node: 9},
	}})
	for _, seq := range s.seqs() {
		t.Run(string(seq.format), func(t *testing.T) {
			allocs := func(n int) float64 {
				var err error
				got := testing.AllocsPerRun(50, func() {
					w := waiter{s: s, arrival: time.Now()}
					_, err = seq.appendText(make([]byte, 0, n*(seq.textLen()+1)), n, func(dst, id []byte) []byte {
						return append(append(dst, id...), '\n')
					}, &w)
					w.done()
				})
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			if one, many := allocs(1), allocs(200); many != one {
				t.Errorf("%v allocations for a reply of 200 IDs, %v for one: want no allocation per ID", many, one)
			}
		})
	}
}
