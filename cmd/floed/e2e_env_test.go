//go:build unix

package main

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestE2E_MalformedVariable runs floed with a worker variable that is not
// a number: it must exit at once with status 2 and name the variable and
// its value, rather than serve as worker 0.
func TestE2E_MalformedVariable(t *testing.T) {
	addrs := freeAddrs(t, 2)
	cmd := exec.Command(floedBin, "--listen", addrs[0], "--http", addrs[1], "--state", t.TempDir())
	cmd.Env = floedEnv([]string{"FLOE_WORKER=abc"})
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting floed: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(startDeadline):
		cmd.Process.Kill()
		<-done
		t.Fatalf("floed still running after %v with FLOE_WORKER=abc:\n%s", startDeadline, stderr.String())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Errorf("floed exited with %v, want exit status 2", err)
	}
	const want = `floed: $FLOE_WORKER="abc" (--worker): want an unsigned decimal integer`
	if got := stderr.String(); !strings.Contains(got, want) {
		t.Errorf("floed's stderr is %q, want it to contain %q", got, want)
	}
}
