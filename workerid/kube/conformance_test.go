package kube

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"

	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
)

// fakeNS is one test's fake API and namespace, for a conformance Lose.
type fakeNS struct {
	mu sync.Mutex
	m  map[*testing.T]*fakeAPI // guarded by mu
}

func (f *fakeNS) set(t *testing.T, api *fakeAPI) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = make(map[*testing.T]*fakeAPI)
	}
	f.m[t] = api
}

func (f *fakeNS) get(t *testing.T) *fakeAPI {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	api, ok := f.m[t]
	if !ok {
		t.Fatal("no namespace made in this test")
	}
	return api
}

// TestSource_ConformanceFake runs the workerid conformance suite over the
// in-memory API server: plain and as a catalog sequence, one worker ID
// with a host per Source and four with one owner. A lease is lost by
// editing its Lease's holder to "" (an operator, or the holder seen
// expired by another claimer).
func TestSource_ConformanceFake(t *testing.T) {
	var apis fakeNS
	kinds := []struct {
		name string
		mk   func(t *testing.T, api *fakeAPI) func(cfg Config) workerid.Source
	}{
		{"plain prefix", func(t *testing.T, api *fakeAPI) func(Config) workerid.Source {
			return func(cfg Config) workerid.Source {
				cfg.Namespace, cfg.Prefix = "floe", "floe-test-"
				s, err := NewSource(api, cfg)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
		}},
		{"catalog sequence", func(t *testing.T, api *fakeAPI) func(Config) workerid.Source {
			cat, err := NewCatalog(api, "floe", "prod")
			if err != nil {
				t.Fatal(err)
			}
			seq, err := cat.Create(t.Context(), "Orders", "id64 twitter")
			if err != nil {
				t.Fatal(err)
			}
			return func(cfg Config) workerid.Source {
				s, err := cat.Source(seq, cfg)
				if err != nil {
					t.Fatal(err)
				}
				return s
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
	for _, k := range kinds {
		for _, sh := range shapes {
			t.Run(k.name+"/"+sh.name, func(t *testing.T) {
				workeridtest.Run(t, workeridtest.Config{
					IDs: sh.ids,
					Namespace: func(t *testing.T) func() workerid.Source {
						api := newFakeAPI()
						apis.set(t, api)
						mk := k.mk(t, api)
						var hosts atomic.Int64
						return func() workerid.Source {
							owner := "host"
							if !sh.sameOwner {
								owner = fmt.Sprintf("host-%d", hosts.Add(1))
							}
							return mk(Config{IDs: sh.ids, TTL: 5 * time.Second, Owner: owner})
						}
					},
					Lose: func(t *testing.T, l workerid.Lease) {
						kl := l.(*lease)
						api := apis.get(t)
						api.edit(kl.src.cfg.Namespace, kl.src.name(l.ID()), func(o *coordv1.Lease) {
							empty := ""
							o.Spec.HolderIdentity = &empty
						})
					},
				})
			})
		}
	}
}

// TestCatalog_ConformanceFake runs the catalog suite over the in-memory
// API server.
func TestCatalog_ConformanceFake(t *testing.T) {
	var apis fakeNS
	workeridtest.RunCatalog(t,
		func(t *testing.T) func() workerid.Catalog {
			api := newFakeAPI()
			apis.set(t, api)
			return func() workerid.Catalog {
				c, err := NewCatalog(api, "floe", "prod")
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
		},
		func(t *testing.T, seq workerid.Sequence) workerid.Source {
			c, err := NewCatalog(apis.get(t), "floe", "prod")
			if err != nil {
				t.Fatal(err)
			}
			s, err := c.Source(seq, Config{IDs: 4, TTL: 5 * time.Second, Owner: "a"})
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
}
