package kube

import (
	"strings"
	"testing"

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
