package redis

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
	goredis "github.com/redis/go-redis/v9"
)

// A lease renewed in the background outlives its TTL many times over: it
// still reserves, and nobody else can claim its worker ID.
func TestLease_Renewed(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	const ttl = time.Second
	prefix := freshPrefix()
	a := mustClaim(t, newSource(t, srv.Addr, Config{Prefix: prefix, IDs: 1, TTL: ttl, Owner: "a"}))
	time.Sleep(3 * ttl) // three TTLs: without renewals the owner key expires
	select {
	case <-a.Done():
		t.Fatalf("lease lost within %v despite its renewals: %v", 3*ttl, a.Err())
	default:
	}
	if err := a.Err(); err != nil {
		t.Fatalf("Err() = %v on a held lease", err)
	}
	pttl, err := newClient(t, srv.Addr).PTTL(ctxFor(t, 5*time.Second), ownerKey(a)).Result()
	if err != nil || pttl <= 0 || pttl > ttl {
		t.Errorf("owner key PTTL = %v, %v; want in (0, %v]", pttl, err, ttl)
	}
	b := newSource(t, srv.Addr, Config{Prefix: prefix, IDs: 1, TTL: ttl, Owner: "b"})
	if _, err := b.Claim(ctxFor(t, 5*time.Second)); !errors.Is(err, workerid.ErrExhausted) {
		t.Fatalf("claim of a renewed worker ID: %v, want ErrExhausted", err)
	}
	mustReserve(t, a, a.Floor()+1)
}

// A renewal that finds another token, or none, in the owner key ends the
// lease with ErrNotOwner and leaves the key alone: it may be the next
// holder's.
func TestLease_NotOwner(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	admin := newClient(t, srv.Addr)
	const ttl = time.Second
	tests := []struct {
		name    string
		mutate  func(ctx context.Context, key string) error
		wantKey string // what the owner key holds after the lease ended; "" for none
	}{
		{
			name: "owner key taken by another token",
			mutate: func(ctx context.Context, key string) error {
				return admin.Set(ctx, key, "intruder", time.Minute).Err()
			},
			wantKey: "intruder",
		},
		{
			name:   "owner key deleted",
			mutate: func(ctx context.Context, key string) error { return admin.Del(ctx, key).Err() },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := schedtest.Now()
			l := mustClaim(t, newSource(t, srv.Addr, Config{Prefix: freshPrefix(), IDs: 1, TTL: ttl, Owner: "a"}))
			if err := tt.mutate(ctxFor(t, 5*time.Second), ownerKey(l)); err != nil {
				t.Fatal(err)
			}
			// The next renewal, at most TTL/3 away, finds the change: the
			// rest of the TTL is work, stretched.
			bound := func() time.Duration { return m.Stretch(ttl/3, ttl-ttl/3) }
			if _, ok := schedtest.Receive(l.Done(), time.Now(), bound); !ok {
				t.Fatalf("Done not closed within %v (the TTL on an idle machine) after the owner key changed", bound())
			}
			if err := l.Err(); !errors.Is(err, ErrNotOwner) {
				t.Fatalf("Err() = %v, want ErrNotOwner", err)
			}
			<-l.(*lease).exited
			got, err := admin.Get(ctxFor(t, 5*time.Second), ownerKey(l)).Result()
			if errors.Is(err, goredis.Nil) {
				got, err = "", nil
			}
			if err != nil || got != tt.wantKey {
				t.Errorf("owner key after the loss = %q, %v; want %q", got, err, tt.wantKey)
			}
			workeridtest.WantLost(t, l, opTimeout)
		})
	}
}

