package etcdsource_test

import (
	"context"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/workerid/etcd"
)

// BenchmarkClaim claims a free worker ID and releases it on a healthy
// three-member cluster, one claim and release per operation. A claim is
// a lease grant, a read of the held worker IDs and the claiming
// transaction; a release is a fenced transaction and a revocation. It
// reports the claim alone as claim-ns/op.
func BenchmarkClaim(b *testing.B) {
	ec := etcdtest.Start(b, 3)
	src := newSource(b, newClient(b, ec.Endpoints()), etcd.Config{Prefix: freshPrefix(), IDs: 1, TTL: 10 * time.Second, Owner: "bench"})
	ctx := context.Background()
	var claiming time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		l, err := src.Claim(ctx)
		claiming += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(ctx, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(claiming.Nanoseconds())/float64(b.N), "claim-ns/op")
}

// BenchmarkReserve raises the reservation of a held worker ID by one tick
// per operation on a healthy three-member cluster: one fenced transaction
// per Reserve.
func BenchmarkReserve(b *testing.B) {
	ec := etcdtest.Start(b, 3)
	src := newSource(b, newClient(b, ec.Endpoints()), etcd.Config{Prefix: freshPrefix(), IDs: 1, TTL: 10 * time.Second, Owner: "bench"})
	ctx := context.Background()
	l, err := src.Claim(ctx)
	if err != nil {
		b.Fatal(err)
	}
	tick := l.Floor()
	b.ReportAllocs()
	for b.Loop() {
		tick++
		if err := l.Reserve(ctx, tick); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := l.Release(ctx, 0); err != nil {
		b.Fatal(err)
	}
}
