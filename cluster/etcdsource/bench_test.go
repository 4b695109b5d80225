package etcdsource_test

import (
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/workerid/etcd"
	"github.com/floeid/floe/workerid/workeridtest"
)

// BenchmarkClaim claims a free worker ID and releases it on a healthy
// three-member cluster, one claim and release per operation. A claim is
// a lease grant, a read of the held worker IDs and the claiming
// transaction; a release is a fenced transaction and a revocation. It
// reports the claim alone as claim-ns/op.
func BenchmarkClaim(b *testing.B) {
	ec := etcdtest.Start(b, 3)
	workeridtest.BenchClaim(b, newSource(b, newClient(b, ec.Endpoints()), etcd.Config{Prefix: freshPrefix(), IDs: 1, TTL: 10 * time.Second, Owner: "bench"}))
}

// BenchmarkReserve raises the reservation of a held worker ID by one tick
// per operation on a healthy three-member cluster: one fenced transaction
// per Reserve.
func BenchmarkReserve(b *testing.B) {
	ec := etcdtest.Start(b, 3)
	workeridtest.BenchReserve(b, newSource(b, newClient(b, ec.Endpoints()), etcd.Config{Prefix: freshPrefix(), IDs: 1, TTL: 10 * time.Second, Owner: "bench"}))
}
