// Package skiptest decides how a test ends that needs a program the
// machine lacks (redis-server, PostgreSQL): under CI it fails, since CI
// must install the program; elsewhere it skips, and says so once per test
// binary where the developer sees it, since go test shows a passing
// package's output only with -v and a skip would go unseen.
package skiptest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Program is a program that a helper's tests need.
type Program struct {
	Helper  string // the helper that looks for it, first in the notice: "redistest"
	Need    string // what the tests need, as in "SKIPPING the tests that need Redis"
	Install string // the Debian package that has it: "redis-server"

	once sync.Once
	// output returns where the notice goes and what to call after
	// writing it; nil: the terminal, else stderr. Check replaces it.
	output func() (io.Writer, func())
}

// Missing ends tb, which needs p and lacks it; err says what is missing.
// Under CI (the environment variable CI set) it fails tb with the message
// fatal. Elsewhere it skips tb with the message skip, after a notice, the
// first time in the test binary, on the terminal when there is one
// (else stderr):
//
//	HELPER: BINARY: SKIPPING the tests that need NEED: ERR (Debian: apt-get install INSTALL)
func (p *Program) Missing(tb testing.TB, err error, fatal, skip string) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatal(fatal)
	}
	p.once.Do(func() {
		w, done := terminal()
		if p.output != nil {
			w, done = p.output()
		}
		defer done()
		fmt.Fprintf(w, "%s: %s: SKIPPING the tests that need %s: %v (Debian: apt-get install %s)\n",
			p.Helper, filepath.Base(os.Args[0]), p.Need, err, p.Install)
	})
	tb.Skip(skip)
}

// terminal returns the terminal the tests run on, or stderr, and what to
// call after writing.
func terminal() (io.Writer, func()) {
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		return tty, func() { tty.Close() }
	}
	return os.Stderr, func() {}
}

// Case is a case of Check: how a helper's look for its program, which
// the test has made missing (an empty PATH, say), ends a test.
type Case struct {
	Name       string
	CI         string // the environment variable CI
	WantSkip   bool   // else a failure
	WantNotice string // in the notice; none when empty
	WantMsg    string // in the message of the skip or the failure; "": not checked
}

// Check tests look, a helper's search for p, in each case as a subtest:
// called twice, as two tests of one test binary would call it, it must
// skip both times and write one notice line that has WantNotice, or fail
// both times and write no notice. The notice goes to a buffer, with p's
// once fresh, during each case.
func Check(t *testing.T, p *Program, look func(testing.TB), cases []Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Setenv("CI", tc.CI)
			var notice bytes.Buffer
			p.output = func() (io.Writer, func()) { return &notice, func() {} }
			p.once = sync.Once{}
			t.Cleanup(func() { p.output, p.once = nil, sync.Once{} })

			r := &recorder{}
			r.run(look)
			skipped, failed := r.skipped, r.failed
			r.run(look) // the notice comes once
			if r.skipped != skipped || r.failed != failed {
				t.Errorf("second call: skipped %q, failed %q; want as the first: skipped %q, failed %q", r.skipped, r.failed, skipped, failed)
			}
			if got := skipped != ""; got != tc.WantSkip {
				t.Errorf("skipped: %v (%q), want %v", got, skipped, tc.WantSkip)
			}
			if got := failed != ""; got == tc.WantSkip {
				t.Errorf("failed: %v (%q), want %v", got, failed, !tc.WantSkip)
			}
			if !strings.Contains(skipped+failed, tc.WantMsg) {
				t.Errorf("message %q does not have %q", skipped+failed, tc.WantMsg)
			}
			if tc.WantNotice == "" {
				if notice.Len() > 0 {
					t.Errorf("notice %q, want none", notice.String())
				}
				return
			}
			if got := strings.Count(notice.String(), "\n"); got != 1 || !strings.Contains(notice.String(), tc.WantNotice) {
				t.Errorf("notice %q: want one line with %q", notice.String(), tc.WantNotice)
			}
		})
	}
}

// recorder is a testing.TB that records the skip or the failure of
// Missing, which ends the call of run instead of the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Skip(args ...any) {
	r.skipped = fmt.Sprint(args...)
	panic(r)
}

func (r *recorder) Fatal(args ...any) {
	r.failed = fmt.Sprint(args...)
	panic(r)
}

// run calls f with r, as a test would run it.
func (r *recorder) run(f func(testing.TB)) {
	r.skipped, r.failed = "", ""
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
	}()
	f(r)
}
