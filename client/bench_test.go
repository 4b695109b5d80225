package client_test

import (
	"context"
	"flag"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/wire"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid/workeridtest"
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

// floedAddr points BenchmarkClient_Floed at a running floed (without a
// token), so that server and benchmark can each have a CPU of their own:
//
//	taskset -c 0 floed -w 1 -l 127.0.0.1:4444 -http '' -state $(mktemp -d) &
//	taskset -c 1 go test -run '^$' -bench Floed ./client -args -floed 127.0.0.1:4444
var floedAddr = flag.String("floed", "", "BenchmarkClient_Floed: the address of a running floed without a token (default: one in the test process)")

// BenchmarkClient_Floed measures Next against floed over the loopback
// interface, next to the protocol's raw rate: one connection, one request
// for one ID at a time, each waiting for its reply. Compare the
// sub-benchmarks of one run with each other (IDs/s).
func BenchmarkClient_Floed(b *testing.B) {
	addr := *floedAddr
	if addr == "" {
		addr = startFloed(b, 1, "")
	}
	b.Run("raw batch-1", func(b *testing.B) {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		defer nc.Close()
		req, _ := wire.AppendRequest(nil, 1)
		reply := make([]byte, wire.IDSize)
		for b.Loop() {
			if _, err := nc.Write(req); err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(nc, reply); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "IDs/s")
	})
	for _, bc := range []struct {
		name       string
		goroutines int
		opts       []client.Option
	}{
		{"next 1 goroutine", 1, nil},
		{"next 8 goroutines", 8, nil},
		{"next 8 goroutines pool of 1", 8, []client.Option{client.WithPoolSize(1)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var requests atomic.Int64
			dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
				nc, err := new(net.Dialer).DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return countingConn{nc, &requests}, nil
			}
			c := newClient(b, []string{addr}, append(bc.opts, client.WithDialer(dial))...)
			ctx := context.Background()
			if _, err := c.Next(ctx); err != nil { // dials
				b.Fatal(err)
			}
			requests.Store(0)
			b.ResetTimer()
			spread(b, bc.goroutines, func() error {
				_, err := c.Next(ctx)
				return err
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "IDs/s")
			b.ReportMetric(float64(b.N)/float64(max(requests.Load(), 1)), "IDs/request")
		})
	}
}

// spread runs op b.N times, shared among a number of goroutines.
func spread(b *testing.B, goroutines int, op func() error) {
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if err := op(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// countingConn counts the bytes written to it: the requests, on a
// connection without a token.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	return c.Conn.Write(p)
}

// BenchmarkNextInProcess compares an ID from a sequencer in the process
// with one from floed over the loopback interface, in the same run:
// Next64 on an attached id64 sequencer (on the wide layout of the
// sequencer's own benchmarks, whose sequence does not cap it, and on
// floed's twitter layout, whose 4,096 IDs a millisecond do), then
// client.Next against floed's server in this process from one goroutine
// (a round trip per ID) and from eight (batched). The client
// sub-benchmarks report x-sequencer: their ns/op over the wide
// sequencer's.
func BenchmarkNextInProcess(b *testing.B) {
	var seqNs float64 // ns/op of the wide sequencer in this run
	for _, bc := range []struct {
		name   string
		layout id64.Layout
	}{
		{"sequencer wide", wideLayout},
		{"sequencer twitter", id64.Twitter},
	} {
		b.Run(bc.name, func(b *testing.B) {
			sq, err := sequencer.Open(context.Background(), sequencer.Config{
				Name: "bench", Definition: sequencer.Definition{Layout: bc.layout}, Source: workeridtest.NewMemSource(4),
			})
			if err != nil {
				b.Fatal(err)
			}
			defer sq.Close(context.Background())
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sq.Next64(); err != nil {
					b.Fatal(err)
				}
			}
			if bc.layout == wideLayout {
				seqNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			}
		})
	}
	addr := startFloed(b, 1, "")
	for _, bc := range []struct {
		name       string
		goroutines int
	}{
		{"client 1 goroutine", 1},
		{"client 8 goroutines", 8},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := newClient(b, []string{addr})
			ctx := context.Background()
			if _, err := c.Next(ctx); err != nil { // dials
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			spread(b, bc.goroutines, func() error {
				_, err := c.Next(ctx)
				return err
			})
			if seqNs > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/seqNs, "x-sequencer")
			}
		})
	}
}

// wideLayout is a layout whose sequence (20 bits, a million per
// millisecond) does not cap a generator, as in the sequencer's benchmarks.
var wideLayout = id64.Layout{Epoch: id64.Twitter.Epoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 2, SequenceBits: 20}
