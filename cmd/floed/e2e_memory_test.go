//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// memStatus is a process's resident memory from /proc/<pid>/status, in
// bytes: the total, its anonymous part (heap, stacks, runtime) and its
// file-backed part (mostly the binary's own pages).
type memStatus struct{ rss, anon, file int64 }

// memStatus reads the daemon's resident memory.
func (f *floed) memStatus() memStatus {
	f.t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(f.Pid()) + "/status")
	if err != nil {
		f.t.Fatalf("reading the daemon's memory: %v", err)
	}
	var m memStatus
	fields := map[string]*int64{"VmRSS:": &m.rss, "RssAnon:": &m.anon, "RssFile:": &m.file}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.Fields(sc.Text())
		if len(line) != 3 || line[2] != "kB" || fields[line[0]] == nil {
			continue
		}
		kb, err := strconv.ParseInt(line[1], 10, 64)
		if err != nil {
			f.t.Fatalf("/proc/%d/status: %q: %v", f.Pid(), sc.Text(), err)
		}
		*fields[line[0]] = kb << 10
	}
	if m.rss == 0 {
		f.t.Fatalf("/proc/%d/status has no VmRSS:\n%s", f.Pid(), b)
	}
	return m
}

func (m memStatus) String() string {
	return fmt.Sprintf("RSS %.1f MB (anonymous %.1f MB, file %.1f MB)", mb(m.rss), mb(m.anon), mb(m.file))
}

func mb(n int64) float64 { return float64(n) / 1e6 }

// TestE2E_IdleMemory reports the daemon's resident memory idle and while
// it holds 1,000 and 10,000 idle binary connections, each of which made
// one request first, with and without a token. The figures are logged
// (go test -v), not asserted: they depend on the machine and the runtime.
func TestE2E_IdleMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 connections; skipped with -short")
	}
	const most = 10000
	raiseFileLimit(t, most+500)
	tests := []struct {
		name  string
		token string
	}{
		{name: "without a token"},
		{name: "with a token", token: "the-token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var env []string
			if tc.token != "" {
				env = []string{"FLOE_TOKEN=" + tc.token}
			}
			f := startFloedEnv(t, env, "--max-conns", strconv.Itoa(most+100))
			idle := f.memStatus()
			t.Logf("idle: %v", idle)

			var conns []net.Conn
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			for _, n := range []int{1000, most} {
				for len(conns) < n {
					c, err := dialNoeq(f.Bin, tc.token)
					if err != nil {
						t.Fatalf("connection %d: %v", len(conns)+1, err)
					}
					conns = append(conns, c)
					c.SetDeadline(time.Now().Add(30 * time.Second))
					if _, err := fetch(c, 255); err != nil {
						t.Fatalf("connection %d: %v", len(conns), err)
					}
				}
				got := f.memStatus()
				t.Logf("%d idle connections: %v; %.2f kB a connection (%.2f kB anonymous)",
					n, got, float64(got.rss-idle.rss)/1e3/float64(n), float64(got.anon-idle.anon)/1e3/float64(n))
				// Scraped after reading the RSS: a scrape allocates.
				m := f.metrics()
				t.Logf("%d idle connections, the runtime's view: heap in use %.1f MB, stacks %.1f MB, %.0f goroutines",
					n, mb(int64(m["go_memstats_heap_inuse_bytes"])), mb(int64(m["go_memstats_stack_inuse_bytes"])), m["go_goroutines"])
			}
		})
	}
}
