package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestBenchDuplicates(t *testing.T) {
	conn := func(violations uint64, blocks ...[]uint64) *benchConn {
		return &benchConn{ids: blocks, violations: violations}
	}
	tests := []struct {
		name        string
		conns       []*benchConn
		dups, first uint64
	}{
		{"none", nil, 0, 0},
		{"one connection", []*benchConn{conn(0, []uint64{1, 2, 3}, []uint64{4, 5})}, 0, 0},
		{"disjoint", []*benchConn{conn(0, []uint64{1, 4, 7}), conn(0, []uint64{2, 5}, nil, []uint64{8}), conn(0, []uint64{3, 6, 9})}, 0, 0},
		{"across connections", []*benchConn{conn(0, []uint64{1, 4, 7}), conn(0, []uint64{2, 4}, []uint64{7, 9})}, 2, 4},
		{"three copies", []*benchConn{conn(0, []uint64{5}), conn(0, []uint64{5}), conn(0, []uint64{5, 6})}, 2, 5},
		{"within an unordered connection", []*benchConn{conn(1, []uint64{9, 3, 9}), conn(0, []uint64{4})}, 1, 9},
		{"empty connections", []*benchConn{conn(0), conn(0, nil, nil)}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if dups, first := benchDuplicates(tc.conns); dups != tc.dups || first != tc.first {
				t.Errorf("got %d duplicates, first %d; want %d, %d", dups, first, tc.dups, tc.first)
			}
		})
	}
}

func TestBenchResult_WriteText(t *testing.T) {
	ms := func(f float64) benchSeconds { return benchSeconds(f * float64(time.Millisecond)) }
	res := &benchResult{
		Target: "127.0.0.1:4444", Connections: 8, Pipeline: 1, Batch: 255,
		Duration: benchSeconds(10*time.Second + 1234*time.Microsecond), Warmup: benchSeconds(time.Second),
		Requests: 160784, IDs: 160784 * 255, IDsPerSecond: 4099599.6, RequestsPerSecond: 16076.8,
		Latency: benchLatency{P50: ms(0.31049), P99: ms(0.8213), P999: ms(1.2345), Max: ms(3412.5)},
		TimeLag: benchTimeLag{Min: -4, P50: -1, P99: 0, Max: 1}, TickSeconds: 0.001, StaleIDs: 3,
		UniqueChecked: true, IDsChecked: 42000000, Duplicates: 2, FirstDuplicate: "1541815603606036480",
		OrderViolations: 1, FirstViolation: &benchViolation{Conn: 3, Before: "1541815603606036481", ID: "1541815603606036480"},
		Errors: []string{"conn 3: closed by the server after 57 replies"},
	}
	want := `target:      127.0.0.1:4444
connections: 8 (pipeline 1)
batch:       255
duration:    10.001s (after 1s warmup)
requests:    160784
IDs:         40999920
IDs/s:       4099600
requests/s:  16077
latency:     p50 310µs p99 821µs p999 1.23ms max 3.41s
time lag:    p50 -1 p99 0 max 1 ticks of 1ms; 3 IDs name a tick before their request's send
unique:      42000000 IDs checked, 2 duplicates, 1 order violations
  first duplicate: 1541815603606036480
  first order violation: conn 3, 1541815603606036480 after 1541815603606036481
errors:      1 of 8 connections failed
  conn 3: closed by the server after 57 replies
`
	var out bytes.Buffer
	if err := res.writeText(&out); err != nil || out.String() != want {
		t.Errorf("got (%v)\n%s\nwant\n%s", err, out.String(), want)
	}
	if err := res.err(); err == nil || err.Error() != "2 duplicate IDs, 1 order violations, 1 of 8 connections failed" {
		t.Errorf("err: got %v", err)
	}

	res = &benchResult{Target: "x:1", Connections: 1, Pipeline: 4, Batch: 1, Interrupted: true, IDsChecked: 7, Errors: []string{}}
	out.Reset()
	_ = res.writeText(&out)
	for _, want := range []string{"duration:    0s (interrupted)\n", "latency:     p50 0s p99 0s p999 0s max 0s\n",
		"unique:      not checked (-check=false); 7 IDs checked for order, 0 order violations\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if err := res.err(); err != nil {
		t.Errorf("err: got %v, want nil", err)
	}
}

func TestBenchProgressLine(t *testing.T) {
	cfg := &benchConfig{conns: 8, batch: 255, warmup: time.Second}
	tests := []struct {
		elapsed time.Duration
		rate    float64
		failed  int64
		want    string
	}{
		{500 * time.Millisecond, 16077, 0, "500ms  16.1k req/s  4.10M IDs/s  (warmup)"},
		{3512 * time.Millisecond, 999.7, 2, "3.5s  1.00k req/s  255k IDs/s  2 of 8 connections failed"},
		{2 * time.Second, 3, 0, "2s  3.00 req/s  765 IDs/s"},
	}
	for _, tc := range tests {
		if got := benchProgressLine(tc.elapsed, cfg, tc.rate, tc.failed); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
