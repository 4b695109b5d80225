package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// link is a Markdown link's target: [text](target).
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// anchors returns the fragments the headings of the Markdown file at path
// make on GitHub, a repeated one with -1, -2, ... after it.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	have := make(map[string]bool)
	seen := make(map[string]int)
	for _, s := range sections(string(b)) {
		a := anchor(strings.ReplaceAll(s.title, "`", ""))
		if n := seen[a]; n > 0 {
			have[a+"-"+strconv.Itoa(n)] = true
		} else {
			have[a] = true
		}
		seen[a]++
	}
	return have
}

// TestDocs_Links checks every relative link of README.md and docs/*.md:
// the file or directory it names exists, and a #fragment names a heading
// of the Markdown file it points into. And README.md links every guide.
func TestDocs_Links(t *testing.T) {
	linked := make(map[string]bool)
	for _, name := range markdown(t) {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		inFence := false
		for i, line := range strings.Split(string(b), "\n") {
			if f := strings.TrimSpace(line); strings.HasPrefix(f, "```") || strings.HasPrefix(f, "~~~") {
				inFence = !inFence
			}
			if inFence {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, frag, _ := strings.Cut(target, "#")
				file := filepath.Join(root, name)
				if path != "" {
					file = filepath.Join(root, filepath.Dir(name), path)
				}
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s:%d: a link to %s, which does not exist", name, i+1, target)
					continue
				}
				if name == "README.md" {
					rel, _ := filepath.Rel(root, file)
					linked[rel] = true
				}
				if frag != "" && strings.HasSuffix(file, ".md") && !anchors(t, file)[frag] {
					t.Errorf("%s:%d: a link to %s, but no heading of %s makes #%s", name, i+1, target, path, frag)
				}
			}
		}
	}
	for _, name := range markdown(t) {
		if name != "README.md" && !linked[name] {
			t.Errorf("README.md does not link %s", name)
		}
	}
}
