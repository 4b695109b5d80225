package kubesource_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/floeid/floe/cluster/kubetest"
	"github.com/floeid/floe/workerid/kube"
)

// TestConnect: a kubeconfig file gives the server, the credentials and
// the namespace; refused credentials and a missing namespace are named.
func TestConnect(t *testing.T) {
	api := kubetest.Start(t)
	ns, rc := api.Namespace(t)

	t.Run("kubeconfig", func(t *testing.T) {
		cfg, gotNS, err := kube.RESTConfig(api.Kubeconfig(t, rc, ns))
		if err != nil {
			t.Fatalf("RESTConfig: %v", err)
		}
		if gotNS != ns {
			t.Errorf("namespace %q, want %q", gotNS, ns)
		}
		if err := kube.Check(ctxFor(t), cfg, gotNS); err != nil {
			t.Fatalf("Check: %v", err)
		}
		l, err := newSource(t, client(t, cfg), kube.Config{Namespace: gotNS, Prefix: "floe-kubeconfig-", IDs: 1, Owner: "a"}).Claim(ctxFor(t))
		if err != nil {
			t.Fatalf("Claim: %v", err)
		}
		if err := l.Release(ctxFor(t), 0); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("refused credentials", func(t *testing.T) {
		bad := rest.CopyConfig(rc)
		bad.BearerToken = "not-a-token"
		_, err := newSource(t, client(t, bad), kube.Config{Namespace: ns, Prefix: "floe-", IDs: 1, Owner: "a"}).Claim(ctxFor(t))
		if !errors.Is(err, kube.ErrUnauthorized) || !strings.Contains(err.Error(), "credentials were refused") {
			t.Fatalf("Claim with a bad token: %v, want ErrUnauthorized", err)
		}
		if err := kube.Check(ctxFor(t), bad, ns); !errors.Is(err, kube.ErrUnauthorized) {
			t.Fatalf("Check with a bad token: %v, want ErrUnauthorized", err)
		}
	})

	t.Run("missing namespace", func(t *testing.T) {
		_, err := newSource(t, client(t, api.Admin()), kube.Config{Namespace: "floe-missing", Prefix: "floe-", IDs: 1, Owner: "a"}).Claim(ctxFor(t))
		if err == nil || !strings.Contains(err.Error(), "namespace floe-missing not found") {
			t.Fatalf("Claim in a missing namespace: %v, want it to name the namespace", err)
		}
	})
}

// TestLease_Renews: a lease outlives its TTL three times over by
// renewing, and a claimer watching it meanwhile never sees it expire.
func TestLease_Renews(t *testing.T) {
	api := kubetest.Start(t)
	ns, rc := api.Namespace(t)
	cfg := kube.Config{Namespace: ns, Prefix: "floe-renew-", IDs: 1, TTL: 2 * time.Second, Owner: "a"}
	l, err := newSource(t, client(t, rc), cfg).Claim(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	// The other claimer uses client-go's clientset, through Getter.
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Owner = "b"
	other := newSource(t, kube.Getter(cs.CoordinationV1()), cfg)
	for range 12 {
		time.Sleep(500 * time.Millisecond)
		if _, err := other.Claim(ctxFor(t)); err == nil {
			t.Fatal("another claimer took a worker ID that is being renewed")
		}
	}
	left := l.(interface{ Left() time.Duration }).Left()
	if err := l.Err(); err != nil || left <= 0 {
		t.Fatalf("after 6 s of a 2 s TTL: Err %v, Left %v", err, left)
	}
	if err := l.Reserve(ctxFor(t), 100); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctxFor(t), 0); err != nil {
		t.Fatal(err)
	}
}
