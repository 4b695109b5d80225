package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// asFloe, set in the environment, makes the test binary run as floe (see
// TestMain), so that a shell can call it.
const asFloe = "FLOE_TEST_RUN_AS_FLOE"

func TestMain(m *testing.M) {
	if os.Getenv(asFloe) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	// floe new keeps its id64 state in $FLOE_STATE: a directory of the
	// tests', never the home of whoever runs them. A test of another id64
	// definition gives its own -state.
	dir, err := os.MkdirTemp("", "floe-test-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("FLOE_STATE", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// floeOnPath returns a PATH whose first directory holds a "floe" that runs
// this test binary as floe.
func floeOnPath(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := "#!/bin/sh\n" + asFloe + "=1 exec " + strconv.Quote(self) + ` "$@"` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "floe"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

func TestCompletion_Bash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash:", err)
	}
	path := floeOnPath(t)
	tests := []struct {
		name  string
		words []string // after floe, the last one being completed
		want  []string
	}{
		{"commands", []string{"se"}, []string{"seq"}},
		{"every command", []string{""}, []string{"new", "inspect", "layout", "range", "redis", "get", "bench", "seq", "node", "completion", "version", "help"}},
		{"subcommands", []string{"seq", ""}, []string{"create", "list", "destroy"}},
		{"flags", []string{"new", "-form"}, []string{"-format"}},
		{"double-dash flags", []string{"redis", "init", "--sh"}, []string{"--shard"}},
		{"a subcommand's flags", []string{"seq", "destroy", "-"}, []string{"-addr", "-tls", "-tls-ca", "-tls-cert", "-tls-key", "-tls-server-name", "-token", "-yes"}},
		{"flag value left to the user", []string{"new", "-format", ""}, nil},
		{"help topics", []string{"help", "no"}, []string{"node"}},
		{"shells", []string{"completion", "z"}, []string{"zsh"}},
		{"top-level flags", []string{"--v"}, []string{"--version"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			words := append([]string{"floe"}, tc.words...)
			quoted := make([]string, len(words))
			for i, w := range words {
				quoted[i] = strconv.Quote(w)
			}
			script := "source <(floe completion bash) || exit 3\n" +
				"COMP_WORDS=(" + strings.Join(quoted, " ") + ")\n" +
				"COMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n" +
				"COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}\n" +
				"_floe\n" +
				`for c in "${COMPREPLY[@]}"; do echo "$c"; done` + "\n"
			cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script)
			cmd.Env = append(os.Environ(), "PATH="+path)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("bash: %v\n%s", err, stderr.String())
			}
			got := strings.Fields(string(out))
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCompletion_ZshFish runs the zsh and fish scripts in those shells,
// when they are installed. zsh's compadd, a builtin of its completion
// system, is replaced by a function that prints the candidates.
func TestCompletion_ZshFish(t *testing.T) {
	path := floeOnPath(t)
	tests := []struct {
		shell string
		words []string // after floe, the last one being completed
		want  []string
	}{
		{"zsh", []string{"se"}, []string{"seq"}},
		{"zsh", []string{"seq", ""}, []string{"create", "list", "destroy"}},
		{"zsh", []string{"redis", "init", "--sh"}, []string{"--shard"}},
		{"zsh", []string{"new", "-format", ""}, nil},
		{"fish", []string{"se"}, []string{"seq"}},
		{"fish", []string{"seq", ""}, []string{"create", "destroy", "list"}}, // fish sorts them
		{"fish", []string{"redis", "init", "--sh"}, []string{"--shard"}},
		{"fish", []string{"new", "-format", ""}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.shell+" "+strings.Join(tc.words, " "), func(t *testing.T) {
			sh, err := exec.LookPath(tc.shell)
			if err != nil {
				t.Skipf("no %s: %v", tc.shell, err)
			}
			var cmd *exec.Cmd
			if tc.shell == "zsh" {
				quoted := []string{`"floe"`}
				for _, w := range tc.words {
					quoted = append(quoted, strconv.Quote(w))
				}
				script := `compadd() { shift $(( ${@[(i)--]} )); print -l -- "$@"; }
compdef() {}
source <(floe completion zsh) || exit 3
words=(` + strings.Join(quoted, " ") + `)
CURRENT=` + strconv.Itoa(len(quoted)) + `
_floe || : # no candidates: status 1, as completion functions say it
`
				cmd = exec.Command(sh, "-f", "-c", script)
			} else {
				line := strings.Join(append([]string{"floe"}, tc.words...), " ")
				cmd = exec.Command(sh, "--no-config", "-c", "floe completion fish | source; complete -C "+strconv.Quote(line))
			}
			cmd.Env = append(os.Environ(), "PATH="+path)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v\n%s", tc.shell, err, stderr.String())
			}
			got := strings.Fields(string(out))
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCompletion_Scripts(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string // in stdout
	}{
		{"bash", []string{"completion", "bash"}, 0, "complete -F _floe floe"},
		{"zsh", []string{"completion", "zsh"}, 0, "compdef _floe floe"},
		{"fish", []string{"completion", "fish"}, 0, "complete -c floe"},
		{"unknown shell", []string{"completion", "tcsh"}, 2, ""},
		{"no shell", []string{"completion"}, 2, ""},
		{"two shells", []string{"completion", "bash", "zsh"}, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tc.args, &out, &errOut)
			if code != tc.code || !strings.Contains(out.String(), tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, out.String(), errOut.String(), tc.code, tc.want)
			}
		})
	}
}
