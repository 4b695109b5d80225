package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// exampleRow is a row of docs/grpc.md's table of examples: the file and
// its count of lines.
var exampleRow = regexp.MustCompile("(?m)^\\| \\[`(examples/[^`]+)`\\]\\([^)]+\\) \\| (\\d+) \\|")

// TestGRPC_Examples checks docs/grpc.md's table of the clients in
// examples/: it names every .js and .py file there (node_modules aside),
// each with its count of lines.
func TestGRPC_Examples(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "grpc.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := make(map[string]int)
	for _, m := range exampleRow.FindAllStringSubmatch(string(b), -1) {
		listed[m[1]], _ = strconv.Atoi(m[2])
	}
	err = filepath.WalkDir(filepath.Join(root, "examples"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if ext := filepath.Ext(path); ext != ".js" && ext != ".py" {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := strings.Count(string(src), "\n")
		n, ok := listed[rel]
		switch {
		case !ok:
			t.Errorf("docs/grpc.md: %s is not in the table of examples", rel)
		case n != lines:
			t.Errorf("docs/grpc.md: %s has %d lines, the table says %d", rel, lines, n)
		}
		delete(listed, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel := range listed {
		t.Errorf("docs/grpc.md: the table names %s, which is not in examples/", rel)
	}
}
