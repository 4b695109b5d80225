package kubesource_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/floeid/floe/cluster/kubetest"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/kube"
	"github.com/floeid/floe/workerid/workeridtest"
)

// hooked wraps a client: hook runs before each Update, Delete and List
// (obj nil but for an Update); an error it returns fails the request as
// if the process had stopped there (a 400, which nothing retries).
type hooked struct {
	kube.LeasesGetter
	hook func(verb string, obj *coordv1.Lease, opts metav1.ListOptions) error
}

func (h *hooked) Leases(ns string) kube.Leases {
	return &hookedLeases{h.LeasesGetter.Leases(ns), h}
}

type hookedLeases struct {
	kube.Leases
	h *hooked
}

func (l *hookedLeases) Update(ctx context.Context, obj *coordv1.Lease, opts metav1.UpdateOptions) (*coordv1.Lease, error) {
	if err := l.h.hook("update", obj, metav1.ListOptions{}); err != nil {
		return nil, err
	}
	return l.Leases.Update(ctx, obj, opts)
}

func (l *hookedLeases) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	if err := l.h.hook("delete", nil, metav1.ListOptions{}); err != nil {
		return err
	}
	return l.Leases.Delete(ctx, name, opts)
}

func (l *hookedLeases) List(ctx context.Context, opts metav1.ListOptions) (*coordv1.LeaseList, error) {
	if err := l.h.hook("list", nil, opts); err != nil {
		return nil, err
	}
	return l.Leases.List(ctx, opts)
}

var errCrash = apierrors.NewBadRequest("test: the process stopped here")

// isRecord reports whether obj is a catalog record.
func isRecord(obj *coordv1.Lease) bool { return obj.Labels["floe.dev/kind"] == "sequence" }

