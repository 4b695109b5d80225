// Package kubesource tests floe's Kubernetes worker-ID Source and Catalog
// (workerid/kube) against a real kube-apiserver on an embedded etcd
// (cluster/kubetest), each test in a fresh namespace whose service account
// has only the Role floe documents: the workerid conformance suites; a
// takeover only after the lease duration observed on the claimer's clock;
// a Lease edited by hand (another holder, a reservation moved backwards);
// a destroy stopped at each of its steps and finished later; claims
// racing a destroy; and a namespace the identity may not write.
//
// The package has tests only.
package kubesource
