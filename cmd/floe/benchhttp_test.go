package main

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/internal/server"
	"github.com/floeid/floe/internal/server/servertest"
	"github.com/floeid/floe/sequencer"
)

// startBenchServer starts floed's server (internal/server) with a sequence
// of each format, its HTTP API on 127.0.0.1, and returns its host:port.
// The sequence "locked" (id128) requires the token s3cret.
func startBenchServer(t testing.TB) string {
	t.Helper()
	hs := httptest.NewServer(newBenchServer(t).Handler())
	t.Cleanup(hs.Close)
	return strings.TrimPrefix(hs.URL, "http://")
}

// newBenchServer returns floed's server (internal/server), ready, with
// the sequences of startBenchServer; it closes when the test ends.
func newBenchServer(t testing.TB) *server.Server {
	t.Helper()
	srv, err := server.New(server.Config{
		Sequences: []server.SequenceConfig{
			{Name: "default"},
			{Name: "o80", Format: server.Format80, Node: 1},
			{Name: "o96", Format: server.Format96, Node: 1},
			{Name: "o128", Format: server.Format128, Node: 1},
			{Name: "locked", Format: server.Format128, Node: 2, Tokens: []string{"s3cret"}},
		},
		Store:  &servertest.Store{},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	deadline := time.Now().Add(10 * time.Second)
	for srv.Ready() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("not ready after 10 s: %v", srv.Ready())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return srv
}

// benchHTTPJSON runs "floe bench -http addr -o json" with args and returns
// the exit status, the decoded report and stderr.
func benchHTTPJSON(t *testing.T, addr string, args ...string) (int, benchJSON, string) {
	t.Helper()
	return benchAPIJSON(t, "-http", addr, args...)
}

// TestBenchHTTP runs floe bench -http against the real server, a sequence
// of each format: every ID unique and in order, none naming a tick before
// its request's send.
func TestBenchHTTP(t *testing.T) {
	addr := startBenchServer(t)
	m := schedtest.Now() // the runs' -d is stretched by the slowdown since
	tick96 := float64(1<<17) / 1e9
	tests := []struct {
		seq, format string
		tick        float64
		args        []string
		requests    int64 // -1: a duration
	}{
		{"", "id64", 0.001, []string{"-n", "200"}, 200},
		{"o80", "id80", 0.004, []string{"-n", "200"}, 200},
		{"o96", "id96", tick96, []string{"-n", "200"}, 200},
		{"o128", "id128", 0.001, []string{"-n", "200"}, 200},
		{"default", "id64", 0.001, []string{"-c", "4", "-b", "100", "-d", "200ms", "-warmup", "50ms"}, -1},
		{"o80", "id80", 0.004, []string{"-c", "4", "-b", "100", "-d", "200ms"}, -1},
		{"o96", "id96", tick96, []string{"-c", "4", "-b", "100", "-d", "200ms"}, -1},
		{"o128", "id128", 0.001, []string{"-c", "4", "-b", "1000", "-d", "200ms"}, -1},
		{"locked", "id128", 0.001, []string{"-c", "2", "-b", "10", "-n", "50", "-token", "s3cret"}, 50},
		{"", "id64", 0.001, []string{"-nethttp", "-n", "200"}, 200},
		{"locked", "id128", 0.001, []string{"-nethttp", "-c", "2", "-b", "10", "-n", "50", "-token", "s3cret"}, 50},
	}
	for _, tc := range tests {
		t.Run(tc.format+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			args := stretchDurations(m, tc.args)
			if tc.seq != "" {
				args = append([]string{"-seq", tc.seq}, args...)
			}
			code, got, stderr := benchHTTPJSON(t, addr, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s (errors %q)", code, stderr, got.Errors)
			}
			wantSeq := cmp.Or(tc.seq, "default")
			if got.Format != tc.format || got.Sequence != wantSeq || got.TickSeconds != tc.tick {
				t.Errorf("format %q, seq %q, tick %vs; want %q, %q, %vs", got.Format, got.Sequence, got.TickSeconds, tc.format, wantSeq, tc.tick)
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
			l := got.Latency
			if !(0 < l.P50 && l.P50 <= l.P99 && l.P99 <= l.P999 && l.P999 <= l.Max) {
				t.Errorf("latency quantiles out of order: %+v", l)
			}
		})
	}
}

func TestBenchHTTP_Text(t *testing.T) {
	addr := startBenchServer(t)
	var out, errOut bytes.Buffer
	if code := run([]string{"bench", "-http", "http://" + addr, "-seq", "o128", "-c", "2", "-b", "5", "-n", "30"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{
		"target:      http://" + addr + "/v1/ids?seq=o128\nformat:      id128 (sequence o128)\nconnections: 2 (pipeline 1)\n",
		"IDs:         150\n",
		"ticks of 1ms; 0 IDs name a tick before their request's send\n",
		"unique:      150 IDs checked, 0 duplicates, 0 order violations\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// benchHTTPFault is how a fakeIDs server misbehaves.
type benchHTTPFault int

const (
	benchHTTPNone       benchHTTPFault = iota
	benchHTTPOwnCounter                // each connection counts from 1, so IDs repeat across connections
	benchHTTPRepeat                    // request at repeats the IDs of the request before it
	benchHTTPStatus                    // request at gets a 503
	benchHTTPShort                     // request at gets one ID too few
	benchHTTPGarbage                   // request at gets a line that is no ID
)

// startFakeIDs starts an HTTP server that serves /v1/sequences, with one
// default sequence of format, and /v1/ids from a counter, as fault says,
// at its request number at (from 1, over all connections).
func startFakeIDs(t *testing.T, format sequencer.Format, fault benchHTTPFault, at int) string {
	t.Helper()
	spec, err := sequencer.Definition{Format: format}.Spec()
	if err != nil {
		t.Fatal(err)
	}
	ms := uint64(time.Now().UnixMilli())
	text := func(v uint64) string {
		if format == sequencer.Format128 {
			var b [16]byte
			binary.BigEndian.PutUint64(b[:], ms<<16|0x7000)
			binary.BigEndian.PutUint64(b[8:], 1<<63|v)
			id, err := id128.FromBytes(b[:])
			if err != nil {
				panic(err)
			}
			return id.String()
		}
		return strconv.FormatUint(uint64(id64.Twitter.First(time.UnixMilli(int64(ms))))+v, 10)
	}
	var mu sync.Mutex
	var next, reqs uint64
	own := map[string]uint64{}
	var last []string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/sequences", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"sequences":[{"name":"default","format":%q,"spec":%q,"default":true}]}`, format, spec)
	})
	mux.HandleFunc("GET /v1/ids", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		mu.Lock()
		defer mu.Unlock()
		reqs++
		hit := reqs == uint64(at)
		var ids []string
		for range n {
			if fault == benchHTTPOwnCounter {
				own[r.RemoteAddr]++
				ids = append(ids, text(own[r.RemoteAddr]))
			} else {
				next++
				ids = append(ids, text(next))
			}
		}
		switch {
		case hit && fault == benchHTTPRepeat:
			ids = last
		case hit && fault == benchHTTPStatus:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, `{"error":"sequence default is not ready","code":"not_ready"}`)
			return
		case hit && fault == benchHTTPShort:
			ids = ids[1:]
		case hit && fault == benchHTTPGarbage:
			ids[0] = "bogus"
		}
		last = ids
		for _, id := range ids {
			fmt.Fprintln(w, id)
		}
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return strings.TrimPrefix(hs.URL, "http://")
}

func TestBenchHTTP_Faults(t *testing.T) {
	tests := []struct {
		name                       string
		format                     sequencer.Format
		fault                      benchHTTPFault
		at                         int
		args                       []string
		code                       int
		requests, dups, violations int64 // -1: not checked
		errs                       int
		errWant                    string
	}{
		{"id128 well-behaved", sequencer.Format128, benchHTTPNone, 0, []string{"-c", "2", "-b", "10", "-n", "100"}, 0, 100, 0, 0, 0, ""},
		{"id128 duplicates across connections", sequencer.Format128, benchHTTPOwnCounter, 0, []string{"-c", "2", "-n", "100"}, 1, 100, 50, 0, 0, ""},
		{"id64 duplicates across connections", sequencer.Format64, benchHTTPOwnCounter, 0, []string{"-c", "2", "-b", "3", "-n", "10"}, 1, 10, 15, 0, 0, ""},
		{"id128 duplicates unchecked", sequencer.Format128, benchHTTPOwnCounter, 0, []string{"-c", "2", "-n", "100", "-check=false"}, 0, 100, 0, 0, 0, ""},
		{"id128 repeated reply", sequencer.Format128, benchHTTPRepeat, 5, []string{"-b", "4", "-n", "20"}, 1, 20, 4, 1, 0, ""},
		{"id64 repeated reply", sequencer.Format64, benchHTTPRepeat, 5, []string{"-b", "4", "-n", "20"}, 1, 20, 4, 1, 0, ""},
		{"503", sequencer.Format128, benchHTTPStatus, 5, []string{"-n", "20"}, 1, 4, 0, 0, 1, "HTTP 503 Service Unavailable: sequence default is not ready"},
		{"short reply", sequencer.Format128, benchHTTPShort, 3, []string{"-b", "5", "-n", "20"}, 1, 2, 0, 0, 1, "a reply of 4 IDs, want 5"},
		{"not an ID", sequencer.Format128, benchHTTPGarbage, 3, []string{"-b", "5", "-n", "20"}, 1, 2, 0, 0, 1, `a reply's ID 1: floe: cannot parse "bogus" as id128`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			addr := startFakeIDs(t, tc.format, tc.fault, tc.at)
			code, got, stderr := benchHTTPJSON(t, addr, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if tc.requests >= 0 && got.Requests != uint64(tc.requests) {
				t.Errorf("requests: got %d, want %d", got.Requests, tc.requests)
			}
			if got.Duplicates != uint64(tc.dups) || got.OrderViolations != uint64(tc.violations) || len(got.Errors) != tc.errs {
				t.Errorf("got %d duplicates, %d order violations, errors %q; want %d, %d, %d errors",
					got.Duplicates, got.OrderViolations, got.Errors, tc.dups, tc.violations, tc.errs)
			}
			if tc.errWant != "" && (len(got.Errors) == 0 || !strings.Contains(got.Errors[0], tc.errWant)) {
				t.Errorf("errors %q, want one with %q", got.Errors, tc.errWant)
			}
			if got.Duplicates > 0 {
				if _, err := benchParseAs(tc.format, got.FirstDuplicate); err != nil {
					t.Errorf("first duplicate %q is not in the format's text: %v", got.FirstDuplicate, err)
				}
			}
			if v := got.FirstViolation; v != nil {
				if _, err := benchParseAs(tc.format, v.ID); err != nil {
					t.Errorf("first violation %+v is not in the format's text: %v", v, err)
				}
			}
			if tc.code != 0 && stderr == "" {
				t.Error("failed without a message on stderr")
			}
		})
	}
}

// benchParseAs parses s with the Parse of format.
func benchParseAs(format sequencer.Format, s string) (any, error) {
	switch format {
	case sequencer.Format80:
		return id80.Parse(s)
	case sequencer.Format96:
		return id96.Parse(s)
	case sequencer.Format128:
		return id128.Parse(s)
	}
	return id64.Parse(s)
}

func TestBenchHTTP_BadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"-seq", "orders"}, "floe bench: -seq needs -http"},
		{[]string{"-http", "localhost:4445", "-addr", "localhost:4444"}, "floe bench: -addr and -http: give one"},
		{[]string{"-http", "localhost:4445", "-pipeline", "4"}, "floe bench: -pipeline is for the binary protocol"},
		{[]string{"-http", "localhost:4445", "-layout", "twitter"}, "floe bench: -layout is for the binary protocol"},
		{[]string{"-http", "localhost:4445", "-b", "0"}, "floe bench: -b 0: want 1..1048576"},
		{[]string{"-http", "localhost"}, `floe bench: -http: "localhost": want host:port`},
		{[]string{"-http", "ftp://localhost:4445"}, "want host:port, http://host:port or https://host:port"},
		{[]string{"-http", "http://localhost:4445/v1/ids"}, "without a path"},
		{[]string{"-http", "localhost:4445", "-token", "a\r\nX: y"}, "floe bench: -token: a control character"},
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

func TestBenchHTTP_Refused(t *testing.T) {
	addr := startBenchServer(t)
	tests := []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"-seq", "nope"}, `floe bench: ` + addr + ` serves no sequence "nope" (it serves default, o80, o96, o128, locked)`},
		{[]string{"-seq", "locked"}, "HTTP 401 Unauthorized: sequence locked requires a token"},
		{[]string{"-seq", "o128", "-b", "1001"}, "HTTP 400 Bad Request: n must be a count of 1..1000"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(append([]string{"bench", "-http", addr, "-n", "5"}, tc.args...), &out, &errOut)
			if code != 1 || !strings.Contains(out.String()+errOut.String(), tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out.String(), errOut.String(), tc.want)
			}
		})
	}
}

