package main

import (
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/internal/redistest"
)

func TestE2E_Version(t *testing.T) {
	out, err := exec.Command(floedBin, "--version").Output()
	if err != nil {
		t.Fatalf("floed --version: %v", err)
	}
	if got, want := string(out), "floed "+e2eVersion+" rev 012345678"; !strings.HasPrefix(got, want) {
		t.Errorf("floed --version printed %q, want it to start with %q", got, want)
	}
	f := startFloed(t)
	series := `floe_build_info{goversion="` + runtime.Version() + `",revision="` + e2eRevision + `",version="` + e2eVersion + `"}`
	if got := f.metrics()[series]; got != 1 {
		t.Errorf("%s = %v, want 1", series, got)
	}
	if !strings.Contains(f.stderr.String(), "version="+e2eVersion+" revision=0123456789ab") {
		t.Errorf("the start's log line does not name the version and revision:\n%s", f.stderr.String())
	}
}

// TestE2E_ErrorsOnce checks that floed prints each error that stops it
// once.
func TestE2E_ErrorsOnce(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"nothing to serve", nil, []string{"--listen", "", "--http", ""}, "nothing to serve"},
		{"malformed flag", nil, []string{"--worker", "abc"}, `invalid value "abc" for flag -worker`},
		{"unknown flag", nil, []string{"--bogus"}, "flag provided but not defined: -bogus"},
		{"malformed variable", []string{"FLOE_MAX_CONNS=0"}, nil, `$FLOE_MAX_CONNS="0"`},
		{"malformed sequence", nil, []string{"--seq", "x=id42"}, `invalid value "x=id42" for flag -seq`},
		{"token of no sequence", nil, []string{"--token", "nope=secret"}, "unknown sequence"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stderr, err := runToExit(t, tc.env, append(tc.args, "--state", t.TempDir()), startDeadline)
			if err == nil {
				t.Fatalf("floed exited 0, want an error:\n%s", stderr)
			}
			if got := strings.Count(stderr, tc.want); got != 1 {
				t.Errorf("%q printed %d times, want once:\n%s", tc.want, got, stderr)
			}
			if strings.Contains(stderr, "-worker id") {
				t.Errorf("an error printed every flag:\n%s", stderr)
			}
		})
	}
}

func TestE2E_TimeOfDeathInTheFuture(t *testing.T) {
	tests := []struct {
		name     string
		tod      time.Time
		wantWarn bool
	}{
		{"in the future", time.Now().Add(time.Hour), true},
		{"in the past", time.Now().Add(-time.Hour), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := startFloed(t, "-t", strconv.FormatInt(tc.tod.UnixMilli(), 10))
			got := strings.Contains(f.stderr.String(), "--time-of-death is in the future")
			if got != tc.wantWarn {
				t.Errorf("warned: %v, want %v:\n%s", got, tc.wantWarn, f.stderr.String())
			}
			f.stop()
		})
	}
}

// TestE2E_GoRedisLogs checks that go-redis's own log lines, which it
// writes when its pool cannot dial the lost server, come through floed's
// log (at debug level) rather than as lines of go-redis's format.
func TestE2E_GoRedisLogs(t *testing.T) {
	srv := redistest.Start(t)
	f := startFloed(t, "--redis", srv.Addr, "--redis-unsafe", "--log-level", "debug", "--lease-ttl", "2s")
	srv.Kill()
	if !waitFor(20*time.Second, func() bool { return strings.Contains(f.stderr.String(), "go-redis: ") }) {
		t.Fatalf("no go-redis line in floed's log within 20 s of losing Redis:\n%s", f.stderr.String())
	}
	for line := range strings.Lines(f.stderr.String()) {
		if strings.HasPrefix(line, "redis: ") {
			t.Errorf("a line in go-redis's own format: %q", line)
		}
	}
}
