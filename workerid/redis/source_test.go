package redis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
	goredis "github.com/redis/go-redis/v9"
)

// safeArgs are the redis-server flags that pass Check.
var safeArgs = []string{"--appendonly", "yes", "--appendfsync", "always"}

// newClient returns a client of the server at addr, configured as floed
// configures its own (no retries: a retry would blur whether a reservation
// landed), and closed when the test ends.
func newClient(tb testing.TB, addr string) *goredis.Client {
	rdb := goredis.NewClient(&goredis.Options{Addr: addr, DialTimeout: 5 * time.Second, MaxRetries: -1})
	tb.Cleanup(func() { rdb.Close() })
	return rdb
}

// newSource returns a Source on the server at addr with a client of its
// own, as a process on another host would have.
func newSource(tb testing.TB, addr string, cfg Config) *Source {
	tb.Helper()
	src, err := NewSource(context.Background(), newClient(tb, addr), cfg)
	if err != nil {
		tb.Fatalf("NewSource: %v", err)
	}
	return src
}

// prefixes numbers the fresh key prefixes of the tests.
var prefixes atomic.Int64

// freshPrefix returns a key prefix no other test uses.
func freshPrefix() string { return fmt.Sprintf("test/%d/", prefixes.Add(1)) }

// opTimeout bounds one Source operation in these tests.
const opTimeout = 5 * time.Second

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func mustClaim(t *testing.T, src *Source) workerid.Lease {
	t.Helper()
	l, err := src.Claim(ctxFor(t, 5*time.Second))
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	return l
}

func mustReserve(t *testing.T, l workerid.Lease, tick uint64) {
	t.Helper()
	if err := l.Reserve(ctxFor(t, 5*time.Second), tick); err != nil {
		t.Fatalf("Reserve(%d) on worker ID %d: %v", tick, l.ID(), err)
	}
	if got := l.Reserved(); got < tick {
		t.Fatalf("Reserved() after Reserve(%d) = %d", tick, got)
	}
}

// ledger records every holder of each worker ID, to check the reservation
// invariant: a holder's Floor is at or above every tick an earlier holder
// of the ID may have issued, which is its Reserved, or the last tick of its
// clean Release.
type ledger struct {
	mu   sync.Mutex
	held map[int][]*holding // guarded by mu: by worker ID, in claim order
}

type holding struct {
	l    workerid.Lease
	last uint64 // the last tick of a clean Release, or 0
}

func newLedger() *ledger { return &ledger{held: make(map[int][]*holding)} }

// bound returns the highest tick any holder of id so far may have issued.
func (g *ledger) bound(id int) uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	var b uint64
	for _, h := range g.held[id] {
		v := h.l.Reserved()
		if h.last != 0 {
			v = min(v, h.last)
		}
		b = max(b, v)
	}
	return b
}

