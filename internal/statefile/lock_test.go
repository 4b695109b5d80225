package statefile

import (
	"errors"
	"fmt"
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
