// Package etcdsource tests floe's etcd worker-ID Source and Catalog
// (workerid/etcd) against real embedded etcd members (cluster/etcdtest):
// the workerid conformance suites on one and on three members; 64
// claimers racing for 64 worker IDs; a holder gone without a Release;
// network faults between a holder and etcd through an in-process proxy
// (internal/faultproxy): a black hole, renewals slower than half the TTL
// or than the TTL, a one-way cut during a reservation; etcd's leader
// stopped or crashed, and its quorum lost and restored; at most one etcd
// write per reservation window; and benchmarks of a claim and of a
// reservation.
//
// The package has tests only. Leases are short (1 s and 2 s where a test
// waits for one to end) so that the whole package runs in about a minute.
package etcdsource
