package redisgen_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/redisgen"
)

func benchClient(b *testing.B) *redisgen.Client {
	b.Helper()
	s := redistest.Start(b)
	ctx := context.Background()
	if err := redisgen.Init(ctx, s.Addr, 1, false); err != nil {
		b.Fatal(err)
	}
	c, err := redisgen.New(ctx, []string{s.Addr})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

// BenchmarkClient_NextN1000 fetches batches of 1,000 IDs from one Redis
// with a pool of goroutines and reports IDs per second. The format caps one
// shard at 4,096 IDs per millisecond.
func BenchmarkClient_NextN1000(b *testing.B) {
	c := benchClient(b)
	ctx := context.Background()
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.NextN(ctx, 1000); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "ids/s")
}

// BenchmarkClient_Next makes single-ID calls, one goroutine, and reports
// calls per second and the 50th and 99th percentile latency.
func BenchmarkClient_Next(b *testing.B) {
	c := benchClient(b)
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	var mu sync.Mutex
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if _, err := c.Next(ctx); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		mu.Lock()
		lat = append(lat, d)
		mu.Unlock()
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(len(lat))/b.Elapsed().Seconds(), "calls/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
