package kube

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// fakeAPI is an in-memory API server for Leases, with resourceVersion
// preconditions as a real one has them, for tests of the logic that need
// no server. A hook may fail a request before it applies, or after (the
// reply lost).
type fakeAPI struct {
	mu   sync.Mutex
	rv   int64                     // guarded by mu
	objs map[string]*coordv1.Lease // guarded by mu: by namespace/name
	// before, when set, runs before each request: an error fails it.
	before func(verb, ns, name string) error // guarded by mu
	// after, when set, runs after each applied write: an error replaces
	// the reply (the write applied, its answer lost).
	after func(verb, ns, name string) error // guarded by mu
}

var leasesResource = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

func newFakeAPI() *fakeAPI { return &fakeAPI{objs: make(map[string]*coordv1.Lease)} }

func (f *fakeAPI) Leases(ns string) Leases { return &fakeLeases{f: f, ns: ns} }

// setHooks sets before and after (nil: none).
func (f *fakeAPI) setHooks(before, after func(verb, ns, name string) error) {
	f.mu.Lock()
	f.before, f.after = before, after
	f.mu.Unlock()
}

// edit changes a stored object as a hand edit would (a new
// resourceVersion) and returns it.
func (f *fakeAPI) edit(ns, name string, change func(*coordv1.Lease)) *coordv1.Lease {
	f.mu.Lock()
	defer f.mu.Unlock()
	o := f.objs[ns+"/"+name]
	if o == nil {
		return nil
	}
	change(o)
	f.rv++
	o.ResourceVersion = strconv.FormatInt(f.rv, 10)
	return o.DeepCopy()
}

// get returns a stored object, nil when none.
func (f *fakeAPI) get(ns, name string) *coordv1.Lease {
	f.mu.Lock()
	defer f.mu.Unlock()
	if o := f.objs[ns+"/"+name]; o != nil {
		return o.DeepCopy()
	}
	return nil
}

type fakeLeases struct {
	f  *fakeAPI
	ns string
}

// do runs one request under the lock: the before hook, op, the after hook.
func (l *fakeLeases) do(ctx context.Context, verb, name string, op func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.f.mu.Lock()
	defer l.f.mu.Unlock()
	if l.f.before != nil {
		if err := l.f.before(verb, l.ns, name); err != nil {
			return err
		}
	}
	if err := op(); err != nil {
		return err
	}
	if l.f.after != nil {
		return l.f.after(verb, l.ns, name)
	}
	return nil
}

func (l *fakeLeases) next() string {
	l.f.rv++
	return strconv.FormatInt(l.f.rv, 10)
}

func (l *fakeLeases) Create(ctx context.Context, obj *coordv1.Lease, _ metav1.CreateOptions) (*coordv1.Lease, error) {
	var out *coordv1.Lease
	err := l.do(ctx, "create", obj.Name, func() error {
		key := l.ns + "/" + obj.Name
		if l.f.objs[key] != nil {
			return apierrors.NewAlreadyExists(leasesResource, obj.Name)
		}
		o := obj.DeepCopy()
		o.Namespace, o.ResourceVersion = l.ns, l.next()
		l.f.objs[key] = o
		out = o.DeepCopy()
		return nil
	})
	return out, err
}

func (l *fakeLeases) Update(ctx context.Context, obj *coordv1.Lease, _ metav1.UpdateOptions) (*coordv1.Lease, error) {
	var out *coordv1.Lease
	err := l.do(ctx, "update", obj.Name, func() error {
		key := l.ns + "/" + obj.Name
		cur := l.f.objs[key]
		switch {
		case cur == nil:
			return apierrors.NewNotFound(leasesResource, obj.Name)
		case obj.ResourceVersion != "" && obj.ResourceVersion != cur.ResourceVersion:
			return apierrors.NewConflict(leasesResource, obj.Name, errors.New("the object has been modified"))
		}
		o := obj.DeepCopy()
		o.Namespace, o.ResourceVersion = l.ns, l.next()
		l.f.objs[key] = o
		out = o.DeepCopy()
		return nil
	})
	return out, err
}

func (l *fakeLeases) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return l.do(ctx, "delete", name, func() error {
		key := l.ns + "/" + name
		cur := l.f.objs[key]
		switch {
		case cur == nil:
			return apierrors.NewNotFound(leasesResource, name)
		case opts.Preconditions != nil && opts.Preconditions.ResourceVersion != nil && *opts.Preconditions.ResourceVersion != cur.ResourceVersion:
			return apierrors.NewConflict(leasesResource, name, errors.New("precondition failed"))
		}
		delete(l.f.objs, key)
		return nil
	})
}

func (l *fakeLeases) Get(ctx context.Context, name string, _ metav1.GetOptions) (*coordv1.Lease, error) {
	var out *coordv1.Lease
	err := l.do(ctx, "get", name, func() error {
		cur := l.f.objs[l.ns+"/"+name]
		if cur == nil {
			return apierrors.NewNotFound(leasesResource, name)
		}
		out = cur.DeepCopy()
		return nil
	})
	return out, err
}

func (l *fakeLeases) List(ctx context.Context, opts metav1.ListOptions) (*coordv1.LeaseList, error) {
	sel, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	out := &coordv1.LeaseList{}
	err = l.do(ctx, "list", "", func() error {
		out.ResourceVersion = strconv.FormatInt(l.f.rv, 10)
		for _, o := range l.f.objs {
			if o.Namespace == l.ns && sel.Matches(labels.Set(o.Labels)) {
				out.Items = append(out.Items, *o.DeepCopy())
			}
		}
		return nil
	})
	return out, err
}

// Watch is not served: WaitGone falls back to reading the record.
func (l *fakeLeases) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return nil, apierrors.NewMethodNotSupported(leasesResource, "watch")
}

// failOn returns a before hook failing the n-th request of verb (1 for
// the first) with err, and every later one too when sticky.
func failOn(verb string, n int, err error, sticky bool) func(v, ns, name string) error {
	seen := 0
	return func(v, _, _ string) error {
		if v != verb {
			return nil
		}
		seen++
		if seen == n || sticky && seen > n {
			return err
		}
		return nil
	}
}

var errNoReply = fmt.Errorf("fake: %w", context.DeadlineExceeded)
