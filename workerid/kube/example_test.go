package kube_test

import (
	"errors"
	"fmt"

	"k8s.io/client-go/rest"

	"github.com/floeid/floe/workerid/kube"
)

// RESTConfig names the kubeconfig file it cannot read.
func ExampleRESTConfig() {
	_, _, err := kube.RESTConfig("no-such-kubeconfig")
	fmt.Println(err)
	// Output:
	// floe: kubeconfig no-such-kubeconfig: stat no-such-kubeconfig: no such file or directory
}

// A Catalog's cluster name is a DNS label of 1 to 40 bytes: it begins
// every object name.
func ExampleNewCatalog() {
	cli, err := kube.NewClient(&rest.Config{Host: "https://127.0.0.1:6443"})
	if err != nil {
		panic(err)
	}
	_, err = kube.NewCatalog(cli, "floe", "Prod")
	fmt.Println(err)
	fmt.Println(errors.Is(err, kube.ErrCluster))
	// Output:
	// floe: cluster name must be a DNS label of 1 to 40 bytes: "Prod"
	// true
}

// NewSource checks that the Prefix makes valid object names with every
// worker ID.
func ExampleNewSource() {
	cli, err := kube.NewClient(&rest.Config{Host: "https://127.0.0.1:6443"})
	if err != nil {
		panic(err)
	}
	_, err = kube.NewSource(cli, kube.Config{Namespace: "floe", Prefix: "floe_", IDs: 4})
	fmt.Println(errors.Is(err, kube.ErrPrefix))
	src, err := kube.NewSource(cli, kube.Config{Namespace: "floe", Prefix: "floe-prod-", IDs: 4, Owner: "pod-a"})
	fmt.Println(src != nil, err)
	// Output:
	// true
	// true <nil>
}
