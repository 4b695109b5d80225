package etcdsource_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/floeid/floe/internal/faultproxy"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/etcd"
)

// newClient returns a client of endpoints, as a process on another host
// would have, closed when the test ends. Call it after etcdtest.Start, so
// that it closes before the members stop.
func newClient(tb testing.TB, endpoints []string) *clientv3.Client {
	tb.Helper()
	cli, err := clientv3.New(etcd.ClientConfig(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	}))
	if err != nil {
		tb.Fatalf("etcd client: %v", err)
	}
	tb.Cleanup(func() { cli.Close() })
	return cli
}

// newSource returns a Source over cli.
func newSource(tb testing.TB, cli *clientv3.Client, cfg etcd.Config) *etcd.Source {
	tb.Helper()
	src, err := etcd.NewSource(cli, cfg)
	if err != nil {
		tb.Fatalf("NewSource: %v", err)
	}
	return src
}

// proxies starts a fault proxy in front of each endpoint, closed when the
// test ends, and returns them with their addresses.
func proxies(tb testing.TB, endpoints []string) ([]*faultproxy.Proxy, []string) {
	tb.Helper()
	var ps []*faultproxy.Proxy
	var addrs []string
	for _, ep := range endpoints {
		p, err := faultproxy.Listen(ep)
		if err != nil {
			tb.Fatalf("faultproxy: %v", err)
		}
		tb.Cleanup(func() { p.Close() })
		ps = append(ps, p)
		addrs = append(addrs, p.Addr())
	}
	return ps, addrs
}

// prefixes numbers the fresh key prefixes of the tests.
var prefixes atomic.Int64

// freshPrefix returns a key prefix no other test uses.
func freshPrefix() string { return fmt.Sprintf("/floe-test/%d/", prefixes.Add(1)) }

// ownerKey and reservedKey are the keys of worker ID id under prefix, as
// workerid/etcd documents them.
func ownerKey(prefix string, id int) string    { return fmt.Sprintf("%sworkers/%d", prefix, id) }
func reservedKey(prefix string, id int) string { return fmt.Sprintf("%sreserved/%d", prefix, id) }

// opTimeout bounds one Source operation in these tests.
const opTimeout = 10 * time.Second

func ctxFor(tb testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	tb.Cleanup(cancel)
	return ctx
}

func mustClaim(t *testing.T, src workerid.Source) workerid.Lease {
	t.Helper()
	l, err := src.Claim(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	return l
}

func mustReserve(t *testing.T, l workerid.Lease, tick uint64) {
	t.Helper()
	if err := l.Reserve(ctxFor(t, 10*time.Second), tick); err != nil {
		t.Fatalf("Reserve(%d) on worker ID %d: %v", tick, l.ID(), err)
	}
	if got := l.Reserved(); got < tick {
		t.Fatalf("Reserved() after Reserve(%d) = %d", tick, got)
	}
}

// held reports whether l is still held: Done not closed.
func held(l workerid.Lease) bool {
	select {
	case <-l.Done():
		return false
	default:
		return true
	}
}

// doneAt returns a channel that receives the time l's Done closes.
func doneAt(l workerid.Lease) <-chan time.Time {
	at := make(chan time.Time, 1)
	go func() {
		<-l.Done()
		at <- time.Now()
	}()
	return at
}

// transient reports whether a claim's error is one a loaded machine may
// cause and an application retries: a request's timeout, or a claim whose
// round trip outlasted the TTL, which the Source refuses to trust.
func transient(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "longer than the lease TTL")
}

// leftOf returns l's time to its local deadline, and false for a lease
// without one.
func leftOf(l workerid.Lease) (time.Duration, bool) {
	d, ok := l.(interface{ Left() time.Duration })
	if !ok {
		return 0, false
	}
	return d.Left(), true
}

// deletion is the owner key's deletion as a watch reported it: when, and
// whether the holder l still held its worker ID then (Done open and its
// local deadline ahead).
type deletion struct {
	at   time.Time
	held bool
	left time.Duration // l's Left() then
}

// deletedWhileHeld watches key from revision rev on and returns a channel
// that receives etcd's report of its deletion (when a holder's worker ID
// became free in etcd) and whether l still held as the event arrived: the
// event arrives after the deletion, so a holder
// that still held then held at the deletion, however late the watch's
// goroutine ran; a load cannot make a holder that stopped in time look
// as if it held.
func deletedWhileHeld(t *testing.T, cli *clientv3.Client, key string, rev int64, l workerid.Lease) <-chan deletion {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	out := make(chan deletion, 1)
	wch := cli.Watch(ctx, key, clientv3.WithRev(rev), clientv3.WithFilterPut())
	go func() {
		for wr := range wch {
			for _, ev := range wr.Events {
				if ev.Type == clientv3.EventTypeDelete {
					d := deletion{at: time.Now(), held: held(l)}
					if left, ok := leftOf(l); ok {
						d.left = left
						d.held = d.held && left > 0
					}
					out <- d
					return
				}
			}
		}
	}()
	return out
}

// waitFor returns the time ch receives, failing t after d.
func waitFor(t *testing.T, ch <-chan time.Time, d time.Duration, what string) time.Time {
	t.Helper()
	select {
	case at := <-ch:
		return at
	case <-time.After(d):
		t.Fatalf("%s: nothing within %v", what, d)
		return time.Time{}
	}
}

// revoke revokes the etcd lease the owner key at key is attached to: the
// way the lease expires, at once. It returns once the key is deleted.
func revoke(t *testing.T, cli *clientv3.Client, key string) {
	t.Helper()
	resp, err := cli.Get(ctxFor(t, 10*time.Second), key)
	if err != nil {
		t.Fatalf("reading the owner key %s: %v", key, err)
	}
	if len(resp.Kvs) == 0 || resp.Kvs[0].Lease == 0 {
		t.Fatalf("owner key %s: %v, want a key with a lease", key, resp.Kvs)
	}
	if _, err := cli.Revoke(ctxFor(t, 10*time.Second), clientv3.LeaseID(resp.Kvs[0].Lease)); err != nil {
		t.Fatalf("revoking the lease of %s: %v", key, err)
	}
}
