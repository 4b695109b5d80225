package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestCheckEnvNames(t *testing.T) {
	tests := []struct {
		name        string
		environ     []string
		wantIgnored []string
		wantErr     string
	}{
		{name: "no variables"},
		{name: "other programs' variables", environ: []string{"HOME=/root", "PATH=/bin", "NOEQ_TOKEN=", "XFLOE_WORKER=1"}},
		{name: "floed's variables", environ: []string{"FLOE_WORKER=3", "FLOE_TOKEN=t", "FLOE_REDIS_PASSWORD_FILE=/p", "FLOE_ADMIN_TOKEN=a"}},
		{name: "swapped letters", environ: []string{"FLOE_WROKER=3"}, wantErr: "unknown variable FLOE_WROKER; did you mean FLOE_WORKER?"},
		{name: "a letter missing", environ: []string{"FLOE_DATACENTR=1"}, wantErr: "unknown variable FLOE_DATACENTR; did you mean FLOE_DATACENTER?"},
		{name: "british spelling", environ: []string{"FLOE_DATACENTRE=1"}, wantErr: "did you mean FLOE_DATACENTER?"},
		{name: "a plural", environ: []string{"FLOE_SEQUENCE=a=id80"}, wantErr: "unknown variable FLOE_SEQUENCE; did you mean FLOE_SEQUENCES?"},
		{name: "lower case", environ: []string{"floe_worker=3"}, wantErr: "unknown variable floe_worker; did you mean FLOE_WORKER?"},
		{name: "empty value", environ: []string{"FLOE_WORKERS="}, wantErr: "unknown variable FLOE_WORKERS; did you mean FLOE_WORKER?"},
		{name: "the prefix alone", environ: []string{"FLOE_=1"}, wantErr: "unknown variable FLOE_;"},
		{name: "the first unknown one", environ: []string{"FLOE_WORKER=1", "FLOE_LISTN=:1", "FLOE_HTP=:2"}, wantErr: "unknown variable FLOE_LISTN; did you mean FLOE_LISTEN?"},
		{name: "the CLI's variables", environ: []string{"FLOE_ADMIN_ADDR=http://h:4445", "FLOE_TOKEN=t"}, wantIgnored: []string{"FLOE_ADMIN_ADDR"}},
		{name: "the tests' variables", environ: []string{"FLOE_SOAK=60s", "FLOE_SCALE=1", "FLOE_PG18=/var/cache/floe/pg18"}, wantIgnored: []string{"FLOE_SOAK", "FLOE_SCALE", "FLOE_PG18"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ignored, err := checkEnvNames(tt.environ)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("checkEnvNames(%q) = %v, want an error with %q", tt.environ, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("checkEnvNames(%q): %v", tt.environ, err)
			}
			if !slices.Equal(ignored, tt.wantIgnored) {
				t.Errorf("checkEnvNames(%q) ignored %q, want %q", tt.environ, ignored, tt.wantIgnored)
			}
		})
	}
}

// TestCheckEnvNames_Repository reads the repository's programs and
// scripts: every FLOE_* variable the floe CLI, a test suite or a CI
// script reads or exports must be known to floed, so that a shell
// exporting it for them still starts floed (CI exports FLOE_PG18 for
// cluster/pgtest, and runs floed after).
func TestCheckEnvNames_Repository(t *testing.T) {
	goRead := regexp.MustCompile(`(?:Getenv|LookupEnv)\("(FLOE_[A-Z0-9_]*)"\)`)
	shRead := regexp.MustCompile(`(?m)\$\{?(FLOE_[A-Z0-9_]+)|^\s*(?:export\s+)?(FLOE_[A-Z0-9_]+)=`)
	root := filepath.Join("..", "..")
	names := map[string]string{} // name: a file that reads it
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), "_") {
				return filepath.SkipDir
			}
			return nil
		}
		var re *regexp.Regexp
		rel, _ := filepath.Rel(root, path)
		switch {
		case strings.HasSuffix(path, ".go"):
			re = goRead
		case strings.HasPrefix(rel, ".ci"+string(filepath.Separator)), strings.HasPrefix(rel, "scripts"+string(filepath.Separator)):
			re = shRead
		default:
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			for _, name := range m[1:] {
				if name != "" {
					names[name] = rel
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FLOE_ADMIN_ADDR", "FLOE_SOAK", "FLOE_PG18"} {
		if names[want] == "" {
			t.Fatalf("found no reader of $%s in the repository; has the way they are read changed? found %v", want, names)
		}
	}
	for name, file := range names {
		if _, err := checkEnvNames([]string{name + "=x"}); err != nil {
			t.Errorf("%s reads $%s, but floed refuses it: %v", file, name, err)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "abc", 0},
		{"WROKER", "WORKER", 1},
		{"WORKR", "WORKER", 1},
		{"WORKERS", "WORKER", 1},
		{"WORKAR", "WORKER", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
