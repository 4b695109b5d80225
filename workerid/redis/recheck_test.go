package redis

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/workerid"
)

// becomeUnsafe are the ways a safe server becomes unsafe while Sources run.
var becomeUnsafe = []struct {
	name   string
	reason string // in the UnsafeError
	do     func(t *testing.T, srv *redistest.Server)
}{
	{name: "aof turned off", reason: "AOF is off", do: func(t *testing.T, srv *redistest.Server) {
		configSet(t, srv, "appendonly", "no")
	}},
	{name: "appendfsync everysec", reason: `appendfsync is "everysec"`, do: func(t *testing.T, srv *redistest.Server) {
		configSet(t, srv, "appendfsync", "everysec")
	}},
	{name: "replica attached", reason: "the primary has replicas", do: func(t *testing.T, srv *redistest.Server) {
		host, port, err := net.SplitHostPort(srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		redistest.Start(t, "--replicaof", host, port)
	}},
}

func configSet(t *testing.T, srv *redistest.Server, name, value string) {
	t.Helper()
	if err := newClient(t, srv.Addr).ConfigSet(ctxFor(t, opTimeout), name, value).Err(); err != nil {
		t.Fatalf("CONFIG SET %s %s: %v", name, value, err)
	}
}

// unsafeWithin is how soon a running Source must notice an unsafe server:
// a few renewals of a 1 s TTL, generous for a loaded machine.
const unsafeWithin = 15 * time.Second

// A server made unsafe after the start ends the Source's leases with an
// *UnsafeError, and Claim refuses it, unless Config.Unsafe is set: then the
// lease goes on and Source.Unsafe reports why.
func TestSource_BecomesUnsafe(t *testing.T) {
	t.Parallel()
	for _, tt := range becomeUnsafe {
		for _, unsafe := range []bool{false, true} {
			name := tt.name
			if unsafe {
				name += " with Unsafe"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				srv := redistest.Start(t, safeArgs...)
				src := newSource(t, srv.Addr, Config{IDs: 2, TTL: time.Second, Owner: "a", Unsafe: unsafe})
				l := mustClaim(t, src)
				mustReserve(t, l, 100)
				if got := src.Unsafe(); len(got) != 0 {
					t.Fatalf("Unsafe() on a safe server = %q", got)
				}
				tt.do(t, srv)
				if !unsafe {
					select {
					case <-l.Done():
					case <-time.After(unsafeWithin):
						t.Fatalf("lease not lost %v after the server became unsafe", unsafeWithin)
					}
					var lost *workerid.LeaseLostError
					var ue *UnsafeError
					if err := l.Err(); !errors.As(err, &lost) || !errors.As(err, &ue) || !containsReason(ue.Reasons, tt.reason) {
						t.Errorf("Err() = %v, want a *LeaseLostError caused by an *UnsafeError saying %q", err, tt.reason)
					}
					if _, err := src.Claim(ctxFor(t, opTimeout)); !errors.Is(err, ErrUnsafe) {
						t.Errorf("Claim on an unsafe server: %v, want ErrUnsafe", err)
					}
					return
				}
				deadline := time.Now().Add(unsafeWithin)
				for !containsReason(src.Unsafe(), tt.reason) {
					if time.Now().After(deadline) {
						t.Fatalf("Unsafe() = %q %v after the server became unsafe, want %q", src.Unsafe(), unsafeWithin, tt.reason)
					}
					time.Sleep(50 * time.Millisecond)
				}
				mustReserve(t, l, 200)
				select {
				case <-l.Done():
					t.Fatalf("lease lost with Unsafe set: %v", l.Err())
				default:
				}
			})
		}
	}
}

func containsReason(reasons []string, want string) bool {
	for _, r := range reasons {
		if len(r) >= len(want) && r[:len(want)] == want {
			return true
		}
	}
	return false
}
