package id64_test

import (
	"testing"
	"time"

	"github.com/floeid/floe/id64"
)

// wide is a layout whose sequence (20 bits, a million per millisecond) does
// not cap the generator, so benchmarks measure the generator itself.
var wide = id64.Layout{Epoch: id64.Twitter.Epoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 2, SequenceBits: 20}

func BenchmarkGenerator_Next(b *testing.B) {
	g := newGen(b, id64.Config{Layout: wide, Worker: 1})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenerator_NextParallel(b *testing.B) {
	g := newGen(b, id64.Config{Layout: wide, Worker: 1})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := g.Next(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkGenerator_NextN(b *testing.B) {
	g := newGen(b, id64.Config{Layout: wide, Worker: 1})
	dst := make([]id64.ID, 256)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.NextN(dst); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(dst)), "ns/id")
}

// wideSequenceFirst is wide with the sequence above the node, as sonyflake
// and Hazelcast order their fields.
var wideSequenceFirst = id64.Layout{Epoch: id64.Twitter.Epoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 2, SequenceBits: 20, Order: id64.TimeSequenceNode}

func BenchmarkGenerator_NextSequenceFirst(b *testing.B) {
	g := newGen(b, id64.Config{Layout: wideSequenceFirst, Worker: 1})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenerator_NextNSequenceFirst(b *testing.B) {
	g := newGen(b, id64.Config{Layout: wideSequenceFirst, Worker: 1})
	dst := make([]id64.ID, 256)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.NextN(dst); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(dst)), "ns/id")
}
