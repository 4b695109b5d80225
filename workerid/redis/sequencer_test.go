//go:build unix

package redis_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/internal/tcptest"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/redis"
)

// openOrders opens the sequence "orders" on the Redis server at addr as an
// application does: Dial, a Catalog, sequencer.Open. It returns the
// sequencer and the client to close after it.
func openOrders(ctx context.Context, addr string) (*sequencer.Sequencer, *goredis.Client, error) {
	rdb, err := redis.Dial(ctx, &goredis.Options{Addr: addr})
	if err != nil {
		return nil, nil, err
	}
	catalog := redis.NewCatalog(rdb, "floe/v1/prod/")
	def, err := sequencer.Snowcast(time.Date(2014, 1, 1, 0, 0, 0, 0, time.UTC), 1024)
	if err != nil {
		rdb.Close()
		return nil, nil, err
	}
	sq, err := sequencer.Open(ctx, sequencer.Config{
		Name: "orders", Definition: def, Catalog: catalog,
		Sources: func(seq workerid.Sequence) (workerid.Source, error) {
			return catalog.Source(ctx, seq, redis.Config{IDs: def.WorkerIDs(), Owner: "orders-test-1"})
		},
	})
	if err != nil {
		rdb.Close()
		return nil, nil, err
	}
	return sq, rdb, nil
}

// An application that opens a sequencer on a Redis address that refuses,
// or that takes the connection and never answers, gets an error naming
// the address and the cause within the probe's bound, not a bare
// "context deadline exceeded" at its own deadline; on a server that
// answers it serves.
func TestDial_OpenSequencer(t *testing.T) {
	free := floetest.FreeAddrs(t, 1)[0]
	silent := tcptest.Silent(t)
	srv := redistest.Start(t, "--appendonly", "yes", "--appendfsync", "always")

	tests := []struct {
		name    string
		addr    string
		want    error    // nil: serves
		wantErr []string // each is in the error
	}{
		{name: "serving", addr: srv.Addr},
		{name: "refused", addr: free, want: redis.ErrUnreachable, wantErr: []string{"redis " + free, "connection refused"}},
		{name: "silent", addr: silent, want: redis.ErrNoReply, wantErr: []string{"redis " + silent, "no reply within 5s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// An application's generous deadline: the error must come
			// well before it.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			sq, rdb, err := openOrders(ctx, tt.addr)
			took := time.Since(start)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				defer rdb.Close()
				defer sq.Close(ctx)
				if _, err := sq.Wait(ctx, sequencer.Serving); err != nil {
					t.Fatalf("Wait(Serving): %v", err)
				}
				if _, err := sq.Next64(); err != nil {
					t.Errorf("Next64: %v", err)
				}
				return
			}
			if err == nil {
				sq.Close(ctx)
				rdb.Close()
				t.Fatalf("open = a sequencer, want an error matching %v", tt.want)
			}
			if !errors.Is(err, tt.want) || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("open = %v, want an error matching %v, not the deadline's", err, tt.want)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("open = %v, want an error with %q", err, want)
				}
			}
			// The probe's bound, with room for a loaded machine.
			if bound := redis.ProbeTimeout + 10*time.Second; took > bound {
				t.Errorf("open took %v, want the error within %v", took, bound)
			}
		})
	}
}
