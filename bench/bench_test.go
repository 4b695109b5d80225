package bench

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/snowflake"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
	"github.com/fogfish/guid/v2"
	"github.com/google/uuid"
	"github.com/muyo/sno"
	"github.com/oklog/ulid/v2"
	"github.com/rs/xid"
	"github.com/segmentio/ksuid"
	"github.com/sony/sonyflake/v2"
)

// A maker sets up one library's operation for one sub-benchmark. It builds
// what goroutines share (a generator, an ID) and returns a function that
// each goroutine calls once to get an op of its own, with what it must not
// share (a buffer, a place to keep results so the compiler cannot drop the
// work).
type maker func(b *testing.B) func() func()

// pair runs mk as two sub-benchmarks of b: "serial", one goroutine doing
// b.N ops, and "parallel", RunParallel's GOMAXPROCS goroutines sharing the
// b.N ops and what mk built. When one op makes idsPerOp IDs (more than one),
// it also reports the time per ID as "ns/id".
func pair(b *testing.B, name string, idsPerOp int, mk maker) {
	b.Run(name, func(b *testing.B) {
		b.Run("serial", func(b *testing.B) {
			op := mk(b)()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				op()
			}
			reportPerID(b, idsPerOp)
		})
		b.Run("parallel", func(b *testing.B) {
			shared := mk(b)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				op := shared()
				for pb.Next() {
					op()
				}
			})
			reportPerID(b, idsPerOp)
		})
	})
}

func reportPerID(b *testing.B, idsPerOp int) {
	if idsPerOp > 1 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(idsPerOp), "ns/id")
	}
}

// wideLayout gives a node a million IDs per millisecond, so that no
// generator waits for the clock and the benchmark measures the cost of an
// ID: the Twitter epoch, 41 bits of milliseconds, 2 node bits and 20
// sequence bits.
var wideLayout = id64.Layout{
	Epoch:        id64.Twitter.Epoch,
	Unit:         time.Millisecond,
	TimeBits:     41,
	WorkerBits:   2,
	SequenceBits: 20,
}

// nextN is the number of IDs one NextN op fills.
const nextN = 256

