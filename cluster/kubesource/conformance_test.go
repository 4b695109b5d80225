package kubesource_test

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"

	"github.com/floeid/floe/cluster/kubetest"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/kube"
	"github.com/floeid/floe/workerid/workeridtest"
)

// namespaces remembers each test's namespace and restricted client, so
// that a conformance Lose finds the Lease of a lease.
type namespaces struct {
	mu sync.Mutex
	m  map[*testing.T]nsOf // guarded by mu
}

type nsOf struct {
	name string
	cli  kube.LeasesGetter
}

func (n *namespaces) set(t *testing.T, ns nsOf) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.m == nil {
		n.m = make(map[*testing.T]nsOf)
	}
	n.m[t] = ns
}

func (n *namespaces) get(t *testing.T) nsOf {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	ns, ok := n.m[t]
	if !ok {
		t.Fatal("no namespace made in this test")
	}
	return ns
}

// lose frees the worker ID of l as an operator (or another claimer that
// saw its holder expire) would: its Lease's holder becomes "", through the
// restricted client. The Lease is the one of l's worker ID and fence.
func lose(t *testing.T, ns nsOf, l workerid.Lease) {
	t.Helper()
	for name, obj := range leaseNames(t, ns.cli, ns.name) {
		if !strings.HasSuffix(name, "-"+strconv.Itoa(l.ID())) || obj.Annotations["floe.dev/fence"] != strconv.FormatInt(l.Fence(), 10) {
			continue
		}
		edit(t, ns.cli, ns.name, name, func(o *coordv1.Lease) { o.Spec.HolderIdentity = ptr("") })
		return
	}
	t.Fatalf("no Lease of worker ID %d with fence %d in %s", l.ID(), l.Fence(), ns.name)
}

// TestSource_Conformance runs the workerid conformance suite on a real API
// server: plain and as a catalog sequence, one worker ID with a host per
// Source and four with one owner, each namespace fresh, each contender
// with a client of its own authenticated as the namespace's restricted
// service account.
func TestSource_Conformance(t *testing.T) {
	api := kubetest.Start(t)
	var nss namespaces
	shapes := []struct {
		name      string
		ids       int
		sameOwner bool
	}{
		{"one worker ID, a host per Source", 1, false},
		{"four worker IDs, one owner", 4, true},
	}
	for _, catalog := range []bool{false, true} {
		for _, sh := range shapes {
			name := "plain prefix/" + sh.name
			if catalog {
				name = "catalog sequence/" + sh.name
			}
			t.Run(name, func(t *testing.T) {
				workeridtest.Run(t, workeridtest.Config{
					IDs:     sh.ids,
					Timeout: opTimeout,
					Namespace: func(t *testing.T) func() workerid.Source {
						ns, rc := api.Namespace(t)
						nss.set(t, nsOf{ns, client(t, rc)})
						var seq workerid.Sequence
						if catalog {
							var err error
							seq, err = newCatalog(t, client(t, rc), ns, "prod").Create(ctxFor(t), "Orders", "id64 twitter")
							if err != nil {
								t.Fatal(err)
							}
						}
						var hosts atomic.Int64
						return func() workerid.Source {
							owner := "host"
							if !sh.sameOwner {
								owner = fmt.Sprintf("host-%d", hosts.Add(1))
							}
							// TTL 10 s: no lease of the suite expires under
							// the race detector; none waits for it.
							cfg := kube.Config{Namespace: ns, Prefix: "floe-test-", IDs: sh.ids, TTL: 10 * time.Second, Owner: owner}
							if !catalog {
								return newSource(t, client(t, rc), cfg)
							}
							src, err := newCatalog(t, client(t, rc), ns, "prod").Source(seq, cfg)
							if err != nil {
								t.Fatalf("Catalog.Source: %v", err)
							}
							return src
						}
					},
					Lose: func(t *testing.T, l workerid.Lease) { lose(t, nss.get(t), l) },
				})
			})
		}
	}
}

// TestCatalog_Conformance runs the catalog suite of workerid on a real API
// server, each cluster in a fresh namespace, each node with a client of
// its own.
func TestCatalog_Conformance(t *testing.T) {
	api := kubetest.Start(t)
	var nss namespaces
	workeridtest.RunCatalog(t,
		func(t *testing.T) func() workerid.Catalog {
			ns, rc := api.Namespace(t)
			nss.set(t, nsOf{ns, client(t, rc)})
			return func() workerid.Catalog { return newCatalog(t, client(t, rc), ns, "prod") }
		},
		func(t *testing.T, seq workerid.Sequence) workerid.Source {
			ns := nss.get(t)
			src, err := newCatalog(t, ns.cli, ns.name, "prod").Source(seq, kube.Config{IDs: 4, TTL: 10 * time.Second, Owner: "a"})
			if err != nil {
				t.Fatalf("Catalog.Source: %v", err)
			}
			return src
		})
}
