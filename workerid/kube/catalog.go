package kube

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/floeid/floe/workerid"
)

// catalogTimeout bounds each call of a Catalog whose context has no
// deadline: catalog changes are rare and an operator is waiting.
const catalogTimeout = 30 * time.Second

// catalogAttempt bounds one attempt of a Catalog's request.
const catalogAttempt = 5 * time.Second

// Catalog keeps a cluster's named sequences as record Leases in one
// namespace: floe-<cluster>-<key>, whose annotations hold the sequence's
// name, state, generation, spec, tokens and Retired. The worker Leases of
// generation G are named floe-<cluster>-<key>-g<G>-<id>. It is safe for
// concurrent use.
type Catalog struct {
	cli       LeasesGetter // immutable
	leases    Leases       // immutable: the namespace's Leases
	namespace string       // immutable
	cluster   string       // immutable
}

var _ workerid.Catalog = (*Catalog)(nil)

// NewCatalog returns the Catalog of cluster (a DNS label of 1 to 40
// bytes) in namespace, using cli.
func NewCatalog(cli LeasesGetter, namespace, cluster string) (*Catalog, error) {
	if cli == nil {
		return nil, ErrNoClient
	}
	if err := checkNamespace(namespace); err != nil {
		return nil, err
	}
	if err := checkCluster(cluster); err != nil {
		return nil, err
	}
	return &Catalog{cli: cli, leases: cli.Leases(namespace), namespace: namespace, cluster: cluster}, nil
}

func (c *Catalog) request(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, catalogTimeout)
}

// call runs one API request in attempts until ctx ends.
func (c *Catalog) call(ctx context.Context, fn func(ctx context.Context) error) error {
	return attempts(ctx, catalogAttempt, nil, fn)
}

// read returns the record Lease of the sequence name and what it holds;
// a nil Lease when there is none.
func (c *Catalog) read(ctx context.Context, name string) (*coordv1.Lease, record, error) {
	rn := recordName(c.cluster, name)
	var obj *coordv1.Lease
	err := c.call(ctx, func(ctx context.Context) (err error) {
		obj, err = c.leases.Get(ctx, rn, metav1.GetOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil, record{}, nil
	}
	if err != nil {
		return nil, record{}, fmt.Errorf("floe: reading sequence %q: %w", name, explain(err, "get", c.namespace, rn))
	}
	r, err := decodeRecord(obj)
	if err != nil {
		return nil, r, err
	}
	if r.name != name {
		return nil, r, fmt.Errorf("floe: sequences %q and %q share the record Lease %s (a hash collision): rename one", name, r.name, objName(obj))
	}
	return obj, r, nil
}

// labels are a record's labels.
func (c *Catalog) labels() map[string]string {
	return map[string]string{labelManagedBy: managedBy, labelCluster: c.cluster, labelKind: kindSequence}
}

// Create defines a sequence: a new record Lease at generation 1, or a
// retired one made live at the next generation with its Retired kept. A
// destroy left unfinished is finished first.
func (c *Catalog) Create(ctx context.Context, name, spec string, tokens ...workerid.TokenHash) (workerid.Sequence, error) {
	if !workerid.ValidName(name) {
		return workerid.Sequence{}, fmt.Errorf("%w: %q", workerid.ErrName, name)
	}
	set := workerid.NewTokens(tokens...)
	ctx, cancel := c.request(ctx)
	defer cancel()
	for {
		obj, r, err := c.read(ctx, name)
		if err != nil {
			return workerid.Sequence{}, err
		}
		want := record{name: name, state: stateLive, gen: 1, spec: spec, tokens: set}
		switch {
		case obj == nil:
			obj = &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: recordName(c.cluster, name), Namespace: c.namespace, Labels: c.labels()}}
			setRecord(obj, want)
			err = c.call(ctx, func(ctx context.Context) (err error) {
				_, err = c.leases.Create(ctx, obj, metav1.CreateOptions{})
				return err
			})
			switch {
			case err == nil:
				return want.sequence(), nil
			case apierrors.IsAlreadyExists(err):
				continue // another create, or an attempt of this one's: read it
			}
			return workerid.Sequence{}, fmt.Errorf("floe: creating sequence %q: %w", name, explain(err, "create", c.namespace, obj.Name))
		case r.state == stateLive:
			if r.spec != spec {
				return workerid.Sequence{}, fmt.Errorf("%w: %q is %q, not %q", workerid.ErrConflict, name, r.spec, spec)
			}
			if len(tokens) > 0 && r.tokens != set {
				return workerid.Sequence{}, fmt.Errorf("%w: %q has other tokens", workerid.ErrConflict, name)
			}
			return r.sequence(), nil
		case r.state == stateDestroying:
			if err := c.finish(ctx, obj, r); err != nil {
				return workerid.Sequence{}, err
			}
			continue
		}
		// Retired: live again at the next generation.
		want.gen, want.retired = r.gen+1, r.retired
		obj = obj.DeepCopy()
		setRecord(obj, want)
		err = c.call(ctx, func(ctx context.Context) (err error) {
			_, err = c.leases.Update(ctx, obj, metav1.UpdateOptions{})
			return err
		})
		switch {
		case err == nil:
			return want.sequence(), nil
		case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
			continue
		}
		return workerid.Sequence{}, fmt.Errorf("floe: creating sequence %q: %w", name, explain(err, "update", c.namespace, obj.Name))
	}
}