func newID64(b *testing.B, layout id64.Layout) *id64.Generator {
	g, err := id64.NewGenerator(id64.Config{Layout: layout, Worker: 1})
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// id64Next is a maker for one ID per op from a generator of layout.
func id64Next(layout id64.Layout) maker {
	return func(b *testing.B) func() func() {
		g := newID64(b, layout)
		return func() func() {
			return func() {
				if _, err := g.Next(); err != nil {
					b.Error(err)
				}
			}
		}
	}
}

// bwmarrinGenerate is a maker for one bwmarrin ID per op on a layout of
// nodeBits and stepBits after the Twitter epoch.
func bwmarrinGenerate(nodeBits, stepBits uint8) maker {
	return func(b *testing.B) func() func() {
		setSnowflakeLayout(b, twitterEpochMilli, nodeBits, stepBits)
		node, err := snowflake.NewNode(1) // keeps its layout after Cleanup
		if err != nil {
			b.Fatal(err)
		}
		return func() func() {
			return func() { node.Generate() }
		}
	}
}

func BenchmarkSnowflakeWide(b *testing.B) {
	pair(b, "floe-id64", 1, id64Next(wideLayout))
	pair(b, "floe-id64-NextN", nextN, func(b *testing.B) func() func() {
		g := newID64(b, wideLayout)
		return func() func() {
			dst := make([]id64.ID, nextN)
			return func() {
				if _, err := g.NextN(dst); err != nil {
					b.Error(err)
				}
			}
		}
	})
	pair(b, "bwmarrin", 1, bwmarrinGenerate(2, 20))
}

func BenchmarkTwitter(b *testing.B) {
	pair(b, "floe", 1, id64Next(id64.Twitter))
	pair(b, "bwmarrin", 1, bwmarrinGenerate(10, 12))
}

// simple is a maker for an op that needs no setup and no state.
func simple(op func()) maker {
	return func(*testing.B) func() func() {
		return func() func() { return op }
	}
}

// errOp is a maker for an op that can fail.
func errOp(op func() error) maker {
	return func(b *testing.B) func() func() {
		return func() func() {
			return func() {
				if err := op(); err != nil {
					b.Error(err)
				}
			}
		}
	}
}

func BenchmarkNew(b *testing.B) {
	pair(b, "floe-id64-twitter", 1, id64Next(id64.Twitter))
	pair(b, "floe-id80", 1, simple(func() { id80.New(0) }))
	pair(b, "sno", 1, simple(func() { sno.New(0) }))
	pair(b, "floe-id96", 1, simple(func() { id96.New() }))
	pair(b, "guid", 1, simple(func() { guid.G(guid.Clock) }))
	pair(b, "sonyflake", 1, func(b *testing.B) func() func() {
		sf, err := sonyflake.New(sonyflake.Settings{MachineID: func() (int, error) { return 1, nil }})
		if err != nil {
			b.Fatal(err)
		}
		return errOp(func() error { _, err := sf.NextID(); return err })(b)
	})
	pair(b, "xid", 1, simple(func() { xid.New() }))
	pair(b, "uuidv7", 1, errOp(func() error { _, err := uuid.NewV7(); return err }))
	pair(b, "ulid", 1, simple(func() { ulid.Make() }))
	pair(b, "ksuid", 1, simple(func() { ksuid.New() }))
}

// kept holds the last result of each goroutine of the String benchmarks, so
// that the compiler must assume every result is used and cannot drop or
// stack-allocate it.
var (
	keptMu sync.Mutex
	kept   []*keptString // guarded by keptMu
)

// keptString is one goroutine's result, padded to a cache line of its own
// so that goroutines storing results do not slow each other down.
type keptString struct {
	s string
	_ [cacheLine - 16]byte
}

// cacheLine covers the cache lines of current amd64 and arm64 processors,
// with adjacent-line prefetching.
const cacheLine = 128

// keep returns a new place to store results in.
func keep() *string {
	p := new(keptString)
	keptMu.Lock()
	kept = append(kept, p)
	keptMu.Unlock()
	return &p.s
}

// stringOp is a maker for the text of one ID per op.
func stringOp[T interface{ String() string }](id T) maker {
	return func(*testing.B) func() func() {
		return func() func() {
			last := keep()
			return func() { *last = id.String() }
		}
	}
}

func BenchmarkString(b *testing.B) {
	pair(b, "floe-id80", 1, stringOp(id80.New(0)))
	pair(b, "sno", 1, stringOp(sno.New(0)))
	pair(b, "floe-id96", 1, stringOp(id96.New()))
	pair(b, "guid", 1, stringOp(guid.G(guid.Clock)))
	pair(b, "floe-id64", 1, stringOp(id64.Twitter.Last(time.Now())))
}

// textAppender is what AppendText benchmarks: encoding.TextAppender.
type textAppender interface {
	AppendText(dst []byte) ([]byte, error)
}

// appendTextOp is a maker for the text of one ID per op, appended to a
// buffer each goroutine owns.
func appendTextOp(id textAppender) maker {
	return func(b *testing.B) func() func() {
		return func() func() {
			buf := make([]byte, 0, 64)
			return func() {
				var err error
				if buf, err = id.AppendText(buf[:0]); err != nil {
					b.Error(err)
				}
			}
		}
	}
}

func BenchmarkAppendText(b *testing.B) {
	pair(b, "floe-id80", 1, appendTextOp(id80.New(0)))
	pair(b, "floe-id96", 1, appendTextOp(id96.New()))
	pair(b, "floe-id64", 1, appendTextOp(id64.Twitter.Last(time.Now())))
}

func TestAppendText_NoAllocs(t *testing.T) {
	ids := []struct {
		name string
		id   textAppender
	}{
		{"id80", id80.New(0)},
		{"id96", id96.New()},
		{"id64", id64.Twitter.Last(time.Now())},
	}
	buf := make([]byte, 0, 64)
	for _, tt := range ids {
		allocs := testing.AllocsPerRun(1000, func() {
			var err error
			if buf, err = tt.id.AppendText(buf[:0]); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: AppendText allocates %v times per call, want 0", tt.name, allocs)
		}
	}
}

// saturateFor is how long one iteration of a saturation benchmark issues
// IDs; saturateCheck is how many IDs it issues between looks at the clock,
// so that reading the clock costs nothing next to the IDs.
const (
	saturateFor   = time.Second
	saturateCheck = 1024
)

// saturate issues IDs with next in a tight loop for saturateFor and returns
// how many it issued.
func saturate(next func()) int64 {
	var n int64
	for start := time.Now(); time.Since(start) < saturateFor; n += saturateCheck {
		for range saturateCheck {
			next()
		}
	}
	return n
}

// BenchmarkSaturate measures how close a generator comes to its format's
// capacity when callers ask for IDs without pause: each iteration issues
// IDs for one second of wall time, so run it with -benchtime 1x (or Nx for N
// seconds). "ids/s" is the rate reached and "%cap" that rate as a
// percentage of the format's capacity for one node or partition. The
// parallel sub-benchmark runs GOMAXPROCS goroutines on one generator for
// each second.
func BenchmarkSaturate(b *testing.B) {
	tests := []struct {
		name     string
		capacity float64 // IDs per second for one node or partition
		next     func(b *testing.B) func()
	}{
		{
			name:     "floe-id64-twitter",
			capacity: 4096 * 1000, // 12 sequence bits per millisecond
			next: func(b *testing.B) func() {
				g := newID64(b, id64.Twitter)
				return func() {
					if _, err := g.Next(); err != nil {
						b.Error(err)
					}
				}
			},
		},
		{
			name:     "floe-id80",
			capacity: 65536 * 250, // 16 sequence bits per 4 ms
			next: func(b *testing.B) func() {
				g, err := id80.NewGenerator(id80.Config{Partition: id80.NewPartition()})
				if err != nil {
					b.Fatal(err)
				}
				return func() {
					if _, err := g.New(0); err != nil {
						b.Error(err)
					}
				}
			},
		},
		{
			name:     "sno",
			capacity: 65536 * 250,
			next: func(b *testing.B) func() {
				g, err := sno.NewGenerator(nil, nil)
				if err != nil {
					b.Fatal(err)
				}
				return func() { g.New(0) }
			},
		},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			b.Run("serial", func(b *testing.B) {
				next := tt.next(b)
				b.ReportAllocs()
				b.ResetTimer()
				var ids int64
				for range b.N {
					ids += saturate(next)
				}
				reportSaturation(b, ids, tt.capacity)
			})
			b.Run("parallel", func(b *testing.B) {
				next := tt.next(b)
				b.ReportAllocs()
				b.ResetTimer()
				var ids int64
				for range b.N {
					var (
						mu sync.Mutex
						wg sync.WaitGroup
					)
					for range runtime.GOMAXPROCS(0) {
						wg.Go(func() {
							n := saturate(next)
							mu.Lock()
							ids += n
							mu.Unlock()
						})
					}
					wg.Wait()
				}
				reportSaturation(b, ids, tt.capacity)
			})
		})
	}
}

func reportSaturation(b *testing.B, ids int64, capacity float64) {
	rate := float64(ids) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "ids/s")
	b.ReportMetric(rate/capacity*100, "%cap")
}
