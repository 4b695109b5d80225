package statefile

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestOpen_Locked(t *testing.T) {
	switch runtime.GOOS {
	case "solaris", "aix":
		t.Skip("fcntl locks do not exclude the same process")
	}
	dir := t.TempDir()
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.lock == nil {
		f.Close()
		t.Skip("no lock on " + runtime.GOOS)
	}
	if err := f.Put("default", sample["default"]); err != nil {
		t.Fatal(err)
	}
	g, err := Open(dir)
	if !errors.Is(err, ErrLocked) || !strings.Contains(fmt.Sprint(err), dir) {
		if g != nil {
			g.Close()
		}
		t.Fatalf("second Open: got %v, want ErrLocked naming %s", err, dir)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	g = open(t, dir)
	if _, ok := g.Sequence("default"); !ok {
		t.Error("Open after Close lost the sequence")
	}
}

// TestOpen_LockedNamesHolder checks that a refused Open names the holder
// the lock file records, and that a holder that left is not named.
func TestOpen_LockedNamesHolder(t *testing.T) {
	switch runtime.GOOS {
	case "solaris", "aix":
		t.Skip("fcntl locks do not exclude the same process")
	}
	dir := t.TempDir()
	f, err := OpenAs(dir, "floe new")
	if err != nil {
		t.Fatal(err)
	}
	if f.lock == nil {
		f.Close()
		t.Skip("no lock on " + runtime.GOOS)
	}
	_, err = Open(dir)
	var le *LockedError
	if !errors.As(err, &le) {
		f.Close()
		t.Fatalf("second Open: %v, want a *LockedError", err)
	}
	if got, want := le.Holder, (Holder{Name: "floe new", PID: os.Getpid()}); got != want {
		t.Errorf("Holder = %+v, want %+v", got, want)
	}
	lockPath := filepath.Join(dir, LockName)
	for _, want := range []string{dir, lockPath, fmt.Sprintf("held by floe new (pid %d)", os.Getpid())} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(lockPath); err != nil || len(b) != 0 {
		t.Errorf("lock file after Close holds %q (%v), want it empty", b, err)
	}
}

func TestReadHolder(t *testing.T) {
	gone := deadPID(t)
	tests := []struct {
		name    string
		content string
		want    Holder
		wantOK  bool
	}{
		{"this process", fmt.Sprintf(`{"holder":"floed","pid":%d}`+"\n", os.Getpid()), Holder{"floed", os.Getpid()}, true},
		{"a process that exited", fmt.Sprintf(`{"holder":"floed","pid":%d}`+"\n", gone), Holder{}, false},
		{"empty", "", Holder{}, false},
		{"half written", fmt.Sprintf(`{"holder":"floed","pid":%d`, os.Getpid()), Holder{}, false},
		{"no name", fmt.Sprintf(`{"holder":" ","pid":%d}`, os.Getpid()), Holder{}, false},
		{"no pid", `{"holder":"floed"}`, Holder{}, false},
		{"negative pid", `{"holder":"floed","pid":-1}`, Holder{}, false},
		{"unknown field", fmt.Sprintf(`{"holder":"floed","pid":%d,"x":1}`, os.Getpid()), Holder{}, false},
		{"not json", "floed 1234\n", Holder{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), LockName)
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, ok := readHolder(path)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("readHolder = %+v, %v; want %+v, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
	if _, ok := readHolder(filepath.Join(t.TempDir(), "missing")); ok {
		t.Error("readHolder of a missing file reported a holder")
	}
}

// deadPID returns the process ID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run", "^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
