package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// benchJSON is the -o json output, as the tests read it.
type benchJSON struct {
	Target            string  `json:"target"`
	Format            string  `json:"format"`
	Sequence          string  `json:"seq"`
	Connections       int     `json:"connections"`
	Pipeline          int     `json:"pipeline"`
	Batch             int     `json:"batch"`
	Duration          float64 `json:"duration_seconds"`
	Requests          uint64  `json:"requests"`
	IDs               uint64  `json:"ids"`
	IDsPerSecond      float64 `json:"ids_per_second"`
	CapIDsPerSecond   float64 `json:"cap_ids_per_second"`
	CapPercent        float64 `json:"cap_percent"`
	RequestsPerSecond float64 `json:"requests_per_second"`
	Latency           struct {
		P50, P99, P999, Max float64
	} `json:"latency_seconds"`
	UniqueChecked   bool            `json:"unique_checked"`
	IDsChecked      uint64          `json:"ids_checked"`
	Duplicates      uint64          `json:"duplicates"`
	FirstDuplicate  string          `json:"first_duplicate"`
	OrderViolations uint64          `json:"order_violations"`
	FirstViolation  *benchViolation `json:"first_order_violation"`
	Errors          []string        `json:"errors"`
	TimeLag         benchTimeLag    `json:"time_lag_ticks"`
	TickSeconds     float64         `json:"tick_seconds"`
	StaleIDs        uint64          `json:"stale_ids"`
}

// benchRunJSON runs "floe bench -o json" with args against addr and
// returns the exit status, the decoded report and stderr.
func benchRunJSON(t *testing.T, addr string, args ...string) (int, benchJSON, string) {
	t.Helper()
	return benchAPIJSON(t, "-addr", addr, args...)
}

// benchAPIJSON runs "floe bench" with api (-addr, -http or -grpc) set to
// addr, "-o json" and args, and returns the exit status, the decoded
// report and stderr.
func benchAPIJSON(t *testing.T, api, addr string, args ...string) (int, benchJSON, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"bench", api, addr, "-o", "json", "-timeout", "2s"}, args...), &out, &errOut)
	var got benchJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("exit %d, output %q (stderr %q): %v", code, out.String(), errOut.String(), err)
	}
	return code, got, errOut.String()
}

