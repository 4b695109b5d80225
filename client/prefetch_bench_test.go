package client_test

import (
	"context"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/server"
)

// nexter is what benchCalls measures: a client's Next.
type nexter interface {
	Next(ctx context.Context) (id64.ID, error)
}

// BenchmarkClient_Prefetch calls Next with WithPrefetch(4096, 1 s) from 1
// and 8 goroutines against floed's server in this process, on the wide
// layout, whose sequence (a million IDs a millisecond) leaves the client
// the bottleneck. Each sub-benchmark reports the latency of a call (p50-ns,
// p99-ns), IDs/s, and nonincr/goroutine: how often a goroutine received
// an ID not above its previous one, which should be never.
func BenchmarkClient_Prefetch(b *testing.B) {
	for _, goroutines := range []int{1, 8} {
		b.Run(fmt.Sprintf("goroutines=%d", goroutines), func(b *testing.B) {
			addr := startFloedSeq(b, server.SequenceConfig{Name: "default", Worker: 1, Layout: wideLayout})
			c := newClient(b, []string{addr}, client.WithLayout(wideLayout), client.WithPrefetch(4096, time.Second))
			benchCalls(b, goroutines, c)
		})
	}
}

// benchCalls runs c.Next b.N times, shared among goroutines, and reports
// per-call p50 and p99 latency, IDs/s, and the steps per goroutine where an
// ID was not above the one before it.
func benchCalls(b *testing.B, goroutines int, c nexter) {
	ctx := context.Background()
	if _, err := c.Next(ctx); err != nil { // dials, fills the buffer
		b.Fatal(err)
	}
	hists := make([]latencyHist, goroutines)
	steps := make([]int, goroutines)
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	base := time.Now() // calls are timed by the monotonic clock alone, the cheaper read
	b.ResetTimer()
	for g := range goroutines {
		wg.Go(func() {
			h := &hists[g]
			var last id64.ID
			for left.Add(-1) >= 0 {
				start := time.Since(base)
				id, err := c.Next(ctx)
				h.record(time.Since(base) - start)
				if err != nil {
					b.Error(err)
					return
				}
				if id <= last {
					steps[g]++
				}
				last = id
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	var all latencyHist
	nonincr := 0
	for g := range goroutines {
		all.merge(&hists[g])
		nonincr += steps[g]
	}
	b.ReportMetric(float64(all.quantile(0.50)), "p50-ns")
	b.ReportMetric(float64(all.quantile(0.99)), "p99-ns")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "IDs/s")
	b.ReportMetric(float64(nonincr)/float64(goroutines), "nonincr/goroutine")
	b.ReportMetric(0, "ns/op") // a goroutine's call is p50-ns, not ns/op
}

// latencyHist is a log-linear histogram of latencies in nanoseconds: each
// power of two is split into 32 buckets (3% wide), values below 64 ns have
// one each. Recording is an index and an increment; one per goroutine,
// merged at the end.
type latencyHist struct {
	counts [64 << 5]uint64
	n      uint64
}

const histSubBits = 5

func (h *latencyHist) record(d time.Duration) {
	v := uint64(max(d, 0))
	i := int(v)
	if v >= 1<<(histSubBits+1) {
		shift := bits.Len64(v) - (histSubBits + 1)
		i = shift<<histSubBits + int(v>>shift)
	}
	h.counts[i]++
	h.n++
}

func (h *latencyHist) merge(o *latencyHist) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
}

// quantile returns the top of the bucket of the q-quantile, in ns.
func (h *latencyHist) quantile(q float64) uint64 {
	rank := max(uint64(q*float64(h.n)+0.5), 1)
	var seen uint64
	for i, c := range h.counts {
		if seen += c; seen >= rank {
			if i < 1<<(histSubBits+1) {
				return uint64(i)
			}
			shift := i>>histSubBits - 1
			return (uint64(i-shift<<histSubBits)+1)<<shift - 1
		}
	}
	return 0
}
