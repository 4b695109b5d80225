//go:build unix

package main

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestE2E_MalformedVariable runs floed with a worker variable that is not
// a number: it must exit at once with status 2 and name the variable and
// its value, rather than serve as worker 0.
func TestE2E_MalformedVariable(t *testing.T) {
	stderr, err := runToExit(t, []string{"FLOE_WORKER=abc"}, []string{"--state", t.TempDir()}, startDeadline)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Errorf("floed exited with %v, want exit status 2", err)
	}
	const want = `floed: $FLOE_WORKER="abc" (--worker): want an unsigned decimal integer`
	if !strings.Contains(stderr, want) {
		t.Errorf("floed's stderr is %q, want it to contain %q", stderr, want)
	}
}