// A holder killed without a Release (its client closed: no renewal, no
// Reserve reaches Redis) keeps its worker ID until the owner key expires;
// another Source claims it within TTL + 1 s, above the dead holder's
// reservation, and the dead holder has stopped by its own deadline.
func TestLease_HolderKilled(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	const ttl = time.Second
	prefix := freshPrefix()
	g := newLedger()
	srcA := newSource(t, srv.Addr, Config{Prefix: prefix, IDs: 1, TTL: ttl, Owner: "a"})
	srcB := newSource(t, srv.Addr, Config{Prefix: prefix, IDs: 1, TTL: ttl, Owner: "b"})
	a := mustClaim(t, srcA)
	g.claimed(t, a)
	mustReserve(t, a, a.Floor()+1000)

	m := schedtest.Now()
	srcA.rdb.Close()
	killed := time.Now()
	stopped := make(chan time.Duration, 1)
	go func() { <-a.Done(); stopped <- time.Since(killed) }()
	if _, err := srcB.Claim(ctxFor(t, 5*time.Second)); !errors.Is(err, workerid.ErrExhausted) {
		t.Fatalf("claim right after the holder died: %v, want ErrExhausted until its TTL runs out", err)
	}
	b, _ := workeridtest.ClaimBy(t, srcB, func() time.Duration { return m.Stretch(ttl, time.Second) }, opTimeout)
	took := time.Since(killed)
	t.Logf("worker ID %d claimed again %v after its holder was killed (TTL %v)", b.ID(), took.Round(time.Millisecond), ttl)
	if took < ttl/2 {
		t.Errorf("worker ID claimed again %v after its holder was killed, before half the TTL %v", took, ttl)
	}
	g.claimed(t, b)
	if got, want := b.Floor(), a.Reserved(); got != want {
		t.Errorf("next holder's Floor() = %d, want the dead holder's reservation %d", got, want)
	}

	// Its local deadline is its last renewal's send time plus the TTL.
	select {
	case d := <-stopped:
		t.Logf("the killed holder stopped %v after it was killed", d.Round(time.Millisecond))
		if limit := m.Stretch(ttl, 250*time.Millisecond); d > limit {
			t.Errorf("the killed holder stopped %v after it was killed, want within %v", d, limit)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the killed holder's Done not closed within 5 s")
	}
	if err := a.Err(); !errors.Is(err, ErrExpired) {
		t.Errorf("killed holder's Err() = %v, want ErrExpired", err)
	}
	workeridtest.WantLost(t, a, opTimeout)
	mustReserve(t, b, b.Floor()+1)
}

// reserveLog records a holder reserving ever higher ticks until it fails.
type reserveLog struct {
	mu     sync.Mutex
	starts []time.Time // guarded by mu: the start of each Reserve that succeeded
	err    error       // guarded by mu: the error that ended the run
}

// reserveUntilLost reserves ever higher ticks on l, one after the other,
// until a Reserve fails. It closes warm after 20 successes, or at the
// failure if that comes first.
func reserveUntilLost(l workerid.Lease, log *reserveLog, warm chan<- struct{}) {
	const warmup = 20
	tick := l.Reserved()
	for n := 1; ; n++ {
		tick += 10
		start := time.Now()
		err := l.Reserve(context.Background(), tick)
		log.mu.Lock()
		if err != nil {
			log.err = err
			log.mu.Unlock()
			if n <= warmup {
				close(warm)
			}
			return
		}
		log.starts = append(log.starts, start)
		log.mu.Unlock()
		if n == warmup {
			close(warm)
		}
	}
}

// The Redis server is paused (SIGSTOP) past the TTL, then resumed. The
// holder stops by itself before the server resumes: an idle one by its
// local deadline, a reserving one as soon as a Reserve's result is unknown.
// After the resume it reserves nothing more, and the next holder starts
// above everything it reserved; every Reserve of the old holder that
// succeeded started before the next holder's claim returned.
func TestLease_ServerPaused(t *testing.T) {
	t.Parallel()
	const ttl = time.Second
	timeout := ttl / 3
	tests := []struct {
		name      string
		reserving bool
		// The holder stops at most within + slop after the pause, slop
		// (250 ms on an idle machine) stretched by the slowdown measured.
		within  time.Duration
		wantErr error // what the loss wraps, nil for any
	}{
		{name: "idle holder", within: ttl, wantErr: ErrExpired},
		{name: "reserving holder", reserving: true, within: timeout, wantErr: context.DeadlineExceeded},
	}
	const slop = 250 * time.Millisecond
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := schedtest.Now()
			srv := redistest.Start(t, safeArgs...)
			prefix := freshPrefix()
			g := newLedger()
			srcA := newSource(t, srv.Addr, Config{Prefix: prefix, IDs: 1, TTL: ttl, Owner: "a"})
			srcB := newSource(t, srv.Addr, Config{Prefix: prefix, IDs: 1, TTL: ttl, Owner: "b"})
			a := mustClaim(t, srcA)
			g.claimed(t, a)
			mustReserve(t, a, a.Floor()+1000)
			var log reserveLog
			stopped := make(chan struct{})
			if tt.reserving {
				warm := make(chan struct{})
				go func() { defer close(stopped); reserveUntilLost(a, &log, warm) }()
				<-warm
			} else {
				close(stopped)
			}

			srv.Pause()
			paused := time.Now()
			t.Cleanup(srv.Resume)
			hold := ttl + 500*time.Millisecond // past the TTL: the owner key expires meanwhile
			// hold is the pause; the holder must stop within the TTL and
			// the 500 ms beyond it, stretched.
			holdBound := func() time.Duration { return m.Stretch(ttl, hold-ttl) }
			if _, ok := schedtest.Receive(a.Done(), paused, holdBound); !ok {
				t.Fatalf("holder still on %v after Redis paused, past its TTL %v", holdBound(), ttl)
			}
			lostAfter := time.Since(paused)
			t.Logf("holder stopped %v after Redis paused: %v", lostAfter.Round(time.Millisecond), a.Err())
			if within := m.Stretch(tt.within, slop); lostAfter > within {
				t.Errorf("holder stopped %v after Redis paused, want within %v", lostAfter, within)
			}
			var lost *workerid.LeaseLostError
			if err := a.Err(); !errors.As(err, &lost) || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("Err() = %v, want a *LeaseLostError wrapping %v", err, tt.wantErr)
			}
			<-stopped
			time.Sleep(time.Until(paused.Add(hold)))
			srv.Resume()

			mr := schedtest.Now()
			// The owner key expired during the pause: the claim is all
			// work, 2 s on an idle machine, stretched.
			b, took := workeridtest.ClaimBy(t, srcB, func() time.Duration { return mr.Stretch(0, 2*time.Second) }, opTimeout)
			claimed := time.Now()
			t.Logf("next holder claimed %v after Redis resumed; floor %d, old holder reserved %d in %d calls",
				took.Round(time.Millisecond), b.Floor(), a.Reserved(), len(log.starts))
			g.claimed(t, b)
			workeridtest.WantLost(t, a, opTimeout)
			log.mu.Lock()
			if tt.reserving && !errors.As(log.err, &lost) {
				t.Errorf("the reserving holder's last Reserve: %v, want a *LeaseLostError", log.err)
			}
			for _, start := range log.starts {
				if !start.Before(claimed) || start.After(paused.Add(lostAfter)) {
					t.Errorf("old holder's Reserve started %v after the pause succeeded; it stopped %v after it",
						start.Sub(paused), lostAfter)
				}
			}
			log.mu.Unlock()
			mustReserve(t, b, b.Floor()+1000)
			g.release(t, b, 0)
			c := mustClaim(t, srcA)
			g.claimed(t, c)
			if got, want := c.Floor(), b.Reserved(); got != want {
				t.Errorf("Floor() after the next holder released = %d, want its reservation %d", got, want)
			}
		})
	}
}

