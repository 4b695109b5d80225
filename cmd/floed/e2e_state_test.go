//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestE2E_RequireState starts floed on new, kept and lost state: a start
// without a state file is logged as a first start, and --require-state
// refuses it unless -t says above which time to start.
func TestE2E_RequireState(t *testing.T) {
	const firstStart = "first start: no state file"
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	state := t.TempDir()
	tests := []struct {
		name      string
		prepare   func(t *testing.T) // before the start
		args      []string
		refused   bool
		wantFirst bool // the log says first start
	}{
		{name: "new directory refused", args: []string{"--require-state"}, refused: true},
		{name: "new directory with -t", args: []string{"--require-state", "-t", now}, wantFirst: true},
		{name: "state kept", args: []string{"--require-state"}},
		{name: "state kept without the option", args: nil},
		{name: "state deleted, refused", prepare: deleteState(state), args: []string{"--require-state"}, refused: true},
		{name: "state deleted, refused by the variable", prepare: deleteState(state), refused: true},
		{name: "state deleted without the option", prepare: deleteState(state), args: nil, wantFirst: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.prepare != nil {
				tc.prepare(t)
			}
			var env []string
			if strings.Contains(tc.name, "by the variable") {
				env = []string{"FLOE_REQUIRE_STATE=true"}
			}
			args := append([]string{"--state", state}, tc.args...)
			if tc.refused {
				stderr, err := runToExit(t, env, args, startDeadline)
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() == 0 {
					t.Fatalf("floed exited with %v, want a failure", err)
				}
				for _, want := range []string{"no state file in " + filepath.Join(state, "floed.state"), "--require-state", "--time-of-death"} {
					if !strings.Contains(stderr, want) {
						t.Errorf("stderr lacks %q:\n%s", want, stderr)
					}
				}
				if _, err := os.Stat(filepath.Join(state, "floed.state")); err == nil {
					t.Error("a refused start wrote a state file")
				}
				return
			}
			f := startFloedEnv(t, env, args...)
			if _, err := fetchOnce(f.Bin, 10); err != nil {
				t.Fatal(err)
			}
			f.stop()
			if got := strings.Contains(f.stderr.String(), firstStart); got != tc.wantFirst {
				t.Errorf("first start logged: %v, want %v:\n%s", got, tc.wantFirst, f.stderr.String())
			}
		})
	}
}

// deleteState returns a step that deletes the state file in dir, if any.
func deleteState(dir string) func(t *testing.T) {
	return func(t *testing.T) {
		if err := os.Remove(filepath.Join(dir, "floed.state")); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
}
