package sequencer_test

import (
	"context"
	"testing"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid/workeridtest"
)

// wide is a layout whose sequence (20 bits, a million per millisecond) does
// not cap the generator, so benchmarks measure the generator itself.
var wide = id64.Layout{Epoch: id64.Twitter.Epoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 2, SequenceBits: 20}

// BenchmarkNext64 compares Next64 of an attached sequencer with Next of
// the plain id64 generator it wraps, on the same layout and clock.
func BenchmarkNext64(b *testing.B) {
	b.Run("generator", func(b *testing.B) {
		g, err := id64.NewGenerator(id64.Config{Layout: wide})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := g.Next(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sequencer", func(b *testing.B) {
		sq := benchSequencer(b)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := sq.Next64(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkNextN64 does the same for batches of 256 IDs.
func BenchmarkNextN64(b *testing.B) {
	dst := make([]id64.ID, 256)
	b.Run("generator", func(b *testing.B) {
		g, err := id64.NewGenerator(id64.Config{Layout: wide})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := g.NextN(dst); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(dst)), "ns/id")
	})
	b.Run("sequencer", func(b *testing.B) {
		sq := benchSequencer(b)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := sq.NextN64(dst); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(dst)), "ns/id")
	})
}

// BenchmarkNext64Parallel is Next64 from every core at once.
func BenchmarkNext64Parallel(b *testing.B) {
	sq := benchSequencer(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := sq.Next64(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchSequencer opens an attached sequencer on the wide layout and the
// real clock, over worker IDs in memory.
func benchSequencer(b *testing.B) *sequencer.Sequencer {
	b.Helper()
	sq, err := sequencer.Open(context.Background(), sequencer.Config{
		Name: "bench", Definition: sequencer.Definition{Layout: wide}, Source: workeridtest.NewMemSource(4),
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sq.Close(context.Background()) })
	return sq
}
