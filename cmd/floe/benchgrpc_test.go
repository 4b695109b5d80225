package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/floev1"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/internal/tlstest"
)

// startBenchGRPC starts floed's server (internal/server) with the
// sequences of startBenchServer, its gRPC API on 127.0.0.1, over TLS with
// a certificate of ca when ca is not nil, and returns its host:port.
func startBenchGRPC(t testing.TB, ca *tlstest.CA) string {
	t.Helper()
	srv := newBenchServer(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if ca == nil {
		go srv.ServeGRPC(l)
	} else {
		cfg := &tls.Config{Certificates: []tls.Certificate{ca.Issue(t, "floed").Cert}, NextProtos: []string{"h2"}}
		go srv.ServeGRPCTLS(l, cfg)
	}
	return l.Addr().String()
}

// benchGRPCJSON runs "floe bench -grpc addr -o json" with args and returns
// the exit status, the decoded report and stderr.
func benchGRPCJSON(t *testing.T, addr string, args ...string) (int, benchJSON, string) {
	t.Helper()
	return benchAPIJSON(t, "-grpc", addr, args...)
}

// TestBenchGRPC runs floe bench -grpc against the real server, Next calls
// and streams, a sequence of each format: every ID unique and in order,
// none naming a tick before its request's send (a stream's open).
func TestBenchGRPC(t *testing.T) {
	addr := startBenchGRPC(t, nil)
	m := schedtest.Now() // the runs' -d is stretched by the slowdown since
	tick96 := float64(1<<17) / 1e9
	const cap128 = 1 << 18 * 1000 // id128's counter: 2^18 a millisecond
	tests := []struct {
		seq, format string
		tick, cap   float64 // the cap in IDs/s
		args        []string
		requests    int64 // -1: a duration
	}{
		{"", "id64", 0.001, 4096000, []string{"-n", "200"}, 200},
		{"o80", "id80", 0.004, 16384000, []string{"-n", "200"}, 200},
		{"o96", "id96", tick96, 16384 / tick96, []string{"-n", "200"}, 200},
		{"o128", "id128", 0.001, cap128, []string{"-n", "200"}, 200},
		{"default", "id64", 0.001, 4096000, []string{"-c", "4", "-b", "100", "-d", "200ms", "-warmup", "50ms"}, -1},
		{"o128", "id128", 0.001, cap128, []string{"-c", "4", "-b", "1000", "-d", "200ms"}, -1},
		{"", "id64", 0.001, 4096000, []string{"-stream", "-b", "1000", "-n", "300"}, 300},
		{"o80", "id80", 0.004, 16384000, []string{"-stream", "-c", "3", "-b", "100", "-d", "200ms", "-warmup", "50ms"}, -1},
		{"o96", "id96", tick96, 16384 / tick96, []string{"-stream", "-c", "2", "-b", "10", "-n", "101"}, 101},
		{"locked", "id128", 0.001, cap128, []string{"-c", "2", "-b", "10", "-n", "50", "-token", "s3cret"}, 50},
		{"locked", "id128", 0.001, cap128, []string{"-stream", "-b", "10", "-n", "50", "-token", "s3cret"}, 50},
	}
	for _, tc := range tests {
		t.Run(tc.format+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			args := stretchDurations(m, tc.args)
			if tc.seq != "" {
				args = append([]string{"-seq", tc.seq}, args...)
			}
			code, got, stderr := benchGRPCJSON(t, addr, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s (errors %q)", code, stderr, got.Errors)
			}
			wantSeq := cmp.Or(tc.seq, "default")
			if got.Format != tc.format || got.Sequence != wantSeq || got.TickSeconds != tc.tick {
				t.Errorf("format %q, seq %q, tick %vs; want %q, %q, %vs", got.Format, got.Sequence, got.TickSeconds, tc.format, wantSeq, tc.tick)
			}
			method := "Next"
			if strings.Contains(strings.Join(tc.args, " "), "-stream") {
				method = "Stream"
			}
			if want := "grpc://" + addr + "/floe.v1.IDs/" + method; got.Target != want {
				t.Errorf("target %q, want %q", got.Target, want)
			}
			if tc.requests >= 0 && got.Requests != uint64(tc.requests) {
				t.Errorf("requests: got %d, want %d", got.Requests, tc.requests)
			}
			if got.Requests == 0 || got.IDs != got.Requests*uint64(got.Batch) || got.IDsChecked < got.IDs {
				t.Errorf("%d requests, %d IDs of batch %d, %d checked", got.Requests, got.IDs, got.Batch, got.IDsChecked)
			}
			if got.Duplicates != 0 || got.OrderViolations != 0 || len(got.Errors) != 0 {
				t.Errorf("%d duplicates, %d order violations, errors %q", got.Duplicates, got.OrderViolations, got.Errors)
			}
			if got.StaleIDs != 0 || got.TimeLag.Max > 0 {
				t.Errorf("%d of %d IDs name a tick before their request's send (lag %+v ticks)", got.StaleIDs, got.IDs, got.TimeLag)
			}
			if !benchNear(got.CapIDsPerSecond, tc.cap) || !benchNear(got.CapPercent, 100*got.IDsPerSecond/tc.cap) {
				t.Errorf("cap %v IDs/s, %v%%; want %v IDs/s, %v%%", got.CapIDsPerSecond, got.CapPercent, tc.cap, 100*got.IDsPerSecond/tc.cap)
			}
			l := got.Latency
			if !(0 < l.P50 && l.P50 <= l.P99 && l.P99 <= l.P999 && l.P999 <= l.Max) {
				t.Errorf("latency quantiles out of order: %+v", l)
			}
		})
	}
}

