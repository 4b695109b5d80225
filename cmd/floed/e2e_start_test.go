//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/floeid/floe/internal/redistest"
)

// TestE2E_BindBeforeState starts floed on a port that is taken: it must
// stop naming the flag, before it writes its state or claims anything, so
// that the next start has no reservation to wait out.
func TestE2E_BindBeforeState(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()

	// A state file from a clean stop, which a failed start must leave as
	// it is.
	used := t.TempDir()
	f := startFloed(t, "--state", used)
	f.stop()
	stateFile := filepath.Join(used, "floed.state")
	before, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		state string // the state directory; "": a new one
		args  []string
		want  string
	}{
		{name: "binary port, no state yet", args: []string{"--listen", addr}, want: "--listen " + addr + ": address already in use"},
		{name: "http port, no state yet", args: []string{"--http", addr}, want: "--http " + addr + ": address already in use"},
		{name: "binary port, state", state: used, args: []string{"--listen", addr}, want: "--listen " + addr + ": address already in use"},
		{name: "http port, state", state: used, args: []string{"--http", addr}, want: "--http " + addr + ": address already in use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := tt.state
			if state == "" {
				state = filepath.Join(t.TempDir(), "state")
			}
			stderr, err := runToExit(t, nil, append([]string{"--state", state}, tt.args...), startDeadline)
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Errorf("floed exited with %v, want exit status 1", err)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("floed's stderr lacks %q:\n%s", tt.want, stderr)
			}
			if strings.Contains(stderr, "first start") {
				t.Errorf("floed looked at its state before binding:\n%s", stderr)
			}
			if tt.state == "" {
				if _, err := os.Stat(filepath.Join(state, "floed.state")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("a state file after the failed start (%v)", err)
				}
				return
			}
			after, err := os.ReadFile(stateFile)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(after, before) {
				t.Errorf("the failed start changed the state file:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestE2E_BindBeforeClaim starts a cluster node on a port that is taken: it
// must stop before it connects to the coordinator, leaving no key there.
func TestE2E_BindBeforeClaim(t *testing.T) {
	srv := redistest.Start(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	stderr, err := runToExit(t, nil, []string{"--redis", srv.Addr, "--redis-unsafe", "--listen", addr}, startDeadline)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("floed exited with %v, want exit status 1", err)
	}
	if want := "--listen " + addr + ": address already in use"; !strings.Contains(stderr, want) {
		t.Errorf("floed's stderr lacks %q:\n%s", want, stderr)
	}
	rdb := goredis.NewClient(&goredis.Options{Addr: srv.Addr})
	defer rdb.Close()
	keys, err := rdb.Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) > 0 {
		t.Errorf("the failed start left keys in Redis: %q", keys)
	}
}

// TestE2E_RangeErrorFirst starts floed with settings the server refuses:
// a usage error, exit status 2, before the first-start warning and with
// no state written.
func TestE2E_RangeErrorFirst(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"worker above the layout's", []string{"-w", "32"}, "floed: --worker 32, --datacenter 0: "},
		{"datacenter above the layout's", []string{"-d", "40"}, "datacenter id out of range"},
		{"one token for two sequences", []string{"--seq", "a=id80", "--token", "a=x", "--token", "default=x"}, `one token selects both`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state")
			stderr, err := runToExit(t, nil, append([]string{"--state", state}, tt.args...), startDeadline)
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Errorf("floed exited with %v, want exit status 2", err)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("floed's stderr lacks %q:\n%s", tt.want, stderr)
			}
			if strings.Contains(stderr, "first start") {
				t.Errorf("the first-start warning came before the error:\n%s", stderr)
			}
			if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the state directory was made (%v)", err)
			}
		})
	}
}
