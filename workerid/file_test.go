package workerid_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
)

// The environment of the test binary run as a FileStore holder that
// crashes (see TestMain and TestFileStore_Crash).
const (
	holderDir  = "FLOE_TEST_FILESTORE_DIR"
	holderTick = "FLOE_TEST_FILESTORE_TICK"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(holderDir); dir != "" {
		os.Exit(holdFileStore(dir, os.Getenv(holderTick)))
	}
	os.Exit(m.Run())
}

// holdFileStore opens the FileStore in dir, claims worker ID 5, reserves up
// to tick, says "reserved" on stdout and waits to be killed.
func holdFileStore(dir, tick string) int {
	r, err := strconv.ParseUint(tick, 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	store, err := workerid.OpenFile(workerid.FileConfig{Dir: dir, Holder: "crashing holder"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	l, err := workerid.NewStatic(5, store).Claim(ctx)
	if err == nil {
		err = l.Reserve(ctx, r)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("reserved")
	select {}
}

// openFile opens a FileStore in dir and closes it when the test ends.
func openFile(t *testing.T, cfg workerid.FileConfig) *workerid.FileStore {
	t.Helper()
	s, err := workerid.OpenFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// claim claims the Static worker ID 5 of store.
func claim(t *testing.T, store workerid.Store) workerid.Lease {
	t.Helper()
	l, err := workerid.NewStatic(5, store).Claim(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestFileStore_Conformance(t *testing.T) {
	workeridtest.Run(t, workeridtest.Config{
		IDs: 1,
		Namespace: func(t *testing.T) func() workerid.Source {
			src := workerid.NewStatic(7, openFile(t, workerid.FileConfig{Dir: t.TempDir()}))
			return func() workerid.Source { return src }
		},
	})
}

// TestFileStore_Crash kills a process that holds a FileStore with a
// reservation made durable: while it runs, the directory is refused to
// another process, naming it; once it is dead, the next claim starts at
// the reservation, though nothing was released.
func TestFileStore_Crash(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no lock and no SIGKILL here")
	}
	dir := t.TempDir()
	const reserved = 123456789
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run", "^$")
	cmd.Env = append(os.Environ(), holderDir+"="+dir, holderTick+"="+strconv.Itoa(reserved))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "reserved\n" {
		t.Fatalf("holder said %q (%v), want \"reserved\"", line, err)
	}

	_, err = workerid.OpenFile(workerid.FileConfig{Dir: dir})
	holder := fmt.Sprintf("crashing holder (pid %d)", cmd.Process.Pid)
	if !errors.Is(err, workerid.ErrLocked) || !strings.Contains(fmt.Sprint(err), holder) || !strings.Contains(fmt.Sprint(err), dir) {
		t.Fatalf("OpenFile while another process holds the directory: %v; want ErrLocked naming %s and %q", err, dir, holder)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	store := openFile(t, workerid.FileConfig{Dir: dir})
	if store.Fresh() {
		t.Error("Fresh() after a crash, want a state file")
	}
	l := claim(t, store)
	if got := l.Floor(); got != reserved {
		t.Errorf("Floor() after the holder was killed = %d, want its reservation %d", got, reserved)
	}
}

// TestFileStore_Restart follows one record across opens: a holder that
// closes the store without a release leaves its reservation as the next
// floor; a release leaves its last tick, which the next claim clears, so
// that a crash after that claim leaves the reservation again.
func TestFileStore_Restart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := workerid.FileConfig{Dir: dir, Definition: "id64 twitter worker 5"}
	steps := []struct {
		name      string
		reserve   uint64
		release   uint64 // the last tick; 0: no release (a crash)
		wantFloor uint64
	}{
		{"first start", 1000, 0, 0},
		{"after a crash", 2000, 1500, 1000},
		{"after a clean release", 3000, 0, 1500},
		{"after a crash that followed a clean start", 3000, 2500, 3000},
		{"after a release below the reservation", 3000, 0, 2500},
	}
	for _, st := range steps {
		store, err := workerid.OpenFile(cfg)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got, want := store.Fresh(), st.name == "first start"; got != want {
			t.Errorf("%s: Fresh() = %v, want %v", st.name, got, want)
		}
		l := claim(t, store)
		if got := l.Floor(); got != st.wantFloor {
			t.Errorf("%s: Floor() = %d, want %d", st.name, got, st.wantFloor)
		}
		if err := l.Reserve(ctx, st.reserve); err != nil {
			t.Fatalf("%s: Reserve: %v", st.name, err)
		}
		if st.release != 0 {
			if err := l.Release(ctx, st.release); err != nil {
				t.Fatalf("%s: Release: %v", st.name, err)
			}
		}
		if err := store.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFileStore_Refused(t *testing.T) {
	dir := t.TempDir()
	s := openFile(t, workerid.FileConfig{Dir: dir, Definition: "id64 worker=1"})
	if err := s.Save(workerid.Record{Reserved: 100}); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(workerid.Record{Reserved: 99}); !errors.Is(err, workerid.ErrBackwards) {
		t.Errorf("Save below the reservation: %v, want ErrBackwards", err)
	}
	if err := s.Save(workerid.Record{Reserved: 100, Last: 101}); !errors.Is(err, workerid.ErrBackwards) {
		t.Errorf("Save with Last above Reserved: %v, want ErrBackwards", err)
	}
	if rec, ok, err := s.Load(); rec != (workerid.Record{Reserved: 100}) || !ok || err != nil {
		t.Errorf("Load after refused saves = %+v, %v, %v; want the first record", rec, ok, err)
	}
	if runtime.GOOS != "solaris" && runtime.GOOS != "aix" && runtime.GOOS != "windows" && runtime.GOOS != "plan9" {
		if _, err := workerid.OpenFile(workerid.FileConfig{Dir: dir, Definition: "id64 worker=1"}); !errors.Is(err, workerid.ErrLocked) {
			t.Errorf("second OpenFile of an open directory: %v, want ErrLocked", err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(workerid.Record{Reserved: 200}); err == nil {
		t.Error("Save after Close succeeded")
	}

	corrupt := t.TempDir()
	if err := os.WriteFile(filepath.Join(corrupt, "floed.state"), []byte(`{"version": 1, "sequ`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		cfg   workerid.FileConfig
		want  error
		words []string
	}{
		{"another definition", workerid.FileConfig{Dir: dir, Definition: "id64 worker=2"}, workerid.ErrConflict,
			[]string{`record "default"`, `written for "id64 worker=1"`, `opened for "id64 worker=2"`}},
		{"a corrupt state file", workerid.FileConfig{Dir: corrupt}, workerid.ErrCorrupt, []string{corrupt, "truncated"}},
		{"no directory", workerid.FileConfig{}, nil, []string{"FileConfig.Dir"}},
		{"an invalid name", workerid.FileConfig{Dir: dir, Name: "a/b"}, workerid.ErrName, []string{`"a/b"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := workerid.OpenFile(tc.cfg)
			if err == nil {
				s.Close()
				t.Fatal("OpenFile succeeded")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("OpenFile: %v, want %v", err, tc.want)
			}
			for _, w := range tc.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("OpenFile: %q does not say %q", err, w)
				}
			}
		})
	}

	// Records of other names keep their own reservations.
	other := openFile(t, workerid.FileConfig{Dir: dir, Name: "orders"})
	if rec, ok, err := other.Load(); ok || err != nil || rec != (workerid.Record{}) {
		t.Errorf("Load of a new name = %+v, %v, %v; want none", rec, ok, err)
	}
}

// TestFileStore_SharedWithFloed checks that the record is floed's: a
// FileStore opened with the definition and name of floed's default
// sequence reads what floed wrote, here the state file of a floed stopped
// cleanly.
func TestFileStore_SharedWithFloed(t *testing.T) {
	dir := t.TempDir()
	const def = `id64 layout="41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z" datacenter=0 worker=0`
	state := `{
  "version": 1,
  "sequences": {
    "default": {
      "definition": "id64 layout=\"41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z\" datacenter=0 worker=0",
      "reserved": 1834567891234,
      "last": 1834567891000,
      "updated": "2026-03-01T12:00:00Z"
    }
  },
  "checksum": "crc32c:8d5f1213"
}
`
	if err := os.WriteFile(filepath.Join(dir, "floed.state"), []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	store := openFile(t, workerid.FileConfig{Dir: dir, Definition: def})
	l := claim(t, store)
	if got, want := l.Floor(), uint64(1834567891000); got != want {
		t.Errorf("Floor() = %d, want floed's last tick %d", got, want)
	}
	if got, want := l.Reserved(), uint64(1834567891234); got != want {
		t.Errorf("Reserved() = %d, want floed's %d", got, want)
	}
	if rec, _, _ := store.Load(); rec.Last != 0 {
		t.Errorf("the claim left the last tick %d recorded, want it cleared", rec.Last)
	}
}

func ExampleOpenFile() {
	dir, err := os.MkdirTemp("", "ids")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	// A process claims worker ID 33, reserves up to tick 1000 and dies
	// without a release: it closes the store (a crash would too).
	store, err := workerid.OpenFile(workerid.FileConfig{Dir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	lease, _ := workerid.NewStatic(33, store).Claim(ctx)
	if err := lease.Reserve(ctx, 1000); err != nil {
		fmt.Println(err)
		return
	}
	store.Close()

	// The next one starts above the reservation, and stops cleanly after
	// issuing up to tick 1200.
	store, err = workerid.OpenFile(workerid.FileConfig{Dir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	lease, _ = workerid.NewStatic(33, store).Claim(ctx)
	fmt.Println("floor", lease.Floor())
	lease.Reserve(ctx, 2000)
	lease.Release(ctx, 1200)
	store.Close()

	// The next one starts right above the last tick.
	store, err = workerid.OpenFile(workerid.FileConfig{Dir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	lease, _ = workerid.NewStatic(33, store).Claim(ctx)
	fmt.Println("floor", lease.Floor(), "reserved", lease.Reserved())
	// Output:
	// floor 1000
	// floor 1200 reserved 2000
}