func TestBenchKey(t *testing.T) {
	// Keys order as the IDs do, and keep them whole.
	a64, b64 := id64.ID(5), id64.ID(1<<63|1)
	a80, b80 := id80.MustParse("2222222222222223"), id80.MustParse("x222222222222222")
	a96, b96 := id96.FromUint64(7, 1), id96.FromUint64(7, 2)
	a128 := id128.MustParse("01900000-0000-7000-8000-000000000001")
	b128 := id128.MustParse("01900000-0000-7000-8000-000000000002")
	tests := []struct {
		name     string
		a, b     benchKey
		want     int
		format   sequencer.Format
		wantText string
	}{
		{"id64", benchKey{hi: uint64(a64)}, benchKey{hi: uint64(b64)}, -1, sequencer.Format64, a64.String()},
		{"id80", benchKeyOf(a80[:]), benchKeyOf(b80[:]), a80.Compare(b80), sequencer.Format80, a80.String()},
		{"id96", benchKeyOf(a96[:]), benchKeyOf(b96[:]), a96.Compare(b96), sequencer.Format96, a96.String()},
		{"id128", benchKeyOf(a128[:]), benchKeyOf(b128[:]), a128.Compare(b128), sequencer.Format128, a128.String()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.compare(tc.b); got != tc.want {
				t.Errorf("compare: got %d, want %d", got, tc.want)
			}
			if got := tc.b.compare(tc.a); got != -tc.want {
				t.Errorf("compare reversed: got %d, want %d", got, -tc.want)
			}
			if got := tc.a.compare(tc.a); got != 0 {
				t.Errorf("compare to itself: got %d, want 0", got)
			}
			f, err := benchFormatOf("s", sequencer.Definition{Format: tc.format})
			if err != nil {
				t.Fatal(err)
			}
			if got := f.text(tc.a); got != tc.wantText {
				t.Errorf("text: got %q, want %q", got, tc.wantText)
			}
			k, _, err := f.decode([]byte(tc.wantText))
			if err != nil || k != tc.a {
				t.Errorf("decode(%q): got %v, %v; want %v", tc.wantText, k, err, tc.a)
			}
		})
	}
}

// BenchmarkBenchHTTP measures a round trip of floe bench -http against
// floed's server in process, server included, per request; allocs/op are
// the bench's and the server's.
func BenchmarkBenchHTTP(b *testing.B) {
	addr := startBenchServer(b)
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"id64 batch 1", []string{"-b", "1"}},
		{"id128 batch 1", []string{"-seq", "o128", "-b", "1"}},
		{"id64 batch 100", []string{"-b", "100"}},
		{"id128 batch 100", []string{"-seq", "o128", "-b", "100"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			args := append([]string{"bench", "-http", addr, "-d", "0", "-n", strconv.Itoa(b.N), "-o", "json"}, bc.args...)
			b.ReportAllocs()
			b.ResetTimer()
			if code := run(args, io.Discard, io.Discard); code != 0 {
				b.Fatalf("exit %d", code)
			}
		})
	}
}
