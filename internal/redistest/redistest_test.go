package redistest

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

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

func TestLookPath_NoRedisServer(t *testing.T) {
	tests := []struct {
		name       string
		ci         string
		wantSkip   bool
		wantNotice string // in the notice; none when empty
	}{
		{"skips with a notice", "", true, "SKIPPING the tests that need Redis"},
		{"fails under CI", "true", false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", t.TempDir())
			t.Setenv("CI", tc.ci)
			var notice bytes.Buffer
			saved := noticeOutput
			noticeOutput = func() (io.Writer, func()) { return &notice, func() {} }
			skipNotice = sync.Once{}
			t.Cleanup(func() { noticeOutput, skipNotice = saved, sync.Once{} })

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
