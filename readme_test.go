package floe_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADME_TestCommand checks that the README's test command, and CI's
// runs of the test suites, run every test each time (-count=1): a cached
// result would hide tests that skipped before, such as the Redis tests
// before redis-server was installed.
func TestREADME_TestCommand(t *testing.T) {
	tests := []struct {
		name, file string
		line       func(string) bool // the lines to check
	}{
		{"readme", "README.md", func(l string) bool { return strings.Contains(l, "# test:") }},
		{"ci", ".ci/run", func(l string) bool { return strings.Contains(l, "go test -race") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			runs := 0
			for line := range strings.Lines(string(b)) {
				if !tc.line(line) {
					continue
				}
				for _, cmd := range strings.Split(line, "go test")[1:] {
					runs++
					if cmd, _, _ = strings.Cut(cmd, ")"); !strings.Contains(cmd, " -count=1 ") {
						t.Errorf("%s: go test%s: want -count=1", tc.file, cmd)
					}
				}
			}
			if runs == 0 {
				t.Errorf("%s: no test command found", tc.file)
			}
		})
	}
}
