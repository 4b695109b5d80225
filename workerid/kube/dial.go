package kube

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// The service account's files in a pod.
const (
	serviceAccountDir       = "/var/run/secrets/kubernetes.io/serviceaccount/"
	serviceAccountNamespace = serviceAccountDir + "namespace"
)

// RESTConfig returns the configuration to reach the API server: in the
// cluster (the pod's service account token and CA, the namespace of the
// service account) when kubeconfig is "", else from the kubeconfig file
// (its current context, and that context's namespace, "default" when it
// has none). Errors name the file or the missing in-cluster variable.
func RESTConfig(kubeconfig string) (cfg *rest.Config, namespace string, err error) {
	if kubeconfig == "" {
		for _, v := range []string{"KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"} {
			if os.Getenv(v) == "" {
				return nil, "", fmt.Errorf("floe: not in a Kubernetes pod: %s is not set (give a kubeconfig file outside the cluster)", v)
			}
		}
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, "", fmt.Errorf("floe: the pod's service account (%s): %w", serviceAccountDir, err)
		}
		ns, err := os.ReadFile(serviceAccountNamespace)
		if err != nil {
			return nil, "", fmt.Errorf("floe: the pod's namespace: %w", err)
		}
		return cfg, strings.TrimSpace(string(ns)), nil
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig}, &clientcmd.ConfigOverrides{})
	cfg, err = cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("floe: kubeconfig %s: %w", kubeconfig, err)
	}
	namespace, _, err = cc.Namespace()
	if err != nil {
		return nil, "", fmt.Errorf("floe: kubeconfig %s: its namespace: %w", kubeconfig, err)
	}
	return cfg, namespace, nil
}

// verbs are what floe does with leases: a Role must grant them all.
var verbs = []string{"get", "list", "watch", "create", "update", "delete"}

// Check asks the API server, within ctx, whether the identity of cfg may
// get, list, watch, create, update and delete leases in namespace: a list
// of at most one Lease, then a SelfSubjectAccessReview per verb (which
// every authenticated identity may ask). It returns an error naming the
// namespace and the first verb missing, wrapping ErrForbidden (or
// ErrUnauthorized for credentials refused).
func Check(ctx context.Context, cfg *rest.Config, namespace string) error {
	if err := checkNamespace(namespace); err != nil {
		return err
	}
	cli, err := NewClient(cfg)
	if err != nil {
		return err
	}
	if _, err := cli.Leases(namespace).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		return fmt.Errorf("floe: checking access to leases: %w", explain(err, "list", namespace, ""))
	}
	var missing []string
	for _, verb := range verbs {
		allowed, err := cli.review(ctx, namespace, verb)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("floe: checking access to leases in namespace %s: %w", namespace, errors.Join(err, ctx.Err()))
			}
			return nil // no reviews here: the list alone answered
		}
		if !allowed {
			missing = append(missing, verb)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: the identity may not %s leases in namespace %s: it needs a Role there on leases with every verb floe uses (see deploy/kubernetes)",
			ErrForbidden, strings.Join(missing, ", "), namespace)
	}
	return nil
}