// Redis crashes (SIGKILL) with a holder, and restarts from its directory.
// With AOF and appendfsync always the acknowledged reservation survives:
// the next holder starts at it. Without persistence it is gone, and the
// next holder starts at 0, below ticks the dead one may have issued: that
// loss is why NewSource refuses such a server unless Config.Unsafe is set.
func TestLease_ServerRestarted(t *testing.T) {
	t.Parallel()
	const ttl = time.Second
	tests := []struct {
		name     string
		args     []string
		wantKept bool
	}{
		{name: "aof with appendfsync always", args: safeArgs, wantKept: true},
		{name: "no persistence", wantKept: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t, tt.args...)
			prefix := freshPrefix()
			cfg := Config{Prefix: prefix, IDs: 1, TTL: ttl, Owner: "a"}
			checkRefused := func(when string) {
				t.Helper()
				_, err := NewSource(ctxFor(t, 5*time.Second), newClient(t, srv.Addr), cfg)
				var unsafe *UnsafeError
				switch {
				case tt.wantKept && err != nil:
					t.Fatalf("NewSource %s: %v", when, err)
				case !tt.wantKept && !errors.As(err, &unsafe):
					t.Fatalf("NewSource %s: %v, want an *UnsafeError", when, err)
				case !tt.wantKept && !hasReason(unsafe.Reasons, "AOF is off"):
					t.Fatalf("NewSource %s: reasons %q do not name AOF", when, unsafe.Reasons)
				}
			}
			checkRefused("before the restart")
			cfg.Unsafe = !tt.wantKept
			srcA := newSource(t, srv.Addr, cfg)
			a := mustClaim(t, srcA)
			r := a.Floor() + 5000
			mustReserve(t, a, r)

			m := schedtest.Now()
			srcA.rdb.Close() // the holder dies with the server
			srv.Restart()
			cfg.Unsafe = false
			checkRefused("after the restart")
			cfg.Owner, cfg.Unsafe = "b", !tt.wantKept
			b, took := workeridtest.ClaimBy(t, newSource(t, srv.Addr, cfg), func() time.Duration { return m.Stretch(ttl, time.Second) }, opTimeout)
			t.Logf("claimed after the restart in %v: floor %d, fence %d; the dead holder reserved %d with fence %d",
				took.Round(time.Millisecond), b.Floor(), b.Fence(), r, a.Fence())
			if tt.wantKept {
				if got := b.Floor(); got != r {
					t.Errorf("Floor() after a restart with AOF = %d, want the acknowledged reservation %d", got, r)
				}
				if b.Fence() <= a.Fence() {
					t.Errorf("fence %d after a restart with AOF, not above %d", b.Fence(), a.Fence())
				}
			} else if got := b.Floor(); got >= r {
				t.Errorf("Floor() after a restart without persistence = %d; want it below the lost reservation %d, the duplicate risk Check refuses", got, r)
			}
			workeridtest.WantLost(t, a, opTimeout)
		})
	}
}