func TestBenchGRPC_Text(t *testing.T) {
	addr := startBenchGRPC(t, nil)
	var out, errOut bytes.Buffer
	if code := run([]string{"bench", "-grpc", addr, "-seq", "o128", "-stream", "-c", "2", "-b", "5", "-n", "30"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{
		"target:      grpc://" + addr + "/floe.v1.IDs/Stream\nformat:      id128 (sequence o128)\nconnections: 2 (pipeline 1)\n",
		"IDs:         150\n",
		"% of 262144000 IDs/s\n",
		"ticks of 1ms; 0 IDs name a tick before their request's send\n",
		"unique:      150 IDs checked, 0 duplicates, 0 order violations\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestBenchGRPC_TLS(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	addr := startBenchGRPC(t, ca)
	for _, extra := range [][]string{nil, {"-stream"}} {
		code, got, stderr := benchGRPCJSON(t, addr, append([]string{"-tls-ca", ca.CertFile, "-c", "2", "-b", "10", "-n", "20"}, extra...)...)
		if code != 0 || got.IDs != 200 || got.Duplicates != 0 || !strings.HasPrefix(got.Target, "grpcs://") {
			t.Errorf("%q: exit %d, %d IDs, %d duplicates, target %q: %s", extra, code, got.IDs, got.Duplicates, got.Target, stderr)
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"bench", "-grpc", addr, "-n", "5", "-timeout", "2s"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "floe bench: connection 1 of 1: floe.v1.IDs/Next: Unavailable") {
		t.Errorf("plaintext to a TLS port: exit %d, stderr %q; want 1 and Unavailable", code, errOut.String())
	}
}

func TestBenchGRPC_BadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"-grpc", "localhost:4446", "-addr", "localhost:4444"}, "floe bench: -addr and -grpc: give one, -addr for the binary protocol or -grpc for the GRPC API"},
		{[]string{"-grpc", "localhost:4446", "-http", "localhost:4445"}, "floe bench: -http and -grpc: give one"},
		{[]string{"-grpc", "localhost:4446", "-pipeline", "4"}, "floe bench: -pipeline is for the binary protocol: over -grpc"},
		{[]string{"-grpc", "localhost:4446", "-layout", "twitter"}, "floe bench: -layout is for the binary protocol: over -grpc"},
		{[]string{"-grpc", "localhost:4446", "-b", "0"}, "floe bench: -b 0: want 1..1048576"},
		{[]string{"-grpc", "localhost"}, `floe bench: -grpc: "localhost": want host:port`},
		{[]string{"-grpc", "localhost:4446", "-token", "a\nb"}, "floe bench: -token: a control character"},
		{[]string{"-stream"}, "floe bench: -stream needs -grpc"},
		{[]string{"-http", "localhost:4445", "-stream"}, "floe bench: -stream needs -grpc"},
		{[]string{"-grpc", "localhost:4446", "-nethttp"}, "floe bench: -nethttp needs -http"},
		{[]string{"-seq", "orders"}, "floe bench: -seq needs -http or -grpc"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(append([]string{"bench"}, tc.args...), &out, &errOut); code != 2 || !strings.Contains(errOut.String(), tc.want) || out.Len() != 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out.String(), errOut.String(), tc.want)
			}
		})
	}
}