// Get returns the named sequence while it is live; destroying or retired
// is not found.
func (c *Catalog) Get(ctx context.Context, name string) (workerid.Sequence, error) {
	if !workerid.ValidName(name) {
		return workerid.Sequence{}, fmt.Errorf("%w: %q", workerid.ErrName, name)
	}
	ctx, cancel := c.request(ctx)
	defer cancel()
	obj, r, err := c.read(ctx, name)
	if err != nil {
		return workerid.Sequence{}, err
	}
	if obj == nil || r.state != stateLive {
		return workerid.Sequence{}, fmt.Errorf("%w: %q", workerid.ErrNotFound, name)
	}
	return r.sequence(), nil
}

// List returns every live sequence, ordered by name.
func (c *Catalog) List(ctx context.Context) ([]workerid.Sequence, error) {
	ctx, cancel := c.request(ctx)
	defer cancel()
	var list *coordv1.LeaseList
	sel := labelCluster + "=" + c.cluster + "," + labelKind + "=" + kindSequence
	err := c.call(ctx, func(ctx context.Context) (err error) {
		list, err = c.leases.List(ctx, metav1.ListOptions{LabelSelector: sel})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("floe: listing sequences: %w", explain(err, "list", c.namespace, ""))
	}
	var seqs []workerid.Sequence
	for i := range list.Items {
		r, err := decodeRecord(&list.Items[i])
		if err != nil {
			return nil, err
		}
		if r.state == stateLive && list.Items[i].Name == recordName(c.cluster, r.name) {
			seqs = append(seqs, r.sequence())
		}
	}
	slices.SortFunc(seqs, func(a, b workerid.Sequence) int { return strings.Compare(a.Name, b.Name) })
	return seqs, nil
}

// Destroy marks the live generation destroying, then finishes the destroy
// (see finish). A destroy another call left unfinished is finished and
// counts as this one.
func (c *Catalog) Destroy(ctx context.Context, name string) error {
	if !workerid.ValidName(name) {
		return fmt.Errorf("%w: %q", workerid.ErrName, name)
	}
	ctx, cancel := c.request(ctx)
	defer cancel()
	for {
		obj, r, err := c.read(ctx, name)
		switch {
		case err != nil:
			return err
		case obj == nil || r.state == stateRetired:
			return fmt.Errorf("%w: %q", workerid.ErrNotFound, name)
		case r.state == stateDestroying:
			return c.finish(ctx, obj, r)
		}
		r.state = stateDestroying
		obj = obj.DeepCopy()
		setRecord(obj, r)
		var got *coordv1.Lease
		err = c.call(ctx, func(ctx context.Context) (err error) {
			got, err = c.leases.Update(ctx, obj, metav1.UpdateOptions{})
			return err
		})
		switch {
		case err == nil:
			return c.finish(ctx, got, r)
		case apierrors.IsConflict(err):
			continue // changed, or marked by an attempt of this call's: read again
		}
		return fmt.Errorf("floe: destroying sequence %q: %w", name, explain(err, "update", c.namespace, obj.Name))
	}
}

// waitPoll bounds how long WaitGone trusts a watch without reading the
// record again, and how long it waits after a failed read.
const (
	waitPoll  = 30 * time.Second
	waitRetry = time.Second
)

// WaitGone reads the record, then watches it from the resourceVersion
// read, until it is no longer live with gen; a watch that ends or fails
// reads it again. Errors are retried until ctx ends.
func (c *Catalog) WaitGone(ctx context.Context, name string, gen int64) error {
	if !workerid.ValidName(name) {
		return fmt.Errorf("%w: %q", workerid.ErrName, name)
	}
	gone := func(obj *coordv1.Lease) bool {
		if obj == nil {
			return true
		}
		r, err := decodeRecord(obj)
		return err == nil && r.name == name && (r.state != stateLive || r.gen != gen)
	}
	for {
		obj, _, err := c.read(ctx, name)
		if err == nil && gone(obj) {
			return nil
		}
		var w watch.Interface
		if err == nil {
			w, err = c.leases.Watch(ctx, metav1.ListOptions{
				FieldSelector:   "metadata.name=" + obj.Name,
				ResourceVersion: obj.ResourceVersion,
			})
		}
		if err != nil {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(waitRetry):
				continue
			}
		}
		done, err := c.follow(ctx, w, gone)
		w.Stop()
		if done || err != nil {
			return err
		}
	}
}

// follow reads the events of a watch on a record until gone says so
// (true), the watch ends or waitPoll passes (false), or ctx ends.
func (c *Catalog) follow(ctx context.Context, w watch.Interface, gone func(*coordv1.Lease) bool) (bool, error) {
	poll := time.NewTimer(waitPoll)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-poll.C:
			return false, nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false, nil
			}
			switch ev.Type {
			case watch.Deleted:
				return true, nil
			case watch.Added, watch.Modified:
				if obj, ok := ev.Object.(*coordv1.Lease); ok && gone(obj) {
					return true, nil
				}
			case watch.Error:
				return false, nil
			}
		}
	}
}

// Source returns the Source of seq's generation: cfg with Namespace and
// Prefix set by the Catalog (cfg's are ignored). Its claims succeed only
// while the sequence is live with seq.Gen; after that they return an
// error wrapping workerid.ErrNotFound.
func (c *Catalog) Source(seq workerid.Sequence, cfg Config) (*Source, error) {
	if !workerid.ValidName(seq.Name) {
		return nil, fmt.Errorf("%w: %q", workerid.ErrName, seq.Name)
	}
	rn := recordName(c.cluster, seq.Name)
	cfg.Namespace, cfg.Prefix = c.namespace, genPrefix(rn, seq.Gen)
	s, err := newSource(c.cli, cfg, map[string]string{
		labelCluster:  c.cluster,
		labelSequence: sequenceKey(seq.Name),
		labelGen:      strconv.FormatInt(seq.Gen, 10),
	})
	if err != nil {
		return nil, err
	}
	s.guard = &guard{record: rn, seq: seq.Name, gen: seq.Gen}
	return s, nil
}
