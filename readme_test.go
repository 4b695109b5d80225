package floe_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// readmeTestCommand is the README's test command as .ci/run reads it: the
// line starting "go test", up to its comment.
var readmeTestCommand = regexp.MustCompile(`(?m)^(go test .*)   # test: `)

// TestREADME_TestCommandRunsBoth runs the README's test command with a go
// that only logs where it ran and fails where told: both halves run
// whichever fails, so that a user sees every failure at once, and the
// command fails if either does. .ci/run runs that same line.
func TestREADME_TestCommandRunsBoth(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := readmeTestCommand.FindSubmatch(b)
	if m == nil {
		t.Fatalf("README.md: no line matching %s", readmeTestCommand)
	}
	command := string(m[1])
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), `bash -c "$test_command"`) || !strings.Contains(string(ci), "README.md)") {
		t.Errorf(".ci/run does not run the README's test command (bash -c \"$test_command\", read from README.md)")
	}

	tests := []struct {
		name     string
		fail     string // the directory (base name) whose go test fails
		wantExit bool   // a non-zero exit
	}{
		{"both pass", "", false},
		{"library fails", "checkout", true},
		{"clusters fail", "cluster", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "checkout")
			if err := os.MkdirAll(filepath.Join(root, "cluster"), 0o755); err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(dir, "bin")
			log := filepath.Join(dir, "log")
			script := fmt.Sprintf("#!/bin/sh\nbasename \"$PWD\" >>%q\n[ \"$(basename \"$PWD\")\" != %q ]\n", log, tt.fail)
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("bash", "-c", command)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			if _, ok := err.(*exec.ExitError); err != nil && !ok {
				t.Fatalf("bash -c %q: %v", command, err)
			}
			ran, _ := os.ReadFile(log)
			if got, want := strings.Fields(string(ran)), []string{"checkout", "cluster"}; strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("go test ran in %q, want %q\n%s", got, want, out)
			}
			if got := err != nil; got != tt.wantExit {
				t.Errorf("%s: exit %v, want a failure %v\n%s", command, err, tt.wantExit, out)
			}
		})
	}
}