func TestBenchGRPC_Refused(t *testing.T) {
	addr := startBenchGRPC(t, nil)
	tests := []struct {
		args []string
		want string // in stdout or stderr
	}{
		{[]string{"-seq", "nope"}, `floe bench: connection 1 of 1: floe.v1.IDs/Next: NotFound: `},
		{[]string{"-seq", "locked"}, "floe.v1.IDs/Next: Unauthenticated: sequence locked requires a token"},
		{[]string{"-seq", "locked", "-token", "wrong"}, "floe.v1.IDs/Next: Unauthenticated:"},
		{[]string{"-seq", "o128", "-b", "1001"}, "conn 1: after 0 replies: InvalidArgument: "},
		{[]string{"-seq", "o128", "-b", "1001", "-stream"}, "conn 1: after 0 replies: InvalidArgument: "},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(append([]string{"bench", "-grpc", addr, "-n", "5", "-timeout", "2s"}, tc.args...), &out, &errOut)
			if code != 1 || !strings.Contains(out.String()+errOut.String(), tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out.String(), errOut.String(), tc.want)
			}
		})
	}
}

// benchGRPCFault is how a fakeGRPC server misbehaves.
type benchGRPCFault int

const (
	benchGRPCNone       benchGRPCFault = iota
	benchGRPCOwnCounter                // each connection counts from 1, so IDs repeat across connections
	benchGRPCRepeat                    // reply at repeats the IDs of the reply before it
	benchGRPCShort                     // reply at has one ID too few
	benchGRPCHang                      // reply at never comes
)

// fakeGRPC serves floe.v1.IDs for an id64 sequence of the Twitter
// layout from a counter, as fault says, at its reply number at (from 1,
// over all connections, the format's first call included).
type fakeGRPC struct {
	floev1.UnimplementedIDsServer
	fault benchGRPCFault
	at    int
	base  uint64

	mu      sync.Mutex
	next    uint64
	replies int
	own     map[string]uint64
	last    []uint64
}

func (f *fakeGRPC) reply(ctx context.Context, n int) (*floev1.NextResponse, error) {
	f.mu.Lock()
	f.replies++
	hit := f.replies == f.at
	ids := make([]uint64, n)
	for i := range ids {
		if f.fault == benchGRPCOwnCounter {
			p, _ := peer.FromContext(ctx)
			f.own[p.Addr.String()]++
			ids[i] = f.base + f.own[p.Addr.String()]
		} else {
			f.next++
			ids[i] = f.base + f.next
		}
	}
	switch {
	case hit && f.fault == benchGRPCRepeat:
		ids = f.last
	case hit && f.fault == benchGRPCShort:
		ids = ids[1:]
	}
	f.last = ids
	f.mu.Unlock()
	if hit && f.fault == benchGRPCHang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return &floev1.NextResponse{Sequence: "default", Format: floev1.Format_FORMAT_ID64, Ids64: ids}, nil
}

func (f *fakeGRPC) Next(ctx context.Context, req *floev1.NextRequest) (*floev1.NextResponse, error) {
	return f.reply(ctx, int(req.GetCount()))
}

