package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/workerid"
)

// recorder records the requests made through it, one line each.
type recorder struct {
	LeasesGetter
	mu   sync.Mutex
	reqs []string // guarded by mu
}

func (r *recorder) Leases(ns string) Leases { return recLeases{r.LeasesGetter.Leases(ns), r} }

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	r.reqs = append(r.reqs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

// take returns the requests recorded since the last take.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.reqs
	r.reqs = nil
	return got
}

type recLeases struct {
	Leases
	r *recorder
}

func (l recLeases) Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordv1.Lease, error) {
	l.r.add("get %s", name)
	return l.Leases.Get(ctx, name, opts)
}

func (l recLeases) List(ctx context.Context, opts metav1.ListOptions) (*coordv1.LeaseList, error) {
	sel := "all"
	if opts.LabelSelector != sourceSelector {
		sel = "owner's"
	}
	l.r.add("list %s rv=%q %s", sel, opts.ResourceVersion, opts.ResourceVersionMatch)
	return l.Leases.List(ctx, opts)
}

func (l recLeases) Create(ctx context.Context, obj *coordv1.Lease, opts metav1.CreateOptions) (*coordv1.Lease, error) {
	l.r.add("create %s", obj.Name)
	return l.Leases.Create(ctx, obj, opts)
}

func (l recLeases) Update(ctx context.Context, obj *coordv1.Lease, opts metav1.UpdateOptions) (*coordv1.Lease, error) {
	l.r.add("update %s", obj.Name)
	return l.Leases.Update(ctx, obj, opts)
}

// sourceSelector selects the Leases of Prefix "floe-".
var sourceSelector = labelSource + "=" + sourceLabel("floe-")

// TestClaim_Requests: a claim tries the Owner's released worker ID and
// random IDs without a Lease before it lists every Lease; a first refusal
// is another's write, read back never; lists after a Source's first ask
// for no older than the one before.
func TestClaim_Requests(t *testing.T) {
	clock := floetest.NewClock(time.Unix(1000, 0))
	api := newFakeAPI()
	newSrc := func(owner string) (*Source, *recorder) {
		t.Helper()
		rec := &recorder{LeasesGetter: api}
		s, err := NewSource(rec, Config{Namespace: "floe", Prefix: "floe-", IDs: 1, TTL: 30 * time.Second, Owner: owner, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		return s, rec
	}
	claim := func(s *Source) workerid.Lease {
		t.Helper()
		l, err := s.Claim(ctx(t))
		if err != nil {
			t.Fatalf("Claim: %v", err)
		}
		return l
	}
	check := func(step string, rec *recorder, want ...string) {
		t.Helper()
		if got := rec.take(); !slices.Equal(got, want) {
			t.Errorf("%s: requests\n%q\nwant\n%q", step, got, want)
		}
	}

	a, recA := newSrc("a")
	la := claim(a)
	check("first claim, no Lease", recA, `list owner's rv="0" `, "create floe-0")
	if err := la.Release(ctx(t), 0); err != nil {
		t.Fatal(err)
	}
	recA.take()

	// The Owner restarted: its new Source takes its released ID back
	// without listing every Lease.
	a2, recA2 := newSrc("a")
	la2 := claim(a2)
	check("the Owner's released ID", recA2, `list owner's rv="0" `, "update floe-0")
	defer la2.Release(ctx(t), 0)

	// Another Owner finds the only ID held: its probe is refused at the
	// first attempt, which needs no read; then it lists, consistently the
	// first time, no older than the last list after.
	b, recB := newSrc("b")
	for i, wantList := range []string{`list all rv="" `, `list all rv="%s" NotOlderThan`} {
		if i > 0 {
			b.mu.Lock()
			wantList = fmt.Sprintf(wantList, b.rv)
			b.mu.Unlock()
		}
		_, err := b.Claim(ctx(t))
		if !errors.Is(err, workerid.ErrExhausted) {
			t.Fatalf("claim %d of a held ID: %v, want ErrExhausted", i+1, err)
		}
		check(fmt.Sprintf("claim %d of a held ID", i+1), recB, `list owner's rv="0" `, "create floe-0", wantList)
	}
}