// hasReason reports whether one of reasons contains sub.
func hasReason(reasons []string, sub string) bool {
	return slices.ContainsFunc(reasons, func(r string) bool { return strings.Contains(r, sub) })
}

// A clean Release hands the worker ID over at once: the next holder claims
// it on the first try, starting right above the last tick passed to
// Release (capped at R), or above R when the last tick is 0.
func TestLease_ReleaseReclaim(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	const r = 5000
	tests := []struct {
		name      string
		last      uint64
		wantFloor uint64
	}{
		{"last tick below R", 2000, 2000},
		{"last tick one", 1, 1},
		{"last tick one below R", r - 1, r - 1},
		{"last tick at R", r, r},
		{"last tick above R is capped", r + 4000, r},
		{"no last tick", 0, r},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			prefix := freshPrefix()
			g := newLedger()
			a := mustClaim(t, newSource(t, srv.Addr, Config{Prefix: prefix, IDs: 1, TTL: time.Second, Owner: "a"}))
			g.claimed(t, a)
			mustReserve(t, a, r)
			g.release(t, a, tt.last)
			b := mustClaim(t, newSource(t, srv.Addr, Config{Prefix: prefix, IDs: 1, TTL: time.Second, Owner: "b"}))
			g.claimed(t, b)
			if got := b.Floor(); got != tt.wantFloor {
				t.Errorf("Floor() after Release(%d) = %d, want %d", tt.last, got, tt.wantFloor)
			}
			if got := b.Reserved(); got != r {
				t.Errorf("Reserved() after Release(%d) = %d, want R = %d", tt.last, got, r)
			}
			if err := a.Reserve(ctxFor(t, 5*time.Second), r+1); !errors.Is(err, workerid.ErrReleased) {
				t.Errorf("Reserve after Release: %v, want ErrReleased", err)
			}
		})
	}
}

// Ticks are uint64s; Lua numbers are doubles, exact only up to 2^53. The
// scripts compare decimals as strings, so a reservation rises by one tick
// at 2^53 and at the top of uint64, and the next holder starts exactly
// there.
func TestLease_LargeTicks(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	admin := newClient(t, srv.Addr)
	tests := []struct {
		name          string
		first, second uint64
	}{
		{"one more digit", 9, 10},
		{"one more digit, higher", 99999, 100000},
		{"past 2^53", 1 << 53, 1<<53 + 1},
		{"top of uint64", 1<<64 - 2, 1<<64 - 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := newSource(t, srv.Addr, Config{Prefix: freshPrefix(), IDs: 1, TTL: time.Second, Owner: "a"})
			a := mustClaim(t, src)
			mustReserve(t, a, tt.first)
			mustReserve(t, a, tt.second)
			raw, err := admin.Get(ctxFor(t, 5*time.Second), a.(*lease).resKey).Result()
			if want := strconv.FormatUint(tt.second, 10) + ":0:a"; err != nil || raw != want {
				t.Errorf("reservation key = %q, %v; want %q", raw, err, want)
			}
			if err := a.Release(ctxFor(t, 5*time.Second), tt.second-1); err != nil {
				t.Fatal(err)
			}
			b := mustClaim(t, src)
			if got, want := b.Floor(), tt.second-1; got != want {
				t.Errorf("Floor() after Release(%d) = %d, want %d", want, got, want)
			}
			if got, want := b.Reserved(), tt.second; got != want {
				t.Errorf("Reserved() = %d, want %d", got, want)
			}
		})
	}
}

// BenchmarkReserve raises the reservation of a held worker ID by one tick
// per operation: one script per Reserve, on a server that syncs its AOF at
// every write and on one without persistence.
func BenchmarkReserve(b *testing.B) {
	tests := []struct {
		name string
		args []string
	}{
		{"aof always", safeArgs},
		{"no persistence", nil},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			srv := redistest.Start(b, tt.args...)
			workeridtest.BenchReserve(b, newSource(b, srv.Addr, Config{Prefix: freshPrefix(), IDs: 1, TTL: 10 * time.Second, Owner: "bench", Unsafe: true}))
		})
	}
}
