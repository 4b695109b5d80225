// Package kube holds no code: its tests check the Kubernetes manifests in
// deploy/kubernetes against the Kubernetes API types and run floed as each
// manifest says.
//
// Each manifest's documents are decoded strictly, by kind, into the typed
// objects of k8s.io/api: an unknown field, a field given twice or a kind
// the tests do not know is an error. The objects of a file are then checked
// against each other: every Service selects the pods of a workload of the
// file and targets ports its container names, every probe asks floed's
// /readyz or /healthz on a port the container names, every volume mount
// names a volume or a volume claim template, a StatefulSet's serviceName
// names a headless Service, the container's ports are floed's default
// binary-protocol and HTTP ports, and its FLOE_* variables are ones floed
// reads (the built floed's usage, floed -h, gives both).
//
// Then floed runs with the container's arguments and environment, its
// volumes as temporary directories, against an etcd with TLS and a user
// for the manifests that claim worker IDs there; the tests ask the probes,
// fetch IDs over the binary protocol, check their worker ID and stop floed
// with SIGTERM within the pod's grace period.
//
// A workload whose floed claims worker IDs from the Kubernetes API
// (FLOE_KUBE) runs against a real kube-apiserver (cluster/kubetest): the
// whole manifest is applied with kubectl, and each pod's floed runs in a
// mount namespace of its own (unshare, as root) with its service account's
// token, the CA and the namespace where Kubernetes mounts them, as client-go's
// in-cluster configuration reads them. Its replicas run, then five after
// kubectl scale; each must serve under a worker ID of its own, held as a
// Lease that SIGTERM releases. The refusals of floed --kube (rights,
// tokens, namespaces, an API server answering 429 or 503) are tested the
// same way.
package kube
