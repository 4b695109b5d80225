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

// TestE2E_UnknownVariable runs floed with misspelled variables and cluster
// flags without a coordinator: each must stop it with status 2 and a
// message naming the mistake, rather than serve as worker 0.
func TestE2E_UnknownVariable(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"misspelled worker", []string{"FLOE_WROKER=3"}, nil, "floed: unknown variable FLOE_WROKER; did you mean FLOE_WORKER?"},
		{"cluster without a coordinator", nil, []string{"--cluster", "ids"}, "floed: --cluster without --etcd, --redis or --kube"},
		{"cluster variable without a coordinator", []string{"FLOE_CLUSTER=ids"}, nil, "floed: $FLOE_CLUSTER (--cluster) without --etcd, --redis or --kube"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--state", t.TempDir()}, tt.args...)
			stderr, err := runToExit(t, tt.env, args, startDeadline)
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Errorf("floed exited with %v, want exit status 2; stderr:\n%s", err, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("floed's stderr is %q, want it to contain %q", stderr, tt.want)
			}
		})
	}
}

// TestE2E_EmptyNoeqToken starts floed as noeqd starts with NOEQ_TOKEN set
// but empty: no token, so a client without an auth frame is served.
func TestE2E_EmptyNoeqToken(t *testing.T) {
	f := startFloedEnv(t, []string{"NOEQ_TOKEN="})
	c, err := dialNoeq(f.Bin, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	ids, err := fetch(c, 3)
	if err != nil {
		t.Fatalf("a request without an auth frame: %v", err)
	}
	if len(ids) != 3 {
		t.Fatalf("got %d IDs, want 3", len(ids))
	}
}
