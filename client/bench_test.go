package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/id64"
)

// BenchmarkClient_Next calls Next from many goroutines against one fake
// server on the loopback interface: the cost per ID of a round trip shared
// by a batch, or of the prefetch buffer.
func BenchmarkClient_Next(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts []client.Option
	}{
		{"batched", nil},
		{"prefetch", []client.Option{client.WithPrefetch(4096, time.Second)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := newFake(b, fakeConfig{})
			c := newClient(b, []string{s.Addr}, bc.opts...)
			ctx := context.Background()
			b.ReportAllocs()
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := c.Next(ctx); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/float64(max(s.Requests(), 1)), "IDs/request")
		})
	}
}

// BenchmarkClient_NextN1000 fetches runs of 1,000 IDs, pipelined on one
// connection each.
func BenchmarkClient_NextN1000(b *testing.B) {
	s := newFake(b, fakeConfig{})
	c := newClient(b, []string{s.Addr})
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ids := make([]id64.ID, 1000)
		for pb.Next() {
			if _, err := c.NextN(ctx, ids); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
