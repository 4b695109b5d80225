package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// The release builds (scripts/release, and the recipes of
// docs/operations.md, the Containerfile and README.md) use the tag
// grpcnotrace so that floed and floe link no text/template: the tag must
// be in each, and with it no dependency may bring a template package
// back, which would keep every exported method in the binaries again (a
// third of floed's size).
func TestRelease_NoTemplates(t *testing.T) {
	for _, f := range []string{"../../scripts/release", "../../docs/operations.md", "../../Containerfile", "../../README.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "grpcnotrace") {
			t.Errorf("%s builds without the tag grpcnotrace", f)
		}
	}
	out, err := exec.Command("go", "list", "-deps", "-tags", "grpcnotrace", ".", "../floe").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list named %d packages: %q", len(deps), out)
	}
	heavy := regexp.MustCompile(`^(text/template|html/template|golang\.org/x/net/trace)$`)
	for _, p := range deps {
		if heavy.MatchString(p) {
			t.Errorf("floed or floe built with -tags grpcnotrace links %s", p)
		}
	}
}