// generation sets up a sequence whose worker IDs could have issued up to
// 3000: one held at R 1000, one held at R 3000, one released cleanly at
// 800 below its R of 5000.
func generation(t *testing.T, cli kube.LeasesGetter, ns string) (workerid.Sequence, []workerid.Lease) {
	t.Helper()
	cat := newCatalog(t, cli, ns, "prod")
	seq, err := cat.Create(ctxFor(t), "orders", "spec-a")
	if err != nil {
		t.Fatal(err)
	}
	src, err := cat.Source(seq, kube.Config{IDs: 3, TTL: 10 * time.Second, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	var leases []workerid.Lease
	for _, r := range []uint64{1000, 3000, 5000} {
		l, err := src.Claim(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Reserve(ctxFor(t), r); err != nil {
			t.Fatal(err)
		}
		leases = append(leases, l)
	}
	if err := leases[2].Release(ctxFor(t), 800); err != nil {
		t.Fatal(err)
	}
	return seq, leases[:2]
}

// TestCatalog_DestroyCrash stops a Destroy at each of its steps, as a
// process killed there would: after the record is marked destroying,
// after some worker Leases are tombstoned, after the record is retired
// but before the tombstones are deleted. A later Create or Destroy
// finishes it: every holder's lease ends, the next generation's Retired
// is the highest tick the destroyed one could have issued, and the
// tombstones go.
func TestCatalog_DestroyCrash(t *testing.T) {
	api := kubetest.Start(t)
	tests := []struct {
		name string
		// crash fails the n-th request it is asked about.
		crash  func(verb string, obj *coordv1.Lease, n map[string]int) bool
		finish string // "destroy" or "create"
	}{
		{"after marking destroying", func(verb string, obj *coordv1.Lease, n map[string]int) bool {
			return verb == "update" && !isRecord(obj)
		}, "destroy"},
		{"after tombstoning one worker Lease", func(verb string, obj *coordv1.Lease, n map[string]int) bool {
			if verb != "update" || isRecord(obj) {
				return false
			}
			n["worker"]++
			return n["worker"] == 2
		}, "create"},
		{"after recording, before deleting", func(verb string, obj *coordv1.Lease, n map[string]int) bool {
			return verb == "delete"
		}, "create"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns, rc := api.Namespace(t)
			cli := client(t, rc)
			seq, held := generation(t, cli, ns)
			var mu sync.Mutex
			n := make(map[string]int)
			crashing := &hooked{cli, func(verb string, obj *coordv1.Lease, _ metav1.ListOptions) error {
				mu.Lock()
				defer mu.Unlock()
				if tt.crash(verb, obj, n) {
					return errCrash
				}
				return nil
			}}
			err := newCatalog(t, crashing, ns, "prod").Destroy(ctxFor(t), "orders")
			if verb := "delete"; tt.crash(verb, nil, map[string]int{}) {
				if err != nil {
					t.Fatalf("Destroy whose deletes fail: %v, want nil (they are best effort)", err)
				}
			} else if !errors.Is(err, errCrash) {
				t.Fatalf("Destroy stopped by the crash: %v", err)
			}
			cat := newCatalog(t, cli, ns, "prod")
			if _, err := cat.Get(ctxFor(t), "orders"); !errors.Is(err, workerid.ErrNotFound) {
				t.Fatalf("Get after the stopped destroy: %v, want ErrNotFound", err)
			}
			if tt.finish == "destroy" {
				if err := cat.Destroy(ctxFor(t), "orders"); err != nil {
					t.Fatalf("Destroy finishing the stopped one: %v", err)
				}
			}
			next, err := cat.Create(ctxFor(t), "orders", "spec-b")
			if err != nil {
				t.Fatalf("Create after the stopped destroy: %v", err)
			}
			want := workerid.Retired{Gen: seq.Gen, Spec: "spec-a", Tick: 3000}
			if next.Gen != seq.Gen+1 || next.Retired != want {
				t.Fatalf("created again: gen %d, Retired %+v; want gen %d, %+v", next.Gen, next.Retired, seq.Gen+1, want)
			}
			for _, l := range held {
				workeridtest.WantLost(t, l, opTimeout)
				if !errors.Is(l.Err(), workerid.ErrNotFound) {
					t.Errorf("worker ID %d: %v, want a loss wrapping ErrNotFound (the sequence was destroyed)", l.ID(), l.Err())
				}
			}
			// A later destroy deletes what the stopped one left.
			if err := cat.Destroy(ctxFor(t), "orders"); err != nil {
				t.Fatal(err)
			}
			for name := range leaseNames(t, cli, ns) {
				if strings.Contains(name, "-g1-") {
					t.Errorf("Lease %s of the destroyed generation 1 is still there", name)
				}
			}
			last, err := cat.Create(ctxFor(t), "orders", "spec-c")
			if err != nil || last.Retired != want {
				t.Fatalf("after an unused generation: %+v, %v; want Retired %+v", last, err, want)
			}
		})
	}
}

// TestCatalog_ClaimRacingDestroy claims worker IDs of a sequence while it
// is destroyed: at the moment Destroy lists the worker Leases (after its
// mark), just after that list, and from claimers running throughout. No
// claim returns a lease that outlives the destroy or reserves above the
// Retired it recorded.
func TestCatalog_ClaimRacingDestroy(t *testing.T) {
	api := kubetest.Start(t)
	for _, when := range []string{"before the list", "after the list"} {
		t.Run("a claim "+when, func(t *testing.T) {
			ns, rc := api.Namespace(t)
			cli := client(t, rc)
			seq, err := newCatalog(t, cli, ns, "prod").Create(ctxFor(t), "orders", "spec-a")
			if err != nil {
				t.Fatal(err)
			}
			src, err := newCatalog(t, cli, ns, "prod").Source(seq, kube.Config{IDs: 2, TTL: 10 * time.Second, Owner: "a"})
			if err != nil {
				t.Fatal(err)
			}
			var claimErr error
			claimed := false
			claim := func() {
				if !claimed {
					claimed = true
					_, claimErr = src.Claim(ctxFor(t))
				}
			}
			var race kube.LeasesGetter = &afterList{cli, claim}
			if when == "before the list" {
				race = &hooked{cli, func(verb string, _ *coordv1.Lease, opts metav1.ListOptions) error {
					if verb == "list" && opts.LabelSelector == "" {
						claim() // the destroy's list of the worker Leases, after its mark
					}
					return nil
				}}
			}
			if err := newCatalog(t, race, ns, "prod").Destroy(ctxFor(t), "orders"); err != nil {
				t.Fatal(err)
			}
			if !claimed {
				t.Fatal("the destroy listed no worker Leases")
			}
			if !errors.Is(claimErr, workerid.ErrNotFound) {
				t.Fatalf("a claim racing the destroy: %v, want ErrNotFound", claimErr)
			}
			if _, err := src.Claim(ctxFor(t)); !errors.Is(err, workerid.ErrNotFound) {
				t.Fatalf("a claim after the destroy: %v, want ErrNotFound", err)
			}
		})
	}
	t.Run("claimers throughout", func(t *testing.T) {
		ns, rc := api.Namespace(t)
		cli := client(t, rc)
		cat := newCatalog(t, cli, ns, "prod")
		seq, err := cat.Create(ctxFor(t), "orders", "spec-a")
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var leases []workerid.Lease // guarded by mu
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i := range 6 {
			src, err := newCatalog(t, client(t, rc), ns, "prod").Source(seq, kube.Config{IDs: 4, TTL: 10 * time.Second, Owner: "host-" + string(rune('a'+i))})
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					l, err := src.Claim(ctxFor(t))
					if errors.Is(err, workerid.ErrNotFound) {
						return // destroyed
					}
					if err != nil {
						continue // exhausted, or a conflict with the destroy
					}
					if l.Reserve(ctxFor(t), l.Floor()+100) == nil && l.ID()%2 == 0 {
						_ = l.Release(ctxFor(t), l.Floor()+50)
					}
					mu.Lock()
					leases = append(leases, l)
					mu.Unlock()
				}
			})
		}
		// The destroy comes once claims have succeeded: 300 ms of them, or,
		// on a loaded machine where none has in that time, the first. No
		// bound is asserted on it.
		time.Sleep(300 * time.Millisecond)
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			n := len(leases)
			mu.Unlock()
			if n > 0 {
				break
			}
		}
		if err := cat.Destroy(ctxFor(t), "orders"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
		close(stop)
		wg.Wait()
		next, err := cat.Create(ctxFor(t), "orders", "spec-a")
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(leases) == 0 {
			t.Fatal("no claim succeeded before the destroy")
		}
		for _, l := range leases {
			if errors.Is(l.Err(), workerid.ErrReleased) {
				continue // it issued up to its last tick, which Retired counts
			}
			workeridtest.WantLost(t, l, opTimeout)
			if l.Reserved() > next.Retired.Tick {
				t.Errorf("worker ID %d (fence %d) reserved %d, above the Retired tick %d", l.ID(), l.Fence(), l.Reserved(), next.Retired.Tick)
			}
		}
	})
}

// afterList runs fn after each List without a label selector (a
// destroy's list of the worker Leases) is served.
type afterList struct {
	kube.LeasesGetter
	fn func()
}

func (a *afterList) Leases(ns string) kube.Leases {
	return &afterListLeases{a.LeasesGetter.Leases(ns), a.fn}
}

type afterListLeases struct {
	kube.Leases
	fn func()
}

func (l *afterListLeases) List(ctx context.Context, opts metav1.ListOptions) (*coordv1.LeaseList, error) {
	list, err := l.Leases.List(ctx, opts)
	if err == nil && opts.LabelSelector == "" {
		l.fn()
	}
	return list, err
}
