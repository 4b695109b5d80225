//go:build unix

package main

import (
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/internal/statefile"
)

// TestE2E_RequireState starts floed on new, kept and lost state: a start
// without a state file is logged as a first start, and --require-state
// refuses it unless -t says above which time to start.
func TestE2E_RequireState(t *testing.T) {
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	state := t.TempDir()
	tests := []struct {
		name      string
		prepare   func(t *testing.T) // before the start
		args      []string
		refused   bool
		wantFirst bool   // the log says first start
		noRecord  string // the refusal says the state file has no record of this sequence
	}{
		{name: "new directory refused", args: []string{"--require-state"}, refused: true},
		{name: "new directory with -t", args: []string{"--require-state", "-t", now}, wantFirst: true},
		{name: "state kept", args: []string{"--require-state"}},
		{name: "state kept without the option", args: nil},
		{name: "state deleted, refused", prepare: deleteState(state), args: []string{"--require-state"}, refused: true},
		{name: "state deleted, refused by the variable", prepare: deleteState(state), refused: true},
		{name: "state deleted without the option", prepare: deleteState(state), args: nil, wantFirst: true},
		{name: "state kept, again", args: []string{"--require-state"}},
		{name: "a named sequence without a record, refused", args: []string{"--require-state", "--seq", "orders=id80"}, refused: true, noRecord: "orders"},
		{name: "no record of the sequence, refused", prepare: keepOnly(state), args: []string{"--require-state"}, refused: true, noRecord: "default"},
		{name: "only another sequence, refused", prepare: keepOnly(state, "other"), args: []string{"--require-state"}, refused: true, noRecord: "default"},
		{name: "no record of the sequence, with -t", prepare: keepOnly(state), args: []string{"--require-state", "-t", now}, wantFirst: true},
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
				missing := "no state file in " + filepath.Join(state, "floed.state")
				if tc.noRecord != "" {
					missing = "no record of the sequence " + tc.noRecord + " in the state file " + filepath.Join(state, "floed.state")
				}
				for _, want := range []string{missing, "--require-state", "--time-of-death"} {
					if !strings.Contains(stderr, want) {
						t.Errorf("stderr lacks %q:\n%s", want, stderr)
					}
				}
				if tc.noRecord == "" {
					if _, err := os.Stat(filepath.Join(state, "floed.state")); err == nil {
						t.Error("a refused start wrote a state file")
					}
				} else if rec := records(t, state); slices.Contains(rec, tc.noRecord) {
					t.Errorf("a refused start wrote a record of %s: %q", tc.noRecord, rec)
				}
				return
			}
			f := startFloedEnv(t, env, args...)
			if _, err := fetchOnce(f.Bin, 10); err != nil {
				t.Fatal(err)
			}
			f.stop()
			if got := strings.Contains(f.stderr.String(), "first start: "); got != tc.wantFirst {
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

// keepOnly returns a step that leaves the state file in dir with records
// of the named sequences only, as a file restored from another node or
// edited by hand.
func keepOnly(dir string, names ...string) func(t *testing.T) {
	return func(t *testing.T) {
		f, err := statefile.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for name := range f.Sequences() {
			if err := f.Delete(name); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range names {
			if err := f.Put(name, statefile.Sequence{Definition: "id80 node 1", Reserved: 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// records returns the names of the sequences the state file in dir records.
func records(t *testing.T, dir string) []string {
	t.Helper()
	f, err := statefile.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return slices.Collect(maps.Keys(f.Sequences()))
}

// TestE2E_FirstStartWait starts floed with --first-start wait, as the
// StatefulSet does, on an empty state directory: it serves without an
// operator's -t, issuing nothing at or before the clock at its start plus
// the reservation window; restarted on the state it wrote, it starts
// above that state, without the wait's warning.
func TestE2E_FirstStartWait(t *testing.T) {
	const window = 3 * time.Second
	state := filepath.Join(t.TempDir(), "new-volume")
	args := []string{"--state", state, "--first-start", "wait", "--reserve-window", window.String()}
	before := time.Now()
	f := startFloed(t, args...)
	ids, err := fetchOnce(f.Bin, 10)
	if err != nil {
		t.Fatalf("the first start on an empty volume does not serve: %v", err)
	}
	if got, floor := decodeTwitter(ids[0]).Time, before.Add(window); !got.After(floor) {
		t.Errorf("first ID of %v, want one after the clock at the start plus the window, %v", got, floor)
	}
	f.stop()
	if !strings.Contains(f.stderr.String(), "--first-start wait") {
		t.Errorf("the first start did not log its wait:\n%s", f.stderr.String())
	}

	g := startFloed(t, args...)
	more, err := fetchOnce(g.Bin, 10)
	if err != nil {
		t.Fatal(err)
	}
	g.stop()
	if more[0] <= ids[len(ids)-1] {
		t.Errorf("the restart issued %d, not above the last ID before it, %d", more[0], ids[len(ids)-1])
	}
	if strings.Contains(g.stderr.String(), "first start") {
		t.Errorf("the restart on the state it wrote logged a first start:\n%s", g.stderr.String())
	}
}
