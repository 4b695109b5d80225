package kubetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestAwaitBuild checks that a test waits for a build in progress, and
// only for one: a marker whose process is gone, or no marker, is no build.
func TestAwaitBuild(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kube-apiserver") // in the builder's command line, as the script's name is
	t.Setenv("FLOE_KUBE_BIN", dir)
	marker := dir + ".building"

	// A build that is running: a process that ends after 300 ms, and
	// removes the marker then, as the script's trap does.
	builder := exec.Command("sh", "-c", "sleep 0.3; rm -f \"$0\"", marker)
	if err := builder.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { builder.Wait(); close(done) }()
	if err := os.WriteFile(marker, []byte(strconv.Itoa(builder.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	awaitBuild(t)
	select {
	case <-done:
	default:
		t.Errorf("awaitBuild returned while the build (pid %d) ran", builder.Process.Pid)
	}
	<-done

	// A marker left by a build that was killed: its pid is gone.
	if err := os.WriteFile(marker, []byte(strconv.Itoa(builder.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	awaitBuild(t)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("awaitBuild waited %v on a marker whose process is gone", d)
	}
	os.Remove(marker)
	awaitBuild(t) // no marker: returns at once

	// A marker naming a live process that is no build: this test.
	if err := os.WriteFile(marker, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	awaitBuild(t)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("awaitBuild waited %v on a marker whose pid is no build", d)
	}
}