func (f *fakeGRPC) Stream(req *floev1.StreamRequest, st floev1.IDs_StreamServer) error {
	for {
		resp, err := f.reply(st.Context(), int(req.GetCount()))
		if err == nil {
			err = st.Send(resp)
		}
		if err != nil {
			return status.FromContextError(err).Err()
		}
	}
}

func (f *fakeGRPC) Inspect(context.Context, *floev1.InspectRequest) (*floev1.InspectResponse, error) {
	return &floev1.InspectResponse{Parts: &floev1.InspectResponse_Id64{Id64: &floev1.ID64Parts{Layout: "twitter"}}}, nil
}

// startFakeGRPC starts a fakeGRPC server on 127.0.0.1 and returns its
// host:port.
func startFakeGRPC(t *testing.T, fault benchGRPCFault, at int) string {
	t.Helper()
	f := &fakeGRPC{fault: fault, at: at, own: map[string]uint64{}, base: uint64(id64.Twitter.First(time.Now()))}
	gs := grpc.NewServer()
	floev1.RegisterIDsServer(gs, f)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go gs.Serve(l)
	t.Cleanup(gs.Stop)
	return l.Addr().String()
}

func TestBenchGRPC_Faults(t *testing.T) {
	tests := []struct {
		name                       string
		fault                      benchGRPCFault
		at                         int
		args                       []string
		requests, dups, violations int64 // -1: not checked
		errWant                    string
	}{
		{"duplicates across connections", benchGRPCOwnCounter, 0, []string{"-c", "2", "-b", "3", "-n", "10"}, 10, 14, 0, ""},
		{"repeated reply", benchGRPCRepeat, 5, []string{"-b", "4", "-n", "20"}, 20, 4, 1, ""},
		{"repeated message", benchGRPCRepeat, 5, []string{"-stream", "-b", "4", "-n", "20"}, 20, 4, 1, ""},
		{"short reply", benchGRPCShort, 3, []string{"-b", "5", "-n", "20"}, 1, 0, 0, "a reply of 4 IDs, want 5"},
		{"no reply", benchGRPCHang, 3, []string{"-b", "5", "-n", "20", "-timeout", "300ms"}, 1, 0, 0, "no reply within 300ms after 1 replies"},
		{"no message", benchGRPCHang, 3, []string{"-stream", "-n", "20", "-timeout", "300ms"}, 1, 0, 0, "no reply within 300ms after 1 replies"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			addr := startFakeGRPC(t, tc.fault, tc.at)
			code, got, stderr := benchGRPCJSON(t, addr, tc.args...)
			if code != 1 || stderr == "" {
				t.Errorf("exit %d, stderr %q; want 1 and a message", code, stderr)
			}
			if got.Requests != uint64(tc.requests) || got.Duplicates != uint64(tc.dups) || got.OrderViolations != uint64(tc.violations) {
				t.Errorf("got %d requests, %d duplicates, %d order violations; want %d, %d, %d",
					got.Requests, got.Duplicates, got.OrderViolations, tc.requests, tc.dups, tc.violations)
			}
			if tc.errWant != "" && (len(got.Errors) != 1 || !strings.Contains(got.Errors[0], tc.errWant)) {
				t.Errorf("errors %q, want one with %q", got.Errors, tc.errWant)
			}
		})
	}
}

// BenchmarkBenchGRPC measures a round trip of floe bench -grpc against
// floed's server in process, server included, per call or message.
func BenchmarkBenchGRPC(b *testing.B) {
	addr := startBenchGRPC(b, nil)
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"id64 batch 1", []string{"-b", "1"}},
		{"id128 batch 1", []string{"-seq", "o128", "-b", "1"}},
		{"id64 batch 100", []string{"-b", "100"}},
		{"id64 stream 100", []string{"-stream", "-b", "100"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			args := append([]string{"bench", "-grpc", addr, "-d", "0", "-n", strconv.Itoa(b.N), "-o", "json"}, bc.args...)
			b.ReportAllocs()
			b.ResetTimer()
			if code := run(args, io.Discard, io.Discard); code != 0 {
				b.Fatalf("exit %d", code)
			}
		})
	}
}
