package kube

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

func TestRESTConfig_NotInCluster(t *testing.T) {
	tests := []struct {
		name, host, port, want string
	}{
		{"no host", "", "443", "KUBERNETES_SERVICE_HOST is not set"},
		{"no port", "10.0.0.1", "", "KUBERNETES_SERVICE_PORT is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KUBERNETES_SERVICE_HOST", tt.host)
			t.Setenv("KUBERNETES_SERVICE_PORT", tt.port)
			_, _, err := RESTConfig("")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("RESTConfig outside a pod: %v, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestNewClient(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:6443", UserAgent: "app", QPS: 5, Burst: 10}
	cli, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cli == nil || cfg.UserAgent != "app" || cfg.QPS != 5 {
		t.Fatalf("NewClient changed its config: %+v", cfg)
	}
	if _, err := NewClient(nil); err != ErrNoClient {
		t.Fatalf("NewClient(nil): %v, want ErrNoClient", err)
	}
}

// TestNewClient_Protobuf: a Client sends and asks for protobuf, which
// costs the API server and the client less CPU than JSON for a claim's
// list of a generation's Leases (cluster/scale TestScaleKube).
func TestNewClient_Protobuf(t *testing.T) {
	var mu sync.Mutex
	var accept, ctype string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accept, ctype = r.Header.Get("Accept"), r.Header.Get("Content-Type")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
	}))
	defer srv.Close()
	cli, err := NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	obj := &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "floe"}}
	if _, err := cli.Leases("floe").Update(t.Context(), obj, metav1.UpdateOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("Update: %v, want the server's NotFound", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.HasPrefix(accept, "application/vnd.kubernetes.protobuf") || ctype != "application/vnd.kubernetes.protobuf" {
		t.Errorf("Accept %q, Content-Type %q; want protobuf first and protobuf", accept, ctype)
	}
}
