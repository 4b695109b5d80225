package pgtest

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestStart_PsqlStop(t *testing.T) {
	s := Start(t)
	got := s.Psql(t, "CREATE TABLE t (x int); INSERT INTO t VALUES (2), (1); SELECT x, x * 10 FROM t ORDER BY x;")
	if want := "1|10\n2|20\n"; got != want {
		t.Errorf("psql printed %q, want %q", got, want)
	}
	if got := s.Psql(t, "SELECT datlocprovider, daticulocale FROM pg_database WHERE datname = 'postgres';"); got != "i|und\n" {
		t.Errorf("default collation %q, want ICU's und", got)
	}
	if _, err := s.query("SELECT * FROM missing;"); err == nil || !strings.Contains(err.Error(), `relation "missing" does not exist`) {
		t.Errorf("query of a missing table: %v, want psql's error", err)
	}
	s.Stop()
	s.Stop() // does nothing
	if c, err := net.DialTimeout("tcp", s.Addr, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still answers after Stop", s.Addr)
	}
}

// skipRecorder is a testing.TB that records Skipf and Fatalf, which end
// the call of run instead of the test.
type skipRecorder struct {
	testing.TB
	skipped, fatal string
}

func (r *skipRecorder) Helper() {}

func (r *skipRecorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	panic(r)
}

func (r *skipRecorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	panic(r)
}

// run calls f with r, as a test would run it.
func (r *skipRecorder) run(f func(testing.TB)) {
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
	}()
	f(r)
}

func TestLookPath_NoPostgreSQL(t *testing.T) {
	tests := []struct {
		name       string
		ci         string
		wantSkip   bool
		wantNotice string // in the notice; none when empty
	}{
		{"skips with a notice", "", true, "SKIPPING the tests that need PostgreSQL"},
		{"fails under CI", "true", false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", t.TempDir())
			t.Setenv("CI", tc.ci)
			var notice bytes.Buffer
			savedNotice, savedLib := noticeOutput, libDir
			noticeOutput = func() (io.Writer, func()) { return &notice, func() {} }
			libDir = t.TempDir()
			skipNotice = sync.Once{}
			t.Cleanup(func() { noticeOutput, libDir, skipNotice = savedNotice, savedLib, sync.Once{} })

			r := &skipRecorder{}
			look := func(tb testing.TB) { lookPath(tb) }
			r.run(look)
			r.run(look) // the notice comes once
			if got := r.skipped != ""; got != tc.wantSkip {
				t.Errorf("skipped: %v (%q), want %v", got, r.skipped, tc.wantSkip)
			}
			if got := r.fatal != ""; got == tc.wantSkip {
				t.Errorf("failed: %v (%q), want %v", got, r.fatal, !tc.wantSkip)
			}
			if !strings.Contains(r.skipped+r.fatal, "apt-get install postgresql") {
				t.Errorf("message %q does not say what to install", r.skipped+r.fatal)
			}
			if tc.wantNotice == "" {
				if notice.Len() > 0 {
					t.Errorf("notice %q, want none", notice.String())
				}
				return
			}
			if got := strings.Count(notice.String(), "\n"); got != 1 || !strings.Contains(notice.String(), tc.wantNotice) {
				t.Errorf("notice %q: want one line with %q", notice.String(), tc.wantNotice)
			}
		})
	}
}
