package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The deployment files start floed with flags and FLOE_* variables that
// this floed parses: the systemd unit's ExecStart lines, and the variables
// the Kubernetes manifests show in comments, to be set by hand. The
// manifests' own args and env are run in the cluster module (cluster/kube),
// where floed starts with them.
func TestDeploy_ConfigParses(t *testing.T) {
	files, err := filepath.Glob("../../deploy/kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/kubernetes: %v", err)
	}
	n := 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			for name, value := range commentedEnv(t, f) {
				n++
				var c Config
				if err := c.ParseFlags(nil, envLookup(map[string]string{name: value}), io.Discard); err != nil {
					t.Errorf("floed with %s=%q: %v", name, value, err)
				}
			}
		})
	}
	if n == 0 {
		t.Error("no manifest shows a FLOE_* variable in a comment: their layout changed; update commentedEnv")
	}
	t.Run("floed.service", func(t *testing.T) {
		b, err := os.ReadFile("../../deploy/floed.service")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for line := range strings.Lines(string(b)) {
			_, cmd, ok := strings.Cut(line, "ExecStart=")
			if !ok || strings.TrimSpace(cmd) == "" {
				continue
			}
			fields := strings.Fields(cmd)
			if filepath.Base(fields[0]) != "floed" {
				t.Errorf("ExecStart runs %s, not floed", fields[0])
				continue
			}
			n++
			var c Config
			if err := c.ParseFlags(fields[1:], envLookup(nil), io.Discard); err != nil {
				t.Errorf("%s: %v", strings.TrimSpace(line), err)
			}
		}
		if n == 0 {
			t.Error("no ExecStart line runs floed")
		}
	})
}

var (
	commentedName  = regexp.MustCompile(`^#\s*-\s+name:\s+(FLOE_\w+)$`)
	commentedValue = regexp.MustCompile(`^#\s*value:\s+(.*)$`)
)

// commentedEnv reads the FLOE_* variables a manifest shows commented out,
// each a "- name:" line and a "value:" line.
func commentedEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := make(map[string]string)
	var name string // the variable whose value may follow
	for line := range strings.Lines(string(b)) {
		text := strings.TrimSpace(line)
		if m := commentedName.FindStringSubmatch(text); m != nil {
			name = m[1]
			continue
		}
		if m := commentedValue.FindStringSubmatch(text); m != nil && name != "" {
			env[name] = unquote(t, m[1])
		} else if name != "" {
			t.Errorf("%s: the commented-out %s has no value line after it", path, name)
		}
		name = ""
	}
	return env
}

// unquote reads a YAML scalar that is plain or double-quoted.
func unquote(t *testing.T, s string) string {
	t.Helper()
	if strings.HasPrefix(s, `"`) {
		u, err := strconv.Unquote(s)
		if err != nil {
			t.Fatalf("scalar %s: %v", s, err)
		}
		return u
	}
	return s
}

// portForward is a kubectl port-forward command and what follows it on its
// line.
var portForward = regexp.MustCompile(`(?m)kubectl port-forward\b(.*)$`)

// TestDeploy_PortForward checks the manifests' recipes for reaching floed:
// kubectl port-forward runs until it is stopped, so a command after it with
// && never runs. It must go to the background, and be killed after.
func TestDeploy_PortForward(t *testing.T) {
	files, err := filepath.Glob("../../deploy/kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/kubernetes: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, m := range portForward.FindAllStringSubmatchIndex(text, -1) {
			rest := text[m[2]:m[3]]
			amp := strings.Index(rest, "&")
			switch {
			case amp < 0:
				t.Errorf("%s: kubectl port-forward%s runs in the foreground: nothing after it runs until it stops", filepath.Base(f), rest)
			case strings.HasPrefix(rest[amp:], "&&"):
				t.Errorf("%s: kubectl port-forward%s: the command after && runs only once port-forward stops, which it does not", filepath.Base(f), rest)
			case !strings.Contains(text[m[1]:], "kill"):
				t.Errorf("%s: kubectl port-forward%s is left running: no kill after it", filepath.Base(f), rest)
			}
		}
	}
}
