package kubesource_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/floeid/floe/cluster/kubetest"
	"github.com/floeid/floe/workerid/kube"
)

// TestAccess_Forbidden: an identity whose Role lacks a verb on leases
// gets an error wrapping kube.ErrForbidden that names the namespace and
// the verb, from a claim, a reservation, a catalog and Check.
func TestAccess_Forbidden(t *testing.T) {
	api := kubetest.Start(t)
	full, fullCfg := api.Namespace(t)
	if err := kube.Check(ctxFor(t), fullCfg, full); err != nil {
		t.Fatalf("Check with the documented Role: %v", err)
	}

	t.Run("no Role", func(t *testing.T) {
		ns, rc := api.NamespaceWith(t, nil)
		src := newSource(t, client(t, rc), kube.Config{Namespace: ns, Prefix: "floe-", IDs: 2, Owner: "a"})
		_, err := src.Claim(ctxFor(t))
		wantForbidden(t, "Claim", err, ns, "list")
		_, err = newCatalog(t, client(t, rc), ns, "prod").Create(ctxFor(t), "orders", "spec")
		wantForbidden(t, "Catalog.Create", err, ns, "get")
		wantForbidden(t, "Check", kube.Check(ctxFor(t), rc, ns), ns, "list")
	})

	t.Run("another namespace", func(t *testing.T) {
		// The account of full in a namespace where it has no Role.
		other, _ := api.NamespaceWith(t, nil)
		src := newSource(t, client(t, fullCfg), kube.Config{Namespace: other, Prefix: "floe-", IDs: 2, Owner: "a"})
		_, err := src.Claim(ctxFor(t))
		wantForbidden(t, "Claim", err, other, "list")
	})

	t.Run("no update", func(t *testing.T) {
		ns, rc := api.NamespaceWith(t, []rbacv1.PolicyRule{{
			APIGroups: []string{"coordination.k8s.io"},
			Resources: []string{"leases"},
			Verbs:     []string{"get", "list", "watch", "create", "delete"},
		}})
		wantForbidden(t, "Check", kube.Check(ctxFor(t), rc, ns), ns, "update")
		src := newSource(t, client(t, rc), kube.Config{Namespace: ns, Prefix: "floe-", IDs: 1, TTL: 10 * time.Second, Owner: "a"})
		l, err := src.Claim(ctxFor(t)) // a create: allowed
		if err != nil {
			t.Fatalf("Claim creating the Lease: %v", err)
		}
		err = l.Reserve(ctxFor(t), 100)
		wantForbidden(t, "Reserve", err, ns, "update")
		if l.Reserved() != 0 {
			t.Errorf("Reserved() = %d after a forbidden Reserve, want 0", l.Reserved())
		}
		if err := l.Release(ctxFor(t), 0); !errors.Is(err, kube.ErrForbidden) {
			t.Errorf("Release: %v, want ErrForbidden", err)
		}
	})
}

// wantForbidden fails t unless err wraps kube.ErrForbidden and names the
// namespace and the verb.
func wantForbidden(t *testing.T, what string, err error, ns, verb string) {
	t.Helper()
	if !errors.Is(err, kube.ErrForbidden) {
		t.Fatalf("%s: %v, want ErrForbidden", what, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "may not "+verb+" leases in namespace "+ns) {
		t.Errorf("%s: %q, want it to say the identity may not %s leases in namespace %s", what, msg, verb, ns)
	}
}
