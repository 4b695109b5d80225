package etcdsource_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/etcd"
	"github.com/floeid/floe/workerid/workeridtest"
)

// prefixOf remembers the key prefix of each test's namespace, so that a
// conformance Lose finds the owner key of a lease.
type prefixOf struct {
	mu sync.Mutex
	m  map[*testing.T]string // guarded by mu
}

func (p *prefixOf) set(t *testing.T, prefix string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = make(map[*testing.T]string)
	}
	p.m[t] = prefix
}

func (p *prefixOf) get(t *testing.T) string {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	prefix, ok := p.m[t]
	if !ok {
		t.Fatal("no namespace made in this test")
	}
	return prefix
}

// TestSource_Conformance runs the conformance suite of workerid on one
// and on three etcd members, each namespace under a fresh prefix, plain
// and as a catalog sequence, each contender with a client of its own. A
// lease is lost by revoking its etcd lease, found on its owner key, as
// its expiry would.
//
// Two shapes of namespace: one worker ID with a host per Source, and four
// worker IDs with one owner name for every Source. The suite expects the
// next claim after a Release to take the released worker ID; a claim scans
// from a random offset, so with several IDs that holds only for the owner
// that released it, which the claim prefers.
func TestSource_Conformance(t *testing.T) {
	t.Parallel()
	clusters := []struct {
		name    string
		members int
	}{
		{"one member", 1},
		{"three members", 3},
	}
	for _, cl := range clusters {
		t.Run(cl.name, func(t *testing.T) {
			t.Parallel()
			ec := etcdtest.Start(t, cl.members)
			admin := newClient(t, ec.Endpoints())
			var prefixes prefixOf
			sources := []struct {
				name string
				// namespace returns the key prefix of a fresh namespace and
				// makes its Sources.
				namespace func(t *testing.T) (string, func(cfg etcd.Config) *etcd.Source)
			}{
				{"plain prefix", func(t *testing.T) (string, func(etcd.Config) *etcd.Source) {
					prefix := freshPrefix()
					return prefix, func(cfg etcd.Config) *etcd.Source {
						cfg.Prefix = prefix
						return newSource(t, newClient(t, ec.Endpoints()), cfg)
					}
				}},
				{"catalog sequence", func(t *testing.T) (string, func(etcd.Config) *etcd.Source) {
					catPrefix := freshPrefix()
					seq, err := etcd.NewCatalog(admin, catPrefix).Create(ctxFor(t, 10*time.Second), "orders", "id64 twitter")
					if err != nil {
						t.Fatal(err)
					}
					prefix := fmt.Sprintf("%sseq/orders/%d/", catPrefix, seq.Gen)
					return prefix, func(cfg etcd.Config) *etcd.Source {
						src, err := etcd.NewCatalog(newClient(t, ec.Endpoints()), catPrefix).Source(seq, cfg)
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
								prefix, mk := sc.namespace(t)
								prefixes.set(t, prefix)
								var hosts atomic.Int64
								return func() workerid.Source {
									owner := "host"
									if !sh.sameOwner {
										owner = fmt.Sprintf("host-%d", hosts.Add(1))
									}
									// TTL 15 s: no lease of the suite expires
									// under the race detector on a loaded
									// machine; none waits for it. RequestTimeout
									// opTimeout, where TTL/3 is the default: the
									// suite checks what claims and reservations
									// do, not how soon, and under load a request
									// took longer than 1.7 s (TTL 5 s / 3).
									return mk(etcd.Config{IDs: sh.ids, TTL: 15 * time.Second, RequestTimeout: opTimeout, Owner: owner})
								}
							},
							Lose: func(t *testing.T, l workerid.Lease) {
								revoke(t, admin, ownerKey(prefixes.get(t), l.ID()))
							},
						})
					})
				}
			}
		})
	}
}

// TestCatalog_Conformance runs the catalog suite of workerid on three etcd
// members, each cluster under a fresh prefix, each node with a client of
// its own.
func TestCatalog_Conformance(t *testing.T) {
	t.Parallel()
	ec := etcdtest.Start(t, 3)
	var prefixes prefixOf
	workeridtest.RunCatalog(t,
		func(t *testing.T) func() workerid.Catalog {
			prefix := freshPrefix()
			prefixes.set(t, prefix)
			return func() workerid.Catalog { return etcd.NewCatalog(newClient(t, ec.Endpoints()), prefix) }
		},
		func(t *testing.T, seq workerid.Sequence) workerid.Source {
			cat := etcd.NewCatalog(newClient(t, ec.Endpoints()), prefixes.get(t))
			// As the Source suite's: TTL and requests generous, not checked.
			src, err := cat.Source(seq, etcd.Config{IDs: 4, TTL: 15 * time.Second, RequestTimeout: opTimeout, Owner: "a"})
			if err != nil {
				t.Fatalf("Catalog.Source: %v", err)
			}
			return src
		})
}
