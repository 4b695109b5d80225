package kube

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// An API server's error says what it means for floe: the object, the verb
// and the cause, with the sentinel errors of a refused identity.
func TestExplain(t *testing.T) {
	leases := schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}
	tests := []struct {
		name   string
		err    error
		lease  string // "" for a list
		want   []string
		wantIs error
	}{
		{
			name: "403", err: apierrors.NewForbidden(leases, "", errors.New("RBAC: no")),
			want:   []string{"may not list leases in namespace ns", "check that the namespace exists and that a Role there on leases is bound to the identity"},
			wantIs: ErrForbidden,
		},
		{
			name: "401", err: apierrors.NewUnauthorized("Unauthorized"), lease: "floe-a-1",
			want:   []string{"list Lease ns/floe-a-1: the credentials were refused", "deleted service account"},
			wantIs: ErrUnauthorized,
		},
		{
			name: "a namespace not found", err: apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "ns"),
			want: []string{"list Leases in namespace ns: namespace ns not found"},
		},
		{
			name: "429", err: apierrors.NewTooManyRequests("Too many requests, please try again later.", 1),
			want: []string{"list Leases in namespace ns: the API server is overloaded (429 Too Many Requests)", "please try again later"},
		},
		{
			name: "503", err: apierrors.NewServiceUnavailable("no healthy upstream"),
			want: []string{"list Leases in namespace ns: the API server answered 503 Service Unavailable: no healthy upstream"},
		},
		{
			name: "500", err: apierrors.NewInternalError(errors.New("etcdserver: request timed out")),
			want: []string{"the API server answered 500 Internal Server Error", "etcdserver: request timed out"},
		},
		{
			name: "a conflict, as it is", err: apierrors.NewConflict(leases, "floe-a-1", errors.New("changed")), lease: "floe-a-1",
			want: []string{"list Lease ns/floe-a-1: Operation cannot be fulfilled"},
		},
		{
			name: "no answer", err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused"),
			want: []string{"list Leases in namespace ns: dial tcp"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := explain(tt.err, "list", "ns", tt.lease)
			for _, w := range tt.want {
				if !strings.Contains(got.Error(), w) {
					t.Errorf("explain = %q, want %q in it", got, w)
				}
			}
			if tt.wantIs != nil && !errors.Is(got, tt.wantIs) {
				t.Errorf("explain = %q, want it to wrap %v", got, tt.wantIs)
			}
			if tt.wantIs == nil && !errors.Is(got, tt.err) {
				t.Errorf("explain = %q, want it to wrap the API's error", got)
			}
		})
	}
}
