package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/floev1"
)

// twitterCap is the most IDs a second the Twitter layout issues on one
// worker: 4,096 a millisecond.
const twitterCap = 4096 * 1000

// BenchmarkServer_GRPCvsHTTP measures, in one run and against one server,
// a closed-loop client over loopback: HTTP GET /v1/ids (JSON, keep-alive)
// and gRPC Next for 1 and 1000 IDs, and a gRPC stream of 1000 IDs a
// message. Each reports IDs/s and its share of the layout's cap
// (cap-%); the calls also report their latency's p50 and p99. The policy
// is wait, so no run goes above the cap by borrowing ticks.
func BenchmarkServer_GRPCvsHTTP(b *testing.B) {
	s, err := New(Config{Store: newMemStore(), Clock: floe.MonotonicClock, Logger: quietLogger(),
		Sequences: []SequenceConfig{{Name: "default", Layout: id64.Twitter}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: s.Handler()}
	go hs.Serve(hl)
	b.Cleanup(func() { hs.Close() })
	gl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go s.ServeGRPC(gl)
	cc, err := grpc.NewClient(gl.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cc.Close() })
	c := floev1.NewIDsClient(cc)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	base := "http://" + hl.Addr().String() + "/v1/ids?n="
	ctx := context.Background()

	for _, n := range []int{1, 1000} {
		b.Run("http/n="+itoa(n), func(b *testing.B) {
			url := base + itoa(n)
			measureCalls(b, n, func() error {
				resp, err := hc.Get(url)
				if err != nil {
					return err
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("GET %s: %s", url, resp.Status)
				}
				return err
			})
		})
		b.Run("grpc/n="+itoa(n), func(b *testing.B) {
			req := &floev1.NextRequest{Count: uint32(n)}
			measureCalls(b, n, func() error {
				resp, err := c.Next(ctx, req)
				if err == nil && len(resp.GetIds64()) != n {
					b.Fatalf("%d IDs, want %d", len(resp.GetIds64()), n)
				}
				return err
			})
		})
	}
	b.Run("grpc/stream/n=1000", func(b *testing.B) {
		const n = 1000
		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		st, err := c.Stream(sctx, &floev1.StreamRequest{Count: n})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			resp, err := st.Recv()
			if err != nil || len(resp.GetIds64()) != n {
				b.Fatalf("Recv: %d IDs, %v", len(resp.GetIds64()), err)
			}
		}
		b.StopTimer()
		reportRate(b, n)
	})
}

// measureCalls runs call in a closed loop and reports IDs/s, the share
// of the cap and the latency's p50 and p99.
func measureCalls(b *testing.B, n int, call func() error) {
	lat := make([]time.Duration, 0, 1<<16)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if err := call(); err != nil {
			b.Fatal(err)
		}
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(t0))
		}
	}
	b.StopTimer()
	reportRate(b, n)
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
		b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
	}
}

func reportRate(b *testing.B, n int) {
	rate := float64(b.N*n) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "IDs/s")
	b.ReportMetric(100*rate/twitterCap, "cap-%")
}
