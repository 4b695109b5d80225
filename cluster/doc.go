// Package cluster holds floe's tests against real coordination engines
// that are too heavy for the main module's dependency graph: an embedded
// etcd (three members for the cluster tests), floed processes in a
// cluster, the fault scenarios and the randomized soak, and the Kubernetes
// manifests decoded with the Kubernetes API types and run as written
// (kube). It is a module of its own, so the library's users never
// download the etcd server or the Kubernetes API.
package cluster
