package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestFile_PutLeavesNoTempFiles(t *testing.T) {
	dir := t.TempDir()
	f := open(t, dir)
	for i := range 5 {
		if err := f.Put(fmt.Sprint("seq", i%2), Sequence{Reserved: uint64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Delete("seq0"); err != nil {
		t.Fatal(err)
	}
	if got, want := names(t, dir), []string{LockName, StateName}; !slices.Equal(got, want) {
		t.Errorf("directory holds %q, want %q", got, want)
	}
}

func TestFile_PutFailureKeepsState(t *testing.T) {
	tests := []struct {
		name     string
		sabotage func(t *testing.T, f *File) // makes the next write fail
		put      Sequence
	}{
		{"rename over a non-empty directory", func(t *testing.T, f *File) {
			if err := os.Remove(f.Path()); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(f.Path(), "x"), 0o700); err != nil {
				t.Fatal(err)
			}
		}, Sequence{Reserved: 200}},
		{"directory removed", func(t *testing.T, f *File) {
			if err := os.RemoveAll(f.dir); err != nil {
				t.Fatal(err)
			}
		}, Sequence{Reserved: 200}},
		{"time json cannot encode", func(*testing.T, *File) {}, Sequence{Reserved: 200, Updated: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			f := open(t, dir)
			if err := f.Put("a", Sequence{Reserved: 100}); err != nil {
				t.Fatal(err)
			}
			tc.sabotage(t, f)
			if err := f.Put("a", tc.put); err == nil {
				t.Fatal("Put = nil error, want one")
			}
			if got, _ := f.Sequence("a"); got.Reserved != 100 {
				t.Errorf("after a failed Put, Reserved = %d, want 100", got.Reserved)
			}
			if temps, _ := filepath.Glob(filepath.Join(dir, tempPattern)); len(temps) > 0 {
				t.Errorf("temporary files left: %q", temps)
			}
		})
	}
}

func TestOpen_RemovesStaleTempFiles(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, StateName+".123456.tmp")
	if err := os.WriteFile(stale, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	open(t, dir)
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale temporary file: Stat = %v, want it gone", err)
	}
}