func TestBench(t *testing.T) {
	tests := []struct {
		name  string
		fault benchFault
		at    int
		args  []string
		code  int
		// Wanted figures; -1: anything but checked for consistency.
		requests, dups, violations int64
		failed                     int
	}{
		{"closed loop", benchFaultNone, 0, []string{"-n", "500"}, 0, 500, 0, 0, 0},
		{"batch 255 on 4 connections", benchFaultNone, 0, []string{"-c", "4", "-b", "255", "-n", "402"}, 0, 402, 0, 0, 0},
		{"pipelined", benchFaultNone, 0, []string{"-c", "3", "-b", "7", "-pipeline", "16", "-n", "1000"}, 0, 1000, 0, 0, 0},
		{"more connections than requests", benchFaultNone, 0, []string{"-c", "5", "-n", "3"}, 0, 3, 0, 0, 0},
		{"for a duration", benchFaultNone, 0, []string{"-c", "2", "-b", "10", "-d", "200ms"}, 0, -1, 0, 0, 0},
		{"pipelined for a duration", benchFaultNone, 0, []string{"-c", "2", "-b", "3", "-pipeline", "8", "-d", "200ms"}, 0, -1, 0, 0, 0},
		{"with warmup", benchFaultNone, 0, []string{"-warmup", "100ms", "-d", "500ms"}, 0, -1, 0, 0, 0},
		{"unchecked", benchFaultNone, 0, []string{"-c", "2", "-n", "100", "-check=false"}, 0, 100, 0, 0, 0},
		{"duplicates across connections", benchFaultOwnCounter, 0, []string{"-c", "2", "-n", "100"}, 1, 100, 50, 0, 0},
		{"duplicates unchecked", benchFaultOwnCounter, 0, []string{"-c", "2", "-n", "100", "-check=false"}, 0, 100, 0, 0, 0},
		{"repeated ID", benchFaultRepeat, 10, []string{"-n", "50"}, 1, 50, 1, 1, 0},
		{"repeated ID in a batch", benchFaultRepeat, 3, []string{"-c", "2", "-b", "20", "-n", "20"}, 1, 20, 2, 2, 0},
		{"decreasing ID", benchFaultDecrease, 10, []string{"-n", "50"}, 1, 50, 0, 1, 0},
		{"decreasing IDs pipelined", benchFaultDecrease, 5, []string{"-c", "3", "-b", "4", "-pipeline", "4", "-n", "60"}, 1, 60, 0, 3, 0},
		// The faults end every connection, which ends the run: the -d of
		// these three is an upper limit the run never reaches, so that
		// the exact counts do not depend on how fast a loaded machine
		// sends (with -d 200ms, 19 requests a connection may not fit).
		{"closed by the server", benchFaultClose, 20, []string{"-c", "2", "-d", "30s"}, 1, 38, 0, 0, 2},
		{"closed by the server pipelined", benchFaultClose, 20, []string{"-b", "2", "-pipeline", "5", "-d", "30s"}, 1, 19, 0, 0, 1},
		{"silent server", benchFaultSilent, 5, []string{"-d", "30s", "-timeout", "200ms"}, 1, 4, 0, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := startBenchFake(t, "", tc.fault, tc.at)
			code, got, stderr := benchRunJSON(t, fake.addr, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if tc.requests >= 0 && got.Requests != uint64(tc.requests) {
				t.Errorf("requests: got %d, want %d", got.Requests, tc.requests)
			}
			if got.Requests == 0 {
				t.Fatalf("no requests: %+v", got)
			}
			if want := got.Requests * uint64(got.Batch); got.IDs != want {
				t.Errorf("IDs: got %d, want requests × batch = %d", got.IDs, want)
			}
			if got.IDsChecked < got.IDs {
				t.Errorf("IDs checked: got %d, want at least the %d IDs", got.IDsChecked, got.IDs)
			}
			if got.Duplicates != uint64(tc.dups) || got.OrderViolations != uint64(tc.violations) || len(got.Errors) != tc.failed {
				t.Errorf("got %d duplicates, %d order violations, errors %q; want %d, %d, %d errors",
					got.Duplicates, got.OrderViolations, got.Errors, tc.dups, tc.violations, tc.failed)
			}
			if (got.Duplicates > 0) != (got.FirstDuplicate != "") || (got.OrderViolations > 0) != (got.FirstViolation != nil) {
				t.Errorf("first duplicate %q, first violation %v; want them with the counts", got.FirstDuplicate, got.FirstViolation)
			}
			if got.Duration <= 0 || !benchNear(got.IDsPerSecond, float64(got.IDs)/got.Duration) ||
				!benchNear(got.RequestsPerSecond, float64(got.Requests)/got.Duration) {
				t.Errorf("rates %v IDs/s, %v requests/s do not match %d IDs, %d requests in %vs",
					got.IDsPerSecond, got.RequestsPerSecond, got.IDs, got.Requests, got.Duration)
			}
			l := got.Latency
			if !(0 < l.P50 && l.P50 <= l.P99 && l.P99 <= l.P999 && l.P999 <= l.Max) {
				t.Errorf("latency quantiles out of order: %+v", l)
			}
			if tc.code != 0 && stderr == "" {
				t.Error("failed without a message on stderr")
			}
		})
	}
}

