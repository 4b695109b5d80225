package etcdsource_test

import (
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/etcd"
	"github.com/floeid/floe/workerid/workeridtest"
)

// The messages a lease logs when it ends without a Release.
const (
	msgLost      = "worker ID lease lost"
	msgDestroyed = "worker ID lease ended: the sequence was destroyed"
)

// A lease of a catalog sequence that a destroy ends (seen by the watch of
// its owner key or by a Reserve) logs one INFO line and nothing at WARN or
// above, and its cause wraps workerid.ErrNotFound; one whose owner key is
// deleted, or whose etcd lease is revoked, while the sequence lives is
// lost: one WARN line, and a cause that is not ErrNotFound.
func TestLease_DestroyIsNoLoss(t *testing.T) {
	t.Parallel()
	ec := etcdtest.Start(t, 1)
	admin := newClient(t, ec.Endpoints())
	destroy := func(t *testing.T, cat *etcd.Catalog, _ string) {
		if err := cat.Destroy(ctxFor(t, opTimeout), "orders"); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		end       func(t *testing.T, cat *etcd.Catalog, ownerKey string)
		reserve   bool // Reserve right after end, racing the watch
		destroyed bool
	}{
		{name: "destroy seen by the watch", end: destroy, destroyed: true},
		{name: "destroy seen by a reservation", end: destroy, reserve: true, destroyed: true},
		{
			name: "owner key deleted",
			end: func(t *testing.T, _ *etcd.Catalog, key string) {
				if _, err := admin.Delete(ctxFor(t, opTimeout), key); err != nil {
					t.Fatal(err)
				}
			},
			reserve: true,
		},
		{
			name: "etcd lease revoked",
			end:  func(t *testing.T, _ *etcd.Catalog, key string) { revoke(t, admin, key) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			prefix := freshPrefix()
			cat := etcd.NewCatalog(newClient(t, ec.Endpoints()), prefix)
			seq, err := cat.Create(ctxFor(t, opTimeout), "orders", "spec")
			if err != nil {
				t.Fatal(err)
			}
			var logs workeridtest.Logs
			src, err := cat.Source(seq, etcd.Config{IDs: 2, TTL: 5 * time.Second, Owner: "a", Logger: logs.Logger()})
			if err != nil {
				t.Fatal(err)
			}
			l := mustClaim(t, src)
			mustReserve(t, l, 1000)
			tt.end(t, cat, fmt.Sprintf("%sseq/orders/%d/workers/%d", prefix, seq.Gen, l.ID()))
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
			// A loss may log more warnings (a revocation of an etcd lease
			// already gone); a destroy logs none.
			if got := logs.AtLeast(slog.LevelWarn); tt.destroyed && len(got) != 0 {
				t.Errorf("logged at WARN or above: %q, want nothing", got)
			}
			if t.Failed() {
				t.Logf("the Source logged:\n%s", logs.String())
			}
		})
	}
}
