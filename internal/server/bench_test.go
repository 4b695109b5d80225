package server

import (
	"io"
	"net"
	"strconv"
	"testing"

	"github.com/floeid/floe"
)

// BenchmarkServer_Binary measures round trips over loopback on one
// connection: one request, then its reply, as a closed-loop client does.
func BenchmarkServer_Binary(b *testing.B) {
	for _, n := range []int{1, 255} {
		b.Run("batch="+itoa(n), func(b *testing.B) {
			s, err := New(Config{Store: newMemStore(), Clock: floe.MonotonicClock, Logger: quietLogger(), Policy: floe.Borrow,
				Sequences: []SequenceConfig{{Name: "default"}}})
			if err != nil {
				b.Fatal(err)
			}
			addr := serveLoopback(b, s)
			c := dialBench(b, addr)
			req := []byte{byte(n)}
			buf := make([]byte, n*8)
			b.SetBytes(int64(n * 8))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := c.Write(req); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "IDs/s")
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func serveLoopback(b *testing.B, s *Server) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go s.Serve(l)
	b.Cleanup(func() { s.Close() })
	return l.Addr().String()
}

func dialBench(b *testing.B, addr string) net.Conn {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}
