package kube

import (
	"context"
	"fmt"
	"strings"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/floeid/floe/workerid"
)

// finish finishes the destroy of the generation of r, whose record obj is
// marked destroying. Each step may be run again after a crash:
//
//  1. List the namespace's Leases (a consistent list) and keep the worker
//     Leases of the generation, by name, not by label: a label edited by
//     hand hides no holder.
//  2. Tombstone each one with an Update carrying its resourceVersion:
//     state retired, no holder. A holder's next write then conflicts and
//     it stops; its R in the tombstone is final.
//  3. Retired tick = the highest over them of R, or the last tick of one
//     released cleanly and not claimed since.
//  4. Record the generation retired, with Retired = {gen, spec, tick}
//     when tick > 0 (else the previous Retired stays), carrying the
//     record's resourceVersion.
//  5. Delete the tombstones and the leftovers of older generations, best
//     effort.
//
// A worker Lease that does not decode stops the destroy with an error
// naming it: floe does not guess the generation's Retired.
func (c *Catalog) finish(ctx context.Context, obj *coordv1.Lease, r record) error {
	prefix := genPrefix(obj.Name, r.gen)
	fail := func(err error) error {
		return fmt.Errorf("floe: destroying sequence %q generation %d: %w", r.name, r.gen, err)
	}
	var list *coordv1.LeaseList
	err := c.call(ctx, func(ctx context.Context) (err error) {
		list, err = c.leases.List(ctx, metav1.ListOptions{})
		return err
	})
	if err != nil {
		return fail(explain(err, "list", c.namespace, ""))
	}
	var tick uint64
	var tombs, leftovers []*coordv1.Lease
	for i := range list.Items {
		item := &list.Items[i]
		if isRecord(item) {
			continue
		}
		if gen, ok := workerGen(obj.Name, item.Name); ok && gen < r.gen {
			leftovers = append(leftovers, item)
			continue
		}
		if !isWorkerName(prefix, item.Name) {
			continue
		}
		t, tomb, err := c.tombstone(ctx, item)
		if err != nil {
			return fail(err)
		}
		tick = max(tick, t)
		if tomb != nil {
			tombs = append(tombs, tomb)
		}
	}
	done := r
	done.state = stateRetired
	if tick > 0 {
		done.retired = workerid.Retired{Gen: r.gen, Spec: r.spec, Tick: tick}
	}
	for {
		next := obj.DeepCopy()
		setRecord(next, done)
		err := c.call(ctx, func(ctx context.Context) (err error) {
			_, err = c.leases.Update(ctx, next, metav1.UpdateOptions{})
			return err
		})
		if err == nil {
			break
		}
		if !apierrors.IsConflict(err) {
			return fail(explain(err, "update", c.namespace, obj.Name))
		}
		// Another finish, or an attempt of this one's, recorded it; or
		// something else changed the record: read it again.
		cur, cr, err := c.read(ctx, r.name)
		if err != nil {
			return fail(err)
		}
		if cur == nil || cr.state != stateDestroying || cr.gen != r.gen {
			break
		}
		obj = cur
	}
	for _, l := range append(tombs, leftovers...) {
		rv := l.ResourceVersion
		_ = c.call(ctx, func(ctx context.Context) error {
			err := c.leases.Delete(ctx, l.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}})
			if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
				return nil // gone already, or changed: a later finish sees it
			}
			return err
		})
	}
	return nil
}

// tombstone retires one worker Lease and returns the highest tick its
// holders could have issued, with the tombstone; no tombstone when the
// object is gone.
func (c *Catalog) tombstone(ctx context.Context, item *coordv1.Lease) (uint64, *coordv1.Lease, error) {
	for {
		w, err := decodeWorker(item)
		if err != nil {
			return 0, nil, err
		}
		// The last tick of a clean release, which a claim clears; else R.
		tick := w.reserved
		if w.holder == "" && w.last > 0 {
			tick = w.last
		}
		if w.retired {
			return tick, item, nil
		}
		next := item.DeepCopy()
		w.retired, w.holder = true, ""
		setWorker(next, w)
		var got *coordv1.Lease
		err = c.call(ctx, func(ctx context.Context) (err error) {
			got, err = c.leases.Update(ctx, next, metav1.UpdateOptions{})
			return err
		})
		switch {
		case err == nil:
			return tick, got, nil
		case apierrors.IsNotFound(err):
			return 0, nil, nil
		case !apierrors.IsConflict(err):
			return 0, nil, explain(err, "update", c.namespace, item.Name)
		}
		// A holder's write (or this tombstone's, applied late): read it
		// and tombstone what it wrote.
		err = c.call(ctx, func(ctx context.Context) (err error) {
			item, err = c.leases.Get(ctx, item.Name, metav1.GetOptions{})
			return err
		})
		if apierrors.IsNotFound(err) {
			return 0, nil, nil
		}
		if err != nil {
			return 0, nil, explain(err, "get", c.namespace, next.Name)
		}
	}
}

// isRecord reports whether l is a catalog record, never a worker Lease,
// whatever its name.
func isRecord(l *coordv1.Lease) bool {
	_, ok := l.Annotations[annSequence]
	return ok || l.Labels[labelKind] == kindSequence
}

// isWorkerName reports whether name is prefix followed by a worker ID in
// canonical decimal.
func isWorkerName(prefix, name string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	_, ok = parseUint(rest)
	return ok
}

// workerGen returns the generation of a worker Lease of the sequence
// whose record is named record: record-g<gen>-<id>.
func workerGen(record, name string) (int64, bool) {
	rest, ok := strings.CutPrefix(name, record+"-g")
	if !ok {
		return 0, false
	}
	g, id, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	gen, okGen := parseUint(g)
	_, okID := parseUint(id)
	if !okGen || !okID || gen < 1 || gen > 1<<62 {
		return 0, false
	}
	return int64(gen), true
}
