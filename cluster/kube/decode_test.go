//go:build unix

package kube_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// manifest is a manifest file decoded: its objects by kind, each list in
// the order of the file.
type manifest struct {
	file         string // the file's base name, for errors
	path         string // the file's path, for kubectl; set by load
	text         string // the file as it is, comments included
	services     []*corev1.Service
	statefulSets []*appsv1.StatefulSet
	deployments  []*appsv1.Deployment
	accounts     []*corev1.ServiceAccount
	roles        []*rbacv1.Role
	bindings     []*rbacv1.RoleBinding
}

// kind is how the documents of one kind are decoded.
type kind struct {
	apiVersion string
	decode     func(m *manifest, doc []byte) error
}

// kinds are the kinds a manifest may hold. A new kind needs its line here
// and, when it refers to other objects, its checks in check_test.go.
var kinds = map[string]kind{
	"Service":     {"v1", decodeInto(func(m *manifest) *[]*corev1.Service { return &m.services })},
	"StatefulSet": {"apps/v1", decodeInto(func(m *manifest) *[]*appsv1.StatefulSet { return &m.statefulSets })},
	"Deployment":  {"apps/v1", decodeInto(func(m *manifest) *[]*appsv1.Deployment { return &m.deployments })},
	// The rights of floed's pods on the Kubernetes API (floed --kube).
	"ServiceAccount": {"v1", decodeInto(func(m *manifest) *[]*corev1.ServiceAccount { return &m.accounts })},
	"Role":           {"rbac.authorization.k8s.io/v1", decodeInto(func(m *manifest) *[]*rbacv1.Role { return &m.roles })},
	"RoleBinding":    {"rbac.authorization.k8s.io/v1", decodeInto(func(m *manifest) *[]*rbacv1.RoleBinding { return &m.bindings })},
}

// decodeInto returns a decoder that refuses unknown and duplicate fields
// and appends the object to the list of m that list returns.
func decodeInto[T any](list func(*manifest) *[]*T) func(*manifest, []byte) error {
	return func(m *manifest, doc []byte) error {
		obj := new(T)
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			return err
		}
		*list(m) = append(*list(m), obj)
		return nil
	}
}

// decode splits a manifest file into its YAML documents, as kubectl does,
// and decodes each by its kind. Documents of comments only are skipped.
func decode(file string, data []byte) (*manifest, error) {
	m := &manifest{file: file, text: string(data)}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for n := 1; ; n++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return m, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", file, n, err)
		}
		var fields map[string]any
		if err := yaml.Unmarshal(doc, &fields); err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", file, n, err)
		}
		if len(fields) == 0 {
			continue
		}
		// The kind and name only, leniently: the strict decoding follows.
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", file, n, err)
		}
		k, ok := kinds[head.Kind]
		switch {
		case head.Kind == "":
			return nil, fmt.Errorf("%s: document %d has no kind", file, n)
		case !ok:
			return nil, fmt.Errorf("%s: document %d: kind %q is none of %s: a new kind needs its decoder and checks in cluster/kube",
				file, n, head.Kind, strings.Join(slices.Sorted(maps.Keys(kinds)), ", "))
		case head.Metadata.Name == "":
			return nil, fmt.Errorf("%s: document %d (%s) has no metadata.name", file, n, head.Kind)
		case head.APIVersion != k.apiVersion:
			return nil, fmt.Errorf("%s: %s %s: apiVersion %q, want %q", file, head.Kind, head.Metadata.Name, head.APIVersion, k.apiVersion)
		}
		if err := k.decode(m, doc); err != nil {
			return nil, fmt.Errorf("%s: %s %s (document %d): %w", file, head.Kind, head.Metadata.Name, n, err)
		}
	}
}

// manifestFiles returns the paths of the shipped manifests.
func manifestFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../deploy/kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/kubernetes: %v", err)
	}
	return files
}

// load reads and decodes a manifest file, failing the test on an error.
func load(t *testing.T, path string) *manifest {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := decode(filepath.Base(path), b)
	if err != nil {
		t.Fatal(err)
	}
	m.path = path
	return m
}

// Every document of every manifest decodes into its API type, with no
// field the type lacks, and every manifest runs a workload.
func TestManifest_Decode(t *testing.T) {
	for _, f := range manifestFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			m := load(t, f)
			if len(m.workloads()) == 0 {
				t.Errorf("%s holds no StatefulSet or Deployment", m.file)
			}
		})
	}
}

// The decoder refuses what the API server would not take as written.
func TestDecode_Refuses(t *testing.T) {
	const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: floed
spec:
  template:
    spec:
      containers:
        - name: floed
          readinessProbe:
            httpGet:
              path: /readyz
              port: http
`
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{
			name: "a misspelled field",
			yaml: strings.Replace(deployment, "port: http", "prot: http", 1),
			want: `test.yaml: Deployment floed (document 1): error unmarshaling JSON: while decoding JSON: json: unknown field "prot"`,
		},
		{
			name: "a field given twice",
			yaml: strings.Replace(deployment, "path: /readyz", "path: /readyz\n              path: /healthz", 1),
			want: "test.yaml: Deployment floed (document 1): error converting YAML to JSON: yaml: unmarshal errors:\n  line 13: key \"path\" already set in map",
		},
		{
			name: "a field of the wrong type",
			yaml: strings.Replace(deployment, "spec:\n  template:", "spec:\n  replicas: three\n  template:", 1),
			want: `test.yaml: Deployment floed (document 1): error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`,
		},
		{
			name: "an unknown kind",
			yaml: "# a comment\n---\n" + strings.Replace(deployment, "kind: Deployment", "kind: Deploymnet", 1),
			want: `test.yaml: document 2: kind "Deploymnet" is none of Deployment, Role, RoleBinding, Service, ServiceAccount, StatefulSet`,
		},
		{
			name: "no kind",
			yaml: strings.Replace(deployment, "kind: Deployment\n", "", 1),
			want: `test.yaml: document 1 has no kind`,
		},
		{
			name: "no name",
			yaml: strings.Replace(deployment, "name: floed\nspec", "labels: {}\nspec", 1),
			want: `test.yaml: document 1 (Deployment) has no metadata.name`,
		},
		{
			name: "another api version",
			yaml: strings.Replace(deployment, "apps/v1", "apps/v1beta2", 1),
			want: `test.yaml: Deployment floed: apiVersion "apps/v1beta2", want "apps/v1"`,
		},
		{
			name: "a document that is no object",
			yaml: "# a comment\n---\n- floed\n",
			want: `test.yaml: document 2: error unmarshaling JSON`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decode("test.yaml", []byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("decode: %v, want an error containing %q", err, tt.want)
			}
		})
	}
	t.Run("the same without the mistake", func(t *testing.T) {
		m, err := decode("test.yaml", []byte("# a comment\n---\n"+deployment))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(m.deployments), 1; got != want {
			t.Errorf("%d deployments, want %d", got, want)
		}
	})
}
