// Package deploy holds no code: its tests check the deployment files
// beside them with the tools that read them.
package deploy

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/floeid/floe/internal/promtest"
)

// TestPrometheusRules checks the alerting rules with promtool and runs
// their unit tests, which make each alert fire and resolve.
func TestPrometheusRules(t *testing.T) {
	promtool := promtest.Tool(t, "promtool")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"the rules are valid", []string{"check", "rules", "floed-alerts.yml"}, "SUCCESS: 8 rules found"},
		{"each alert fires and resolves", []string{"test", "rules", "floed-alerts-test.yml"}, "SUCCESS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(promtool, tc.args...)
			cmd.Dir = "prometheus"
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), tc.want) {
				t.Errorf("promtool %s: %v, output:\n%s\nwant success and %q", strings.Join(tc.args, " "), err, out, tc.want)
			}
		})
	}
}

// image is the repository of the image the Containerfile builds, as CI and
// the README tag it.
const image = "ghcr.io/floeid/floed"

// TestImageName checks that every container of the Kubernetes manifests
// runs the image the build produces, and that CI builds it under that name.
func TestImageName(t *testing.T) {
	tests := []struct {
		file   string
		marker string // what precedes the image reference on its line
	}{
		{"kubernetes/floed.yaml", "image: "},
		{"kubernetes/floed-etcd.yaml", "image: "},
		{"../.ci/ship", "image="},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for line := range strings.Lines(string(b)) {
				ref, ok := strings.CutPrefix(strings.TrimSpace(line), tc.marker)
				if !ok {
					continue
				}
				ref, _, _ = strings.Cut(ref, "#")
				got = append(got, strings.Trim(strings.TrimSpace(ref), `"`))
			}
			if len(got) == 0 {
				t.Fatalf("%s names no image (no line starting with %q)", tc.file, tc.marker)
			}
			for _, ref := range got {
				if repo, _, _ := strings.Cut(ref, ":"); repo != image {
					t.Errorf("%s names image %q, want %s:TAG", tc.file, ref, image)
				}
			}
		})
	}
}
