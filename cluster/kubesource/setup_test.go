package kubesource_test

import (
	"context"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/floeid/floe/workerid/kube"
)

// opTimeout bounds one Source or Catalog operation in these tests.
const opTimeout = 20 * time.Second

func ctxFor(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	tb.Cleanup(cancel)
	return ctx
}

// client returns floe's coordination client over cfg, as a process on
// another host would have.
func client(tb testing.TB, cfg *rest.Config) kube.LeasesGetter {
	tb.Helper()
	cli, err := kube.NewClient(cfg)
	if err != nil {
		tb.Fatalf("NewClient: %v", err)
	}
	return cli
}

func newSource(tb testing.TB, cli kube.LeasesGetter, cfg kube.Config) *kube.Source {
	tb.Helper()
	s, err := kube.NewSource(cli, cfg)
	if err != nil {
		tb.Fatalf("NewSource: %v", err)
	}
	return s
}

func newCatalog(tb testing.TB, cli kube.LeasesGetter, ns, cluster string) *kube.Catalog {
	tb.Helper()
	c, err := kube.NewCatalog(cli, ns, cluster)
	if err != nil {
		tb.Fatalf("NewCatalog: %v", err)
	}
	return c
}

// edit changes the Lease ns/name as an operator's kubectl edit would,
// again on a conflict with a renewal, and returns it as written.
func edit(tb testing.TB, cli kube.LeasesGetter, ns, name string, change func(*coordv1.Lease)) *coordv1.Lease {
	tb.Helper()
	for {
		l, err := cli.Leases(ns).Get(ctxFor(tb), name, metav1.GetOptions{})
		if err != nil {
			tb.Fatalf("reading Lease %s/%s: %v", ns, name, err)
		}
		change(l)
		got, err := cli.Leases(ns).Update(ctxFor(tb), l, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			continue
		}
		if err != nil {
			tb.Fatalf("editing Lease %s/%s: %v", ns, name, err)
		}
		return got
	}
}

// leaseNames returns the names of the Leases in ns.
func leaseNames(tb testing.TB, cli kube.LeasesGetter, ns string) map[string]*coordv1.Lease {
	tb.Helper()
	list, err := cli.Leases(ns).List(ctxFor(tb), metav1.ListOptions{})
	if err != nil {
		tb.Fatalf("listing Leases in %s: %v", ns, err)
	}
	m := make(map[string]*coordv1.Lease)
	for i := range list.Items {
		m[list.Items[i].Name] = &list.Items[i]
	}
	return m
}

func ptr[T any](v T) *T { return &v }
