package bench

import (
	"flag"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/snowflake"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
	"github.com/fogfish/guid/v2"
	"github.com/muyo/sno"
)

// lagFor is how long each load of BenchmarkLag runs per iteration.
var lagFor = flag.Duration("lag.for", 2*time.Second, "how long BenchmarkLag runs each load per iteration")

// A stamper issues one ID and returns the start of the time unit the ID
// names, in Unix nanoseconds, and the unit.
type stamper func() (start int64, unit time.Duration)

// BenchmarkLag measures how true the time inside an ID is: for each ID, the
// lag is the tick of a clock reading taken just before the call minus the
// tick the ID names, in the format's ticks and in milliseconds (ticks times
// the tick). Each iteration runs three loads for -lag.for each: "light",
// one call every 100 µs from one goroutine, and "sat1" and "sat2", one and
// two goroutines calling without pause. Run it with -benchtime 1x; it
// reports lag-p50, lag-p99 and lag-max in ticks and ms, and how many IDs
// were sampled.
func BenchmarkLag(b *testing.B) {
	tests := []struct {
		name string
		mk   func(b *testing.B) stamper
	}{
		{"floe-id64", func(b *testing.B) stamper {
			g := newID64(b, id64.Twitter)
			epoch := id64.Twitter.Epoch.UnixNano()
			return func() (int64, time.Duration) {
				id, err := g.Next()
				if err != nil {
					b.Error(err)
				}
				return epoch + int64(id64.Twitter.Parts(id).Tick)*int64(time.Millisecond), time.Millisecond
			}
		}},
		{"bwmarrin", func(b *testing.B) stamper {
			setSnowflakeLayout(b, twitterEpochMilli, 10, 12)
			node, err := snowflake.NewNode(1)
			if err != nil {
				b.Fatal(err)
			}
			return func() (int64, time.Duration) {
				return node.Generate().Time() * int64(time.Millisecond), time.Millisecond
			}
		}},
		{"floe-id80", func(b *testing.B) stamper {
			g, err := id80.NewGenerator(id80.Config{Partition: id80.NewPartition()})
			if err != nil {
				b.Fatal(err)
			}
			return func() (int64, time.Duration) {
				id, err := g.New(0)
				if err != nil {
					b.Error(err)
				}
				return id.Time().UnixNano(), id80.TimeUnit
			}
		}},
		{"sno", func(b *testing.B) stamper {
			g, err := sno.NewGenerator(nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			return func() (int64, time.Duration) {
				return g.New(0).Time().UnixNano(), 4 * time.Millisecond
			}
		}},
		{"floe-id96", func(b *testing.B) stamper {
			return func() (int64, time.Duration) {
				return id96.New().Time().UnixNano(), 1 << 17
			}
		}},
		{"floe-id128", func(b *testing.B) stamper {
			g := newID128(b)
			return func() (int64, time.Duration) {
				id, err := g.Next()
				if err != nil {
					b.Error(err)
				}
				return id.Time().UnixNano(), time.Millisecond
			}
		}},
		{"guid", func(b *testing.B) stamper {
			return func() (int64, time.Duration) {
				return guid.EpochT(guid.G(guid.Clock)).UnixNano(), 1 << 17
			}
		}},
	}
	loads := []struct {
		name       string
		goroutines int
		every      time.Duration // pause between calls; 0: none
	}{
		{"light", 1, 100 * time.Microsecond},
		{"sat1", 1, 0},
		{"sat2", 2, 0},
	}
	for _, tt := range tests {
		for _, load := range loads {
			b.Run(tt.name+"/"+load.name, func(b *testing.B) {
				next := tt.mk(b)
				var all []int64
				b.ResetTimer()
				for range b.N {
					var (
						mu sync.Mutex
						wg sync.WaitGroup
					)
					deadline := time.Now().Add(*lagFor)
					for range load.goroutines {
						wg.Go(func() {
							lags := lagRun(next, deadline, load.every)
							mu.Lock()
							all = append(all, lags...)
							mu.Unlock()
						})
					}
					wg.Wait()
				}
				reportLag(b, all, tt.mk)
			})
		}
	}
}

// lagRun calls next until deadline, every apart (0: without pause), and
// returns each ID's lag in ticks. It samples: under saturation it keeps at
// most one lag in 16, so that millions of IDs do not fill memory; every
// call still measures, and the largest lag is always kept.
func lagRun(next stamper, deadline time.Time, every time.Duration) []int64 {
	lags := make([]int64, 0, 1<<16)
	var worst int64
	for i := 0; ; i++ {
		before := time.Now()
		if i&1023 == 0 && before.After(deadline) {
			break
		}
		start, unit := next()
		lag := tickOf(before.UnixNano(), unit) - tickOf(start, unit)
		worst = max(worst, lag)
		if every > 0 || i&15 == 0 {
			lags = append(lags, lag)
		}
		if every > 0 {
			for time.Since(before) < every {
				runtime.Gosched()
			}
			if time.Now().After(deadline) {
				break
			}
		}
	}
	return append(lags, worst)
}

// tickOf returns the tick of Unix nanoseconds ns in ticks of unit.
func tickOf(ns int64, unit time.Duration) int64 {
	if ns < 0 {
		return (ns+1)/int64(unit) - 1
	}
	return ns / int64(unit)
}

// reportLag reports the percentiles of lags in ticks and in milliseconds.
func reportLag(b *testing.B, lags []int64, mk func(*testing.B) stamper) {
	if len(lags) == 0 {
		b.Fatal("no IDs sampled")
	}
	_, unit := mk(b)()
	slices.Sort(lags)
	at := func(q float64) float64 { return float64(lags[int(q*float64(len(lags)-1))]) }
	ms := float64(unit) / float64(time.Millisecond)
	b.ReportMetric(at(0.5), "lag-p50-ticks")
	b.ReportMetric(at(0.99), "lag-p99-ticks")
	b.ReportMetric(float64(lags[len(lags)-1]), "lag-max-ticks")
	b.ReportMetric(at(0.5)*ms, "lag-p50-ms")
	b.ReportMetric(at(0.99)*ms, "lag-p99-ms")
	b.ReportMetric(float64(lags[len(lags)-1])*ms, "lag-max-ms")
	b.ReportMetric(float64(len(lags)), "samples")
	b.ReportMetric(0, "ns/op")
}
