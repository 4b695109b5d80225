package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id64"
)

// benchWideLayout is a layout whose sequence (20 bits, a million IDs a
// millisecond) does not cap the server, as in the sequencer's benchmarks.
var benchWideLayout = id64.Layout{Epoch: id64.Twitter.Epoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 2, SequenceBits: 20}

// BenchmarkServer_HTTPvsStatic measures GET /v1/ids?n=1000 on a wide id64
// layout beside a static net/http handler whose reply has a body of the
// same size, in the same run, over loopback TCP. Both are served by an
// http.Server configured as floed configures its own, and asked by the same
// lean keep-alive client, from 1 and from 8 connections, each connection in
// a closed loop. Each run asks the static handler b.N times, then floed b.N
// times: ns/op, allocs/op and IDs/s are floed's, static-ns/op and
// static-allocs/op the static handler's, and vs-static is floed's requests
// a second over the static handler's (1 is as fast as a static reply).
// cpu-ns/op, static-cpu-ns/op and cpu-vs-static compare the CPU time of
// the process (server, client and kernel) per request in the same way,
// which the load of other processes sways less than the wall time.
// Allocations count the server's and the client's; the client makes none.
// Run with -count 6 or more for pairs to compare:
//
//	go test -run '^$' -bench HTTPvsStatic -count 6 ./internal/server
func BenchmarkServer_HTTPvsStatic(b *testing.B) {
	const n = 1000
	reg := prometheus.NewRegistry()
	s, err := New(Config{Store: newMemStore(), Clock: floe.MonotonicClock, Logger: quietLogger(), Registry: reg,
		Sequences: []SequenceConfig{{Name: "default", Layout: benchWideLayout}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	floedAddr := serveHTTPBench(b, s.Handler(), func(l net.Listener) net.Listener { return s.PlaintextListener(l, "http") })
	path := "/v1/ids?n=" + strconv.Itoa(n)

	// The static reply is a reply of floed's, of the same size.
	c, err := dialHTTPBench(floedAddr, path)
	if err != nil {
		b.Fatal(err)
	}
	body, err := c.get()
	c.close()
	if err != nil {
		b.Fatal(err)
	}
	static := bytes.Clone(body)
	if !bytes.HasPrefix(static, []byte(`{"seq":"default","format":"id64","ids":["`)) || bytes.Count(static, []byte(",")) != n+1 {
		b.Fatalf("reply %.80q...: want %d IDs of the default sequence", static, n)
	}
	staticAddr := serveHTTPBench(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(static)))
		w.Write(static)
	}), nil)

	for _, conns := range []int{1, 8} {
		b.Run(fmt.Sprintf("conns=%d", conns), func(b *testing.B) {
			b.StopTimer()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			t0, cpu0 := time.Now(), cpuTime()
			runHTTPBench(b, staticAddr, path, conns, len(static), false)
			staticNs := float64(time.Since(t0).Nanoseconds()) / float64(b.N)
			staticCPU := float64((cpuTime() - cpu0).Nanoseconds()) / float64(b.N)
			runtime.ReadMemStats(&after)
			b.SetBytes(int64(len(static)))
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 = cpuTime()
			runHTTPBench(b, floedAddr, path, conns, len(static), true)
			b.StopTimer()
			cpu := float64((cpuTime() - cpu0).Nanoseconds()) / float64(b.N)
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(float64(n)*1e9/ns, "IDs/s")
			b.ReportMetric(staticNs, "static-ns/op")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N), "static-allocs/op")
			b.ReportMetric(staticNs/ns, "vs-static")
			if cpu > 0 {
				b.ReportMetric(cpu, "cpu-ns/op")
				b.ReportMetric(staticCPU, "static-cpu-ns/op")
				b.ReportMetric(staticCPU/cpu, "cpu-vs-static")
			}
		})
	}
}

