package skiptest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A helper's search for a missing program skips with a notice that names
// the helper, the test binary, what the tests need, the error and the
// package to install; under CI it fails with its own message.
func TestProgram_Missing(t *testing.T) {
	prog := &Program{Helper: "sometest", Need: "Something", Install: "something-server"}
	look := func(tb testing.TB) {
		prog.Missing(tb, errors.New("something-server not found"), "fatal: install it", "skip: no server")
	}
	notice := "sometest: " + filepath.Base(os.Args[0]) + ": SKIPPING the tests that need Something: something-server not found (Debian: apt-get install something-server)\n"
	Check(t, prog, look, []Case{
		{Name: "skips with a notice", WantSkip: true, WantNotice: notice, WantMsg: "skip: no server"},
		{Name: "fails under CI", CI: "true", WantMsg: "fatal: install it"},
	})
}