// claimed checks l's Floor against every earlier holder of its ID and
// records it.
func (g *ledger) claimed(t *testing.T, l workerid.Lease) {
	t.Helper()
	if b := g.bound(l.ID()); l.Floor() < b {
		t.Errorf("worker ID %d (fence %d): Floor() = %d, below %d an earlier holder may have issued", l.ID(), l.Fence(), l.Floor(), b)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, h := range g.held[l.ID()] {
		if h.l.Fence() >= l.Fence() {
			t.Errorf("worker ID %d: fence %d after fence %d", l.ID(), l.Fence(), h.l.Fence())
		}
	}
	g.held[l.ID()] = append(g.held[l.ID()], &holding{l: l})
}

// release releases l with last and records it.
func (g *ledger) release(t *testing.T, l workerid.Lease, last uint64) {
	t.Helper()
	if err := l.Release(ctxFor(t, 5*time.Second), last); err != nil {
		t.Fatalf("Release(%d) of worker ID %d: %v", last, l.ID(), err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, h := range g.held[l.ID()] {
		if h.l == l {
			h.last = last
		}
	}
}

// ownerKey returns the owner key of a lease of this package.
func ownerKey(l workerid.Lease) string { return l.(*lease).ownerKey }

// TestSource_Conformance runs the conformance suite of workerid on a safe
// server, each namespace under a fresh prefix, plain and as a catalog
// sequence. A lease is lost by deleting its owner key, as its expiry does.
//
// Two shapes of namespace: one worker ID with a host per Source, and four
// worker IDs with one owner name for every Source. The suite's "reservations
// only rise" and "last tick of a clean release is the next floor" expect the
// next claim after a Release to take the released worker ID; a claim scans
// from a random offset, so with several IDs that holds only for the owner
// that released it, which the claim prefers.
func TestSource_Conformance(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	admin := newClient(t, srv.Addr)
	sources := []struct {
		name   string
		source func(t *testing.T) func(cfg Config) *Source
	}{
		{"plain prefix", func(t *testing.T) func(Config) *Source {
			prefix := freshPrefix()
			return func(cfg Config) *Source {
				cfg.Prefix = prefix
				return newSource(t, srv.Addr, cfg)
			}
		}},
		{"catalog sequence", func(t *testing.T) func(Config) *Source {
			cat := NewCatalog(newClient(t, srv.Addr), freshPrefix())
			seq, err := cat.Create(ctxFor(t, 5*time.Second), "orders", "id64 twitter")
			if err != nil {
				t.Fatal(err)
			}
			return func(cfg Config) *Source {
				src, err := NewCatalog(newClient(t, srv.Addr), cat.prefix).Source(ctxFor(t, 5*time.Second), seq, cfg)
				if err != nil {
					t.Fatalf("Catalog.Source: %v", err)
				}
				return src
			}
		}},
	}
	shapes := []struct {
		name      string
		ids       int
		sameOwner bool
	}{
		{"one worker ID, a host per Source", 1, false},
		{"four worker IDs, one owner", 4, true},
	}
	for _, sc := range sources {
		for _, sh := range shapes {
			t.Run(sc.name+"/"+sh.name, func(t *testing.T) {
				workeridtest.Run(t, workeridtest.Config{
					IDs: sh.ids,
					Namespace: func(t *testing.T) func() workerid.Source {
						mk := sc.source(t)
						var hosts atomic.Int64
						return func() workerid.Source {
							owner := "host"
							if !sh.sameOwner {
								owner = fmt.Sprintf("host-%d", hosts.Add(1))
							}
							// TTL 5 s: long enough that no lease of the
							// suite expires under the race detector; none
							// waits for it.
							return mk(Config{IDs: sh.ids, TTL: 5 * time.Second, Owner: owner})
						}
					},
					Lose: func(t *testing.T, l workerid.Lease) {
						if err := admin.Del(ctxFor(t, 5*time.Second), ownerKey(l)).Err(); err != nil {
							t.Fatalf("deleting the owner key: %v", err)
						}
					},
				})
			})
		}
	}
}

func TestNewSource(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	rdb := newClient(t, srv.Addr)
	host, _ := os.Hostname()
	tests := []struct {
		name        string
		cfg         Config
		want        error
		wantTTL     time.Duration
		wantTimeout time.Duration
		wantOwner   string
	}{
		{name: "defaults", cfg: Config{IDs: 1, Owner: "a"}, wantTTL: 10 * time.Second, wantTimeout: 10 * time.Second / 3, wantOwner: "a"},
		{name: "host name as owner", cfg: Config{IDs: 1}, wantTTL: 10 * time.Second, wantTimeout: 10 * time.Second / 3, wantOwner: host},
		{name: "timeout a third of the ttl", cfg: Config{IDs: 1, TTL: 3 * time.Second, Owner: "a"}, wantTTL: 3 * time.Second, wantTimeout: time.Second, wantOwner: "a"},
		{name: "timeout equal to the ttl", cfg: Config{IDs: 1, TTL: time.Second, Timeout: time.Second, Owner: "a"}, wantTTL: time.Second, wantTimeout: time.Second, wantOwner: "a"},
		{name: "most worker IDs", cfg: Config{IDs: MaxIDs, Owner: "a"}, wantTTL: 10 * time.Second, wantTimeout: 10 * time.Second / 3, wantOwner: "a"},
		{name: "longest owner", cfg: Config{IDs: 1, Owner: strings.Repeat("ü", 127) + "a"}, wantTTL: 10 * time.Second, wantTimeout: 10 * time.Second / 3, wantOwner: strings.Repeat("ü", 127) + "a"},
		{name: "no worker IDs", cfg: Config{Owner: "a"}, want: ErrIDs},
		{name: "negative worker IDs", cfg: Config{IDs: -1, Owner: "a"}, want: ErrIDs},
		{name: "too many worker IDs", cfg: Config{IDs: MaxIDs + 1, Owner: "a"}, want: ErrIDs},
		{name: "ttl below a second", cfg: Config{IDs: 1, TTL: 999 * time.Millisecond, Owner: "a"}, want: ErrTTL},
		{name: "negative ttl", cfg: Config{IDs: 1, TTL: -time.Second, Owner: "a"}, want: ErrTTL},
		{name: "negative timeout", cfg: Config{IDs: 1, Timeout: -1, Owner: "a"}, want: ErrTimeout},
		{name: "timeout above the ttl", cfg: Config{IDs: 1, TTL: time.Second, Timeout: time.Second + 1, Owner: "a"}, want: ErrTimeout},
		{name: "owner of 256 bytes", cfg: Config{IDs: 1, Owner: strings.Repeat("a", 256)}, want: ErrOwner},
		{name: "owner not UTF-8", cfg: Config{IDs: 1, Owner: "a\xff"}, want: ErrOwner},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSource(ctxFor(t, 5*time.Second), rdb, tt.cfg)
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("NewSource: %v, want %v", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewSource: %v", err)
			}
			if got := s.cfg.TTL; got != tt.wantTTL {
				t.Errorf("TTL = %v, want %v", got, tt.wantTTL)
			}
			if got := s.cfg.Timeout; got != tt.wantTimeout {
				t.Errorf("Timeout = %v, want %v", got, tt.wantTimeout)
			}
			if got := s.cfg.Owner; got != tt.wantOwner {
				t.Errorf("Owner = %q, want %q", got, tt.wantOwner)
			}
			if got := s.cfg.Prefix; got != DefaultPrefix {
				t.Errorf("Prefix = %q, want %q", got, DefaultPrefix)
			}
			if s.cfg.Clock == nil || s.cfg.Logger == nil {
				t.Errorf("no default Clock or Logger: %+v", s.cfg)
			}
			if got := s.Unsafe(); len(got) != 0 {
				t.Errorf("Unsafe() = %q on a safe server", got)
			}
		})
	}
}

// More contenders than free worker IDs, round after round: each round
// claims every ID exactly once and refuses the rest with ErrExhausted;
// half the holders then release, the other half are lost (their owner keys
// deleted, as an expiry does); every next holder starts above all an
// earlier one may have issued, and no lost holder reserves again.
func TestSource_ClaimContention(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	admin := newClient(t, srv.Addr)
	const ids, contenders, rounds = 8, 16, 3
	prefix := freshPrefix()
	sources := make([]*Source, contenders)
	for i := range sources {
		sources[i] = newSource(t, srv.Addr, Config{Prefix: prefix, IDs: ids, TTL: 5 * time.Second, Owner: fmt.Sprintf("host-%d", i)})
	}
	g := newLedger()
	var lost []workerid.Lease
	for round := range rounds {
		type result struct {
			l   workerid.Lease
			err error
		}
		results := make([]result, contenders)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, src := range sources {
			wg.Go(func() {
				<-start
				l, err := src.Claim(ctxFor(t, 5*time.Second))
				results[i] = result{l, err}
			})
		}
		close(start)
		wg.Wait()

		var leases []workerid.Lease
		held := make(map[int]bool)
		exhausted := 0
		for _, r := range results {
			switch {
			case r.err == nil:
				if held[r.l.ID()] {
					t.Errorf("round %d: worker ID %d claimed twice", round, r.l.ID())
				}
				held[r.l.ID()] = true
				leases = append(leases, r.l)
				g.claimed(t, r.l)
			case errors.Is(r.err, workerid.ErrExhausted):
				exhausted++
			default:
				t.Fatalf("round %d: Claim: %v", round, r.err)
			}
		}
		if got, want := len(held), ids; got != want {
			t.Fatalf("round %d: %d contenders claimed %d distinct worker IDs, want %d", round, contenders, got, want)
		}
		if got, want := exhausted, contenders-ids; got != want {
			t.Errorf("round %d: %d claims refused with ErrExhausted, want %d", round, got, want)
		}
		// The holders lost in the round before cannot reserve over the
		// new holders of their IDs.
		for _, l := range lost {
			workeridtest.WantLost(t, l, opTimeout)
		}
		lost = lost[:0]
		for i, l := range leases {
			mustReserve(t, l, l.Floor()+uint64(100*(i+1)))
			if i%2 == 0 {
				g.release(t, l, 0)
				continue
			}
			if err := admin.Del(ctxFor(t, 5*time.Second), ownerKey(l)).Err(); err != nil {
				t.Fatal(err)
			}
			lost = append(lost, l)
		}
	}
}

// A Source prefers the worker ID its owner held last, whatever the random
// start of the scan, even with ':' and a newline in the owner name.
func TestSource_ClaimPrefersOwner(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	prefix := freshPrefix()
	const ids = 16
	tests := []struct {
		name  string
		owner string
	}{
		{"plain", "host-a"},
		{"colons", "host:b:0:1"},
		{"newline", "host\nc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newSource(t, srv.Addr, Config{Prefix: prefix, IDs: ids, TTL: 5 * time.Second, Owner: tt.owner})
			first := mustClaim(t, src)
			mustReserve(t, first, first.Floor()+1)
			if err := first.Release(ctxFor(t, 5*time.Second), 0); err != nil {
				t.Fatal(err)
			}
			for range 5 {
				l := mustClaim(t, src)
				if got, want := l.ID(), first.ID(); got != want {
					t.Errorf("owner %q claimed worker ID %d, want %d, the one it held last", tt.owner, got, want)
				}
				if err := l.Release(ctxFor(t, 5*time.Second), 0); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClaim claims a worker ID and releases it, on a server that
// syncs its AOF at every write, with how many worker IDs the claim scans.
func BenchmarkClaim(b *testing.B) {
	srv := redistest.Start(b, safeArgs...)
	for _, ids := range []int{1, 1024, MaxIDs} {
		b.Run(fmt.Sprintf("ids=%d", ids), func(b *testing.B) {
			workeridtest.BenchClaim(b, newSource(b, srv.Addr, Config{Prefix: freshPrefix(), IDs: ids, TTL: 10 * time.Second, Owner: "bench"}))
		})
	}
}