// benchNear reports whether a and b are equal but for rounding.
func benchNear(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func TestBench_Text(t *testing.T) {
	fake := startBenchFake(t, "", benchFaultNone, 0)
	var out, errOut bytes.Buffer
	if code := run([]string{"bench", "-addr", fake.addr, "-c", "2", "-b", "5", "-n", "300", "-progress", "on"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	report := out.String()
	for _, want := range []string{
		"target:      " + fake.addr + "\n",
		"connections: 2 (pipeline 1)\n",
		"batch:       5\n",
		"requests:    300\n",
		"IDs:         1500\n",
		"unique:      1500 IDs checked, 0 duplicates, 0 order violations\n",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	keys := regexp.MustCompile(`(?m)^([a-zA-Z/]+):`).FindAllStringSubmatch(report, -1)
	var got []string
	for _, k := range keys {
		got = append(got, k[1])
	}
	want := []string{"target", "connections", "batch", "duration", "requests", "IDs", "IDs/s", "cap", "requests/s", "latency", "unique"}
	if !slices.Equal(got, want) {
		t.Errorf("report lines: got %q, want %q", got, want)
	}
	if !strings.HasSuffix(errOut.String(), "\r\x1b[K") {
		t.Errorf("progress line not erased at the end: %q", errOut.String())
	}
}

func TestBench_Token(t *testing.T) {
	tests := []struct {
		name       string
		env        map[string]string
		args       []string
		want, sent string // the server's token, and the one it should get
		code       int
	}{
		{"flag", nil, []string{"-token", "s3cret"}, "s3cret", "s3cret", 0},
		{"FLOE_TOKEN", map[string]string{"FLOE_TOKEN": "s3cret", "NOEQ_TOKEN": "other"}, nil, "s3cret", "s3cret", 0},
		{"NOEQ_TOKEN", map[string]string{"NOEQ_TOKEN": "s3cret"}, nil, "s3cret", "s3cret", 0},
		{"flag over environment", map[string]string{"FLOE_TOKEN": "other"}, []string{"-token", "s3cret"}, "s3cret", "s3cret", 0},
		{"wrong token", nil, []string{"-token", "guess"}, "s3cret", "guess", 1},
		{"no token for a server without one", nil, nil, "", "", 0},
		{"token for a server without one", nil, []string{"-token", "s3cret"}, "", "s3cret", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("FLOE_TOKEN", "")
			t.Setenv("NOEQ_TOKEN", "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			fake := startBenchFake(t, tc.want, benchFaultNone, 0)
			code, got, stderr := benchRunJSON(t, fake.addr, append([]string{"-c", "2", "-n", "10"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q, errors %q)", code, tc.code, stderr, got.Errors)
			}
			var want []string
			if tc.sent != "" {
				want = []string{tc.sent, tc.sent}
			}
			if tokens := fake.receivedTokens(); !slices.Equal(tokens, want) {
				t.Errorf("server got auth frames %q, want %q", tokens, want)
			}
		})
	}
}

func TestBench_BadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"-b", "0"}, "floe bench: -b 0:"},
		{[]string{"-b", "256"}, "floe bench: -b 256:"},
		{[]string{"-c", "0"}, "floe bench: -c 0:"},
		{[]string{"-pipeline", "0"}, "floe bench: -pipeline 0:"},
		{[]string{"-pipeline", "5000"}, "floe bench: -pipeline 5000:"},
		{[]string{"-d", "-1s"}, "floe bench: -d -1s: want a duration of 0 or more"},
		{[]string{"-warmup", "-1s"}, "floe bench: -warmup -1s: want a duration of 0 or more"},
		{[]string{"-timeout", "0"}, "floe bench: -timeout 0s: want a duration above 0"},
		{[]string{"-n", "-1"}, "floe bench: -n -1:"},
		{[]string{"-d", "0"}, "floe bench: -d 0 needs -n"},
		{[]string{"-o", "xml"}, `floe bench: -o "xml"`},
		{[]string{"-progress", "maybe"}, "-progress"},
		{[]string{"-token", strings.Repeat("x", 256)}, "-token"},
		{[]string{"-layout", "bogus"}, `floe bench: -layout "bogus"`},
		{[]string{"-layout", "41t/10w/12s 1ms"}, "-layout"},
		{[]string{"extra"}, "unexpected arguments"},
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

func TestBench_Refused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var out, errOut bytes.Buffer
	code := run([]string{"bench", "-addr", addr, "-c", "3", "-d", "100ms"}, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "floe bench: connection 1 of 3: dial tcp") || out.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 and the dial error", code, out.String(), errOut.String())
	}
}

// BenchmarkBench measures the bench's own cost per request against the
// in-process fake, and shows its loop does not allocate: allocs/op tends
// to 0 as b.N grows (the run's setup is amortized over b.N requests).
func BenchmarkBench(b *testing.B) {
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"closed loop batch 1", []string{"-b", "1"}},
		{"pipeline 16 batch 255", []string{"-b", "255", "-pipeline", "16"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			fake := startBenchFake(b, "", benchFaultNone, 0)
			args := append([]string{"bench", "-addr", fake.addr, "-d", "0", "-n", strconv.Itoa(b.N), "-check=false", "-o", "json"}, bc.args...)
			b.ReportAllocs()
			b.ResetTimer()
			if code := run(args, io.Discard, io.Discard); code != 0 {
				b.Fatalf("exit %d", code)
			}
		})
	}
}
