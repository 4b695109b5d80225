package kubetest_test

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/floeid/floe/cluster/kubetest"
)

func clientOf(t *testing.T, cfg *rest.Config) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func lease(name string) *coordinationv1.Lease {
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// The namespace's account has the Role's rights and no others, and the
// API server keeps its objects across a restart of itself and of etcd.
func TestAPIServer(t *testing.T) {
	s := kubetest.Start(t)
	ns, cfg := s.Namespace(t)
	cs := clientOf(t, cfg)
	leases := cs.CoordinationV1().Leases(ns)
	if _, err := leases.Create(ctx(t), lease("a"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a Lease with the Role's rights: %v", err)
	}
	tests := []struct {
		name string
		do   func() error
	}{
		{"a Lease in another namespace", func() error {
			_, err := cs.CoordinationV1().Leases("default").Create(ctx(t), lease("a"), metav1.CreateOptions{})
			return err
		}},
		{"a ConfigMap in its namespace", func() error {
			_, err := cs.CoreV1().ConfigMaps(ns).List(ctx(t), metav1.ListOptions{})
			return err
		}},
		{"the namespaces", func() error {
			_, err := cs.CoreV1().Namespaces().List(ctx(t), metav1.ListOptions{})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.do(); !apierrors.IsForbidden(err) {
				t.Fatalf("got %v, want forbidden", err)
			}
		})
	}
	// Without a Role, nothing.
	bare, bareCfg := s.NamespaceWith(t, nil)
	if _, err := clientOf(t, bareCfg).CoordinationV1().Leases(bare).List(ctx(t), metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("listing Leases without a Role: %v, want forbidden", err)
	}

	s.Restart()
	if _, err := leases.Get(ctx(t), "a", metav1.GetOptions{}); err != nil {
		t.Fatalf("after the API server's restart: %v", err)
	}
	m := s.Etcd.Members()[0]
	m.Stop()
	c, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	_, err := leases.Get(c, "a", metav1.GetOptions{})
	cancel()
	if err == nil {
		t.Fatal("a consistent read succeeded with etcd stopped")
	}
	m.Restart(t)
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := leases.Get(ctx(t), "a", metav1.GetOptions{})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after etcd's restart: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A proxy in front of the server cuts one client off, silently.
func TestAPIServer_Proxy(t *testing.T) {
	s := kubetest.Start(t)
	ns, cfg := s.Namespace(t)
	pcfg, p := s.Proxy(t, cfg)
	pcfg.Timeout = time.Second
	leases := clientOf(t, pcfg).CoordinationV1().Leases(ns)
	if _, err := leases.List(ctx(t), metav1.ListOptions{}); err != nil {
		t.Fatalf("through the proxy: %v", err)
	}
	p.Blackhole(true)
	start := time.Now()
	_, err := leases.List(ctx(t), metav1.ListOptions{})
	var ne net.Error
	if err == nil || !(errors.As(err, &ne) && ne.Timeout() || strings.Contains(err.Error(), "deadline") || strings.Contains(err.Error(), "Timeout")) {
		t.Fatalf("through a black hole: %v, want a timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the request through a black hole took %v, want its 1 s timeout", d)
	}
	p.Blackhole(false)
	// The direct path never noticed.
	if _, err := clientOf(t, cfg).CoordinationV1().Leases(ns).List(ctx(t), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
}

// kubectl, built beside the server, reads the kubeconfig Kubeconfig writes.
func TestAPIServer_Kubeconfig(t *testing.T) {
	s := kubetest.Start(t)
	ns, cfg := s.Namespace(t)
	path := s.Kubeconfig(t, cfg, ns)
	cmd := exec.Command(kubetest.Kubectl(t), "--kubeconfig", path, "create", "-f", "-")
	cmd.Stdin = strings.NewReader("apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: from-kubectl\n")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kubectl create: %v\n%s", err, out)
	}
	if _, err := clientOf(t, cfg).CoordinationV1().Leases(ns).Get(ctx(t), "from-kubectl", metav1.GetOptions{}); err != nil {
		t.Fatalf("the Lease kubectl created in the kubeconfig's namespace: %v", err)
	}
}
