package floe_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/floeid/floe"

// allowed lists, for each package, the floe packages it may import besides
// the standard library. Dependencies point inward. Only the packages in
// thirdParty may import modules outside the standard library, and only
// those listed there: the ID library itself uses the standard library only.
var allowed = map[string][]string{
	".":                         {"internal/tsc"},
	"internal/tsc":              nil,
	"floetest":                  {""},
	"internal/clockseq":         {""},
	"internal/textid":           {""},
	"internal/textid/parsetest": {""},
	"internal/redistest":        {"internal/skiptest", "internal/tcptest"},
	"internal/skiptest":         nil,
	"internal/tlstest":          nil,
	"internal/schedtest":        nil,
	"tlsfile":                   nil,
	"internal/buildinfo":        nil,
	"id64":                      {"", "internal/clockseq", "internal/textid"},
	"id80":                      {"", "internal/clockseq", "internal/textid"},
	"id96":                      {"", "internal/clockseq", "internal/textid"},
	"id128":                     {"", "internal/clockseq", "internal/textid"},
	"redisgen":                  {"", "id64"},
	"internal/wire":             nil,
	"internal/statefile":        nil,
	"sequencer":                 {"", "id128", "id64", "id80", "id96", "workerid"},
	"internal/server":           {"", "id128", "id64", "id80", "id96", "internal/floev1", "internal/wire", "sequencer", "workerid"},
	"internal/floev1":           nil,
	"client":                    {"id64", "internal/wire"},
	"workerid":                  {"internal/statefile"},
	"workerid/workeridtest":     {"workerid"},
	"workerid/etcd":             {"", "workerid", "internal/coordnet"},
	"workerid/redis":            {"", "workerid", "internal/coordnet"},
	"workerid/kube":             {"", "workerid", "internal/coordnet"},
	"internal/coordnet":         nil,
	"internal/faultproxy":       nil,
	"internal/tcptest":          nil,
	"internal/promtest":         {"floetest"},
	"deploy":                    nil,

	// The test helper of internal/server.
	"internal/server/servertest": {"internal/server"},
}

// thirdParty lists the adapters and the module prefixes each may import.
var thirdParty = map[string][]string{
	"redisgen":        {"github.com/redis/go-redis/v9"},
	"internal/server": {"github.com/prometheus/client_golang", "google.golang.org/grpc", "google.golang.org/protobuf", "google.golang.org/genproto/googleapis/rpc"},
	"internal/floev1": {"google.golang.org/grpc", "google.golang.org/protobuf"},
	"workerid/etcd":   {"go.etcd.io/etcd/client/v3", "go.etcd.io/etcd/api/v3", "google.golang.org/grpc"},
	"workerid/redis":  {"github.com/redis/go-redis/v9"},
	"workerid/kube":   {"k8s.io/client-go", "k8s.io/api", "k8s.io/apimachinery"},
}

// TestDeps reads the imports of every non-test file of the library packages
// and fails on any import outside the standard library and the package's
// allowed floe packages.
func TestDeps(t *testing.T) {
	for dir, floePkgs := range allowed {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Errorf("%s: no Go files (%v)", dir, err)
			continue
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Errorf("%s: %v", file, err)
				continue
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if rel, ok := strings.CutPrefix(path, module); ok {
					rel = strings.TrimPrefix(rel, "/")
					if !slices.Contains(floePkgs, rel) {
						t.Errorf("%s imports %s, which %s may not import", file, path, dir)
					}
					continue
				}
				if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
					ok := slices.ContainsFunc(thirdParty[dir], func(prefix string) bool {
						return path == prefix || strings.HasPrefix(path, prefix+"/")
					})
					if !ok {
						t.Errorf("%s imports %s: only the standard library and the modules listed for it", file, path)
					}
				}
			}
		}
	}
}

// TestDepsCoversEveryPackage keeps the table above complete: a new library
// package must say what it may import.
func TestDepsCoversEveryPackage(t *testing.T) {
	skip := map[string]bool{"bench": true, "cluster": true, "cmd": true, "testdata": true, ".git": true, ".ci": true}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if skip[path] || strings.HasPrefix(filepath.Base(path), ".") && path != "." {
			return filepath.SkipDir
		}
		gofiles, _ := filepath.Glob(filepath.Join(path, "*.go"))
		if len(gofiles) > 0 {
			if _, ok := allowed[path]; !ok {
				t.Errorf("package %s is missing from the allowed-imports table", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
