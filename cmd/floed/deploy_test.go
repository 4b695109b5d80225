package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/floeid/floe/internal/tlstest"
)

// The deployment files start floed with flags and FLOE_* variables that
// this floed parses: the Kubernetes manifests' args and env (those
// commented out included), and the systemd unit's ExecStart lines.
func TestDeploy_ConfigParses(t *testing.T) {
	files, err := filepath.Glob("../../deploy/kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/kubernetes: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			args, env := manifestConfig(t, f)
			if len(env) == 0 {
				t.Fatal("no FLOE_* variable found: the manifest's layout changed; update manifestConfig")
			}
			// The files floed reads while parsing (a password, the TLS
			// certificates) come from a mounted Secret: files of the
			// test's stand in.
			ca := tlstest.NewCA(t, "etcd")
			client := ca.Issue(t, "floe")
			password := filepath.Join(t.TempDir(), "password")
			if err := os.WriteFile(password, []byte("s3cret\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			stands := map[string]string{"_CA": ca.CertFile, "_CERT": client.CertFile, "_KEY": client.KeyFile, "_PASSWORD_FILE": password}
			for k := range env {
				for suffix, stand := range stands {
					if strings.HasSuffix(k, suffix) {
						env[k] = stand
					}
				}
			}
			var c Config
			if err := c.ParseFlags(args, envLookup(env), io.Discard); err != nil {
				t.Errorf("floed %q with %v: %v", args, env, err)
			}
		})
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

// sampleValues stand in for the variables a manifest takes from the pod or
// a Secret (valueFrom).
var sampleValues = map[string]string{
	"FLOE_WORKER":      "3",
	"FLOE_OWNER":       "floed-3",
	"FLOE_TOKEN":       "s3cret",
	"FLOE_ADMIN_TOKEN": "s3cret",
}

var (
	envName  = regexp.MustCompile(`^-\s+name:\s+(FLOE_\w+)$`)
	envValue = regexp.MustCompile(`^value:\s+(.*)$`)
	argItem  = regexp.MustCompile(`^-\s+(.*)$`)
)

// manifestConfig reads the floed container's args and FLOE_* variables of
// a manifest, commented-out ones included, line by line: the manifests
// keep each item on a line of its own.
func manifestConfig(t *testing.T, path string) (args []string, env map[string]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env = make(map[string]string)
	var name string // the FLOE_* variable whose value may follow
	inArgs := false
	for line := range strings.Lines(string(b)) {
		raw := strings.TrimSpace(line)
		commented := strings.HasPrefix(raw, "#")
		text := strings.TrimSpace(strings.TrimLeft(raw, "#"))
		switch {
		case !commented && text == "args:":
			inArgs = true
			continue
		case inArgs && commented:
			continue
		case inArgs:
			if m := argItem.FindStringSubmatch(text); m != nil {
				args = append(args, unquote(t, m[1]))
				continue
			}
			inArgs = false
		}
		if m := envName.FindStringSubmatch(text); m != nil {
			name = m[1]
			v, ok := sampleValues[name]
			if !ok {
				v = "" // a value follows, or the test says which sample is missing
			}
			env[name] = v
			continue
		}
		if m := envValue.FindStringSubmatch(text); m != nil && name != "" {
			env[name] = unquote(t, m[1])
			name = ""
			continue
		}
		if strings.HasPrefix(text, "valueFrom:") && name != "" {
			if _, ok := sampleValues[name]; !ok {
				t.Errorf("%s takes %s from the pod or a Secret: give it a sample value in sampleValues", path, name)
			}
			name = ""
		}
	}
	return args, env
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