// serveHTTPBench serves h on a loopback listener (wrapped by wrap, when
// given) with floed's http.Server settings, until the benchmark ends.
func serveHTTPBench(b *testing.B, h http.Handler, wrap func(net.Listener) net.Listener) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := l.Addr().String()
	if wrap != nil {
		l = wrap(l)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, DisableGeneralOptionsHandler: true}
	go hs.Serve(l)
	b.Cleanup(func() { hs.Close() })
	return addr
}

// runHTTPBench asks path b.N times, shared among conns new connections
// each in a closed loop, checking each reply's body is size bytes. The
// benchmark's timer runs while they ask when timed is set.
func runHTTPBench(b *testing.B, addr, path string, conns, size int, timed bool) {
	cs := make([]*httpBenchConn, conns)
	for i := range cs {
		c, err := dialHTTPBench(addr, path)
		if err != nil {
			b.Fatal(err)
		}
		defer c.close()
		if _, err := c.get(); err != nil { // warms the connection up
			b.Fatal(err)
		}
		cs[i] = c
	}
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	if timed {
		b.StartTimer()
	}
	for _, c := range cs {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				body, err := c.get()
				if err == nil && len(body) != size {
					err = fmt.Errorf("a body of %d bytes, want %d", len(body), size)
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if timed {
		b.StopTimer()
	}
}

// httpBenchConn is a lean HTTP/1.1 keep-alive client of one connection:
// it writes a GET and reads its reply's status, headers and body (of a
// Content-Length, or chunked), allocating nothing per request.
type httpBenchConn struct {
	nc   net.Conn
	br   *bufio.Reader
	req  []byte
	body []byte
}

func dialHTTPBench(addr, path string) (*httpBenchConn, error) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &httpBenchConn{
		nc:   nc,
		br:   bufio.NewReaderSize(nc, 4096),
		req:  []byte("GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nUser-Agent: bench\r\n\r\n"),
		body: make([]byte, 0, 64<<10),
	}, nil
}

func (c *httpBenchConn) close() { c.nc.Close() }

var errBenchReply = errors.New("malformed reply")

// get asks for the path and returns the reply's body, valid until the
// next call.
func (c *httpBenchConn) get() ([]byte, error) {
	if _, err := c.nc.Write(c.req); err != nil {
		return nil, err
	}
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
		return nil, fmt.Errorf("status %q", line)
	}
	length, chunked := -1, false
	for {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		if len(line) <= 2 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, errBenchReply
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = atoiBench(value); err != nil {
				return nil, err
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.Equal(value, []byte("chunked"))
		}
	}
	c.body = c.body[:0]
	if !chunked {
		if length < 0 {
			return nil, errBenchReply
		}
		return c.read(length)
	}
	for {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		size, err := strconv.ParseUint(string(bytes.TrimSpace(line)), 16, 31)
		if err != nil {
			return nil, err
		}
		if _, err := c.read(int(size)); err != nil {
			return nil, err
		}
		if crlf, err := c.br.ReadSlice('\n'); err != nil || len(crlf) != 2 {
			return nil, errBenchReply
		}
		if size == 0 {
			return c.body, nil
		}
	}
}

// read appends the next size bytes of the reply to c.body.
func (c *httpBenchConn) read(size int) ([]byte, error) {
	if cap(c.body)-len(c.body) < size {
		c.body = append(c.body, make([]byte, size)...)[:len(c.body)]
	}
	end := len(c.body) + size
	if _, err := io.ReadFull(c.br, c.body[len(c.body):end]); err != nil {
		return nil, err
	}
	c.body = c.body[:end]
	return c.body, nil
}

func atoiBench(b []byte) (int, error) {
	n := 0
	if len(b) == 0 || len(b) > 9 {
		return 0, errBenchReply
	}
	for _, d := range b {
		if d < '0' || d > '9' {
			return 0, errBenchReply
		}
		n = n*10 + int(d-'0')
	}
	return n, nil
}
