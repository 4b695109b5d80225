package redis

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
	goredis "github.com/redis/go-redis/v9"
)

// The messages a lease logs when it ends without a Release.
const (
	msgLost      = "worker ID lease lost"
	msgDestroyed = "worker ID lease ended: the sequence was destroyed"
)

// A lease of a catalog sequence that a destroy ends (seen by its renewal
// or by a Reserve) logs one INFO line and nothing at WARN or above, and
// its cause wraps workerid.ErrNotFound; one whose owner key is deleted or
// taken over while the sequence lives is lost: one WARN line, and a cause
// that is not ErrNotFound.
func TestLease_DestroyIsNoLoss(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	admin := newClient(t, srv.Addr)
	tests := []struct {
		name      string
		end       func(ctx context.Context, cat *Catalog, l workerid.Lease) error
		reserve   bool // Reserve right after end, before the renewal notices
		destroyed bool
	}{
		{
			name:      "destroy seen by the renewal",
			end:       func(ctx context.Context, cat *Catalog, _ workerid.Lease) error { return cat.Destroy(ctx, "orders") },
			destroyed: true,
		},
		{
			name:      "destroy seen by a reservation",
			end:       func(ctx context.Context, cat *Catalog, _ workerid.Lease) error { return cat.Destroy(ctx, "orders") },
			reserve:   true,
			destroyed: true,
		},
		{
			name: "owner key deleted",
			end: func(ctx context.Context, _ *Catalog, l workerid.Lease) error {
				return admin.Del(ctx, ownerKey(l)).Err()
			},
		},
		{
			name: "owner key taken over",
			end: func(ctx context.Context, _ *Catalog, l workerid.Lease) error {
				return admin.Set(ctx, ownerKey(l), "intruder", time.Minute).Err()
			},
			reserve: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cat := NewCatalog(newClient(t, srv.Addr), freshPrefix())
			seq, err := cat.Create(ctxFor(t, opTimeout), "orders", "spec")
			if err != nil {
				t.Fatal(err)
			}
			var logs workeridtest.Logs
			src, err := cat.Source(ctxFor(t, opTimeout), seq, Config{IDs: 2, TTL: time.Second, Owner: "a", Logger: logs.Logger()})
			if err != nil {
				t.Fatal(err)
			}
			l := mustClaim(t, src)
			mustReserve(t, l, 1000)
			if err := tt.end(ctxFor(t, opTimeout), cat, l); err != nil {
				t.Fatal(err)
			}
			if tt.reserve {
				var lost *workerid.LeaseLostError
				if err := l.Reserve(ctxFor(t, opTimeout), 2000); !errors.As(err, &lost) {
					t.Fatalf("Reserve after the lease ended: %v, want a *LeaseLostError", err)
				}
			}
			select {
			case <-l.Done():
			case <-time.After(opTimeout):
				t.Fatalf("Done not closed within %v", opTimeout)
			}
			<-l.(*lease).exited
			workeridtest.WantLost(t, l, opTimeout)
			if got := errors.Is(l.Err(), workerid.ErrNotFound); got != tt.destroyed {
				t.Errorf("Err() = %v: wraps ErrNotFound %v, want %v", l.Err(), got, tt.destroyed)
			}
			wantInfo, wantWarn := 0, 1
			if tt.destroyed {
				wantInfo, wantWarn = 1, 0
			}
			if got := logs.Count(slog.LevelInfo, msgDestroyed); got != wantInfo {
				t.Errorf("INFO %q logged %d times, want %d", msgDestroyed, got, wantInfo)
			}
			if got := logs.Count(slog.LevelWarn, msgLost); got != wantWarn {
				t.Errorf("WARN %q logged %d times, want %d", msgLost, got, wantWarn)
			}
			if got := logs.AtLeast(slog.LevelWarn); tt.destroyed && len(got) != 0 {
				t.Errorf("logged at WARN or above: %q, want nothing", got)
			}
			if t.Failed() {
				t.Logf("the Source logged:\n%s", logs.String())
			}
		})
	}
}

// A lease whose sequence cannot be read when its owner key changed hands
// (the read fails: the user may not read the catalog) is lost, not ended
// by a destroy: an error of that read is no proof.
func TestLease_DestroyUnknownIsLoss(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	admin := newClient(t, srv.Addr)
	cat := NewCatalog(newClient(t, srv.Addr), freshPrefix())
	seq, err := cat.Create(ctxFor(t, opTimeout), "orders", "spec")
	if err != nil {
		t.Fatal(err)
	}
	var logs workeridtest.Logs
	src, err := cat.Source(ctxFor(t, opTimeout), seq, Config{IDs: 1, TTL: time.Second, Owner: "a", Logger: logs.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	l := mustClaim(t, src)
	// The catalog's hash holds another type: HGET fails with WRONGTYPE.
	// The lease's owner key is gone, as a destroy leaves it.
	hash := src.cfg.seq.hash
	if err := admin.Del(ctxFor(t, opTimeout), hash, ownerKey(l)).Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.Set(ctxFor(t, opTimeout), hash, "not a hash", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.HGet(ctxFor(t, opTimeout), hash, "orders").Result(); err == nil || errors.Is(err, goredis.Nil) {
		t.Fatalf("HGET on a string: %v, want WRONGTYPE", err)
	}
	var lost *workerid.LeaseLostError
	if err := l.Reserve(ctxFor(t, opTimeout), 2000); !errors.As(err, &lost) || errors.Is(err, workerid.ErrNotFound) {
		t.Fatalf("Reserve after the owner key went: %v, want a *LeaseLostError not wrapping ErrNotFound", err)
	}
	<-l.(*lease).exited
	if got := logs.Count(slog.LevelWarn, msgLost); got != 1 {
		t.Errorf("WARN %q logged %d times, want 1\n%s", msgLost, got, logs.String())
	}
	if got := logs.Count(slog.LevelInfo, msgDestroyed); got != 0 {
		t.Errorf("INFO %q logged %d times, want 0\n%s", msgDestroyed, got, logs.String())
	}
}
