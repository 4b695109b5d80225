//go:build unix

package kube_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// pod is floed's container of a workload's pod as the tests run it: its
// arguments and environment as Kubernetes would give them, with the paths
// under its volume mounts moved into temporary directories.
type pod struct {
	args     []string
	env      map[string]string
	grace    time.Duration // terminationGracePeriodSeconds
	stateful bool          // a volume claim template is mounted: state kept across restarts
}

// sampleOrdinal is the ordinal of the pod the tests run.
const sampleOrdinal = 0

// fieldSamples are the values of the pod fields a variable may take
// (valueFrom.fieldRef), as Kubernetes gives them to the pod.
var fieldSamples = map[string]string{
	"metadata.labels['apps.kubernetes.io/pod-index']": strconv.Itoa(sampleOrdinal),
	"metadata.name": "floed-" + strconv.Itoa(sampleOrdinal),
}

// secrets are the Secrets of the test's namespace: their data by key, by
// Secret name.
type secrets map[string]map[string][]byte

// newPod makes the pod of w, its volumes temporary directories of t (a
// Secret's holding its keys as files), or returns what it cannot make.
// fields are the pod's fields a variable may take (fieldSamples, or a
// pod of a Deployment's own).
func newPod(t *testing.T, w workload, sec secrets, fields map[string]string) (*pod, error) {
	ct, err := w.container()
	if err != nil {
		return nil, err
	}
	field := fmt.Sprintf("%s: spec.template.spec.containers[%s]", w, ct.Name)
	if len(ct.Command) > 0 || len(ct.EnvFrom) > 0 {
		return nil, fmt.Errorf("%s: command and envFrom are not run by the tests: the image's entrypoint is floed", field)
	}
	mounts, err := mountDirs(t, w, ct, sec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	// local moves a path under a mount, alone or as the value of an
	// argument --flag=path, into the mount's directory.
	local := func(s string) string {
		prefix, path, ok := strings.Cut(s, "=")
		if !ok || !strings.HasPrefix(s, "-") {
			prefix, path = "", s
		} else {
			prefix += "="
		}
		for _, m := range mounts {
			if rest, ok := strings.CutPrefix(path, m.path); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
				return prefix + m.dir + rest
			}
		}
		return s
	}
	p := &pod{env: make(map[string]string), grace: 30 * time.Second}
	for _, vm := range ct.VolumeMounts {
		if slices.ContainsFunc(w.claims, func(pvc corev1.PersistentVolumeClaim) bool { return pvc.Name == vm.Name }) {
			p.stateful = true
		}
	}
	if g := w.template.Spec.TerminationGracePeriodSeconds; g != nil {
		p.grace = time.Duration(*g) * time.Second
	}
	for _, a := range ct.Args {
		if strings.Contains(a, "$(") {
			return nil, fmt.Errorf("%s.args: %q: the tests do not expand $(VAR) references", field, a)
		}
		p.args = append(p.args, local(a))
	}
	for _, e := range ct.Env {
		v, set, err := envValue(ct, e, sec, fields)
		if err != nil {
			return nil, fmt.Errorf("%s.env[%s]: %w", field, e.Name, err)
		}
		if set {
			p.env[e.Name] = local(v)
		}
	}
	return p, nil
}

// envValue returns the value Kubernetes gives the variable e of ct in a
// pod of the fields, and whether it is set at all.
func envValue(ct *corev1.Container, e corev1.EnvVar, sec secrets, fields map[string]string) (string, bool, error) {
	from := e.ValueFrom
	switch {
	case from == nil:
		if strings.Contains(e.Value, "$(") {
			return "", false, fmt.Errorf("value %q: the tests do not expand $(VAR) references", e.Value)
		}
		return e.Value, true, nil
	case from.FieldRef != nil:
		v, ok := fields[from.FieldRef.FieldPath]
		if !ok {
			return "", false, fmt.Errorf("valueFrom.fieldRef.fieldPath %q: the tests have no sample value of it", from.FieldRef.FieldPath)
		}
		return v, true, nil
	case from.SecretKeyRef != nil:
		ref := from.SecretKeyRef
		if v, ok := sec[ref.Name][ref.Key]; ok {
			return string(v), true, nil
		}
		if ref.Optional != nil && *ref.Optional {
			return "", false, nil
		}
		return "", false, fmt.Errorf("valueFrom.secretKeyRef: no key %q in Secret %q, and the reference is not optional", ref.Key, ref.Name)
	case from.ResourceFieldRef != nil:
		ref := from.ResourceFieldRef
		if ref.ContainerName != "" && ref.ContainerName != ct.Name || ref.Resource != "limits.memory" {
			return "", false, fmt.Errorf("valueFrom.resourceFieldRef: the tests know only limits.memory of the container itself, not %s of %q", ref.Resource, ref.ContainerName)
		}
		limit, ok := ct.Resources.Limits[corev1.ResourceMemory]
		if !ok {
			return "", false, fmt.Errorf("valueFrom.resourceFieldRef: limits.memory, but the container sets no memory limit")
		}
		divisor := ref.Divisor
		if divisor.IsZero() {
			divisor = resource.MustParse("1")
		}
		// As the kubelet does: the limit in units of the divisor, rounded up.
		n := (limit.Value() + divisor.Value() - 1) / divisor.Value()
		return strconv.FormatInt(n, 10), true, nil
	}
	return "", false, fmt.Errorf("valueFrom: the tests know fieldRef, secretKeyRef and resourceFieldRef only")
}

// mount is a volume mount and the directory standing in for it.
type mount struct{ path, dir string }

// mountDirs makes a directory for each volume mount of ct: an empty one
// for a volume claim template or an emptyDir, one holding the Secret's
// keys as files for a secret volume.
func mountDirs(t *testing.T, w workload, ct *corev1.Container, sec secrets) ([]mount, error) {
	var mounts []mount
	for _, vm := range ct.VolumeMounts {
		if vm.SubPath != "" || vm.SubPathExpr != "" {
			return nil, fmt.Errorf("volumeMounts[%s]: the tests do not mount subPaths", vm.MountPath)
		}
		dir := t.TempDir()
		mounts = append(mounts, mount{vm.MountPath, dir})
		if slices.ContainsFunc(w.claims, func(pvc corev1.PersistentVolumeClaim) bool { return pvc.Name == vm.Name }) {
			continue
		}
		i := slices.IndexFunc(w.template.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == vm.Name })
		if i < 0 {
			return nil, fmt.Errorf("volumeMounts[%s]: no volume %q", vm.MountPath, vm.Name)
		}
		v := w.template.Spec.Volumes[i]
		switch {
		case v.EmptyDir != nil:
		case v.Secret != nil:
			if err := writeSecret(dir, v.Secret, sec); err != nil {
				return nil, fmt.Errorf("volumeMounts[%s]: volume %s: %w", vm.MountPath, v.Name, err)
			}
		default:
			return nil, fmt.Errorf("volumeMounts[%s]: volume %s: the tests know emptyDir and secret volumes and volume claim templates only", vm.MountPath, v.Name)
		}
	}
	// The longest path first, so that a mount inside another wins.
	slices.SortFunc(mounts, func(a, b mount) int { return len(b.path) - len(a.path) })
	return mounts, nil
}

// writeSecret writes the keys of the Secret of v into dir, each a file of
// the volume's mode, as the kubelet does.
func writeSecret(dir string, v *corev1.SecretVolumeSource, sec secrets) error {
	if len(v.Items) > 0 {
		return fmt.Errorf("secret.items: the tests mount whole Secrets only")
	}
	data, ok := sec[v.SecretName]
	if !ok {
		if v.Optional != nil && *v.Optional {
			return nil
		}
		return fmt.Errorf("secret.secretName %q: no such Secret in the test", v.SecretName)
	}
	mode := fs.FileMode(corev1.SecretVolumeSourceDefaultMode)
	if v.DefaultMode != nil {
		mode = fs.FileMode(*v.DefaultMode)
	}
	for key, b := range data {
		name := filepath.Join(dir, key)
		if err := os.WriteFile(name, b, 0o600); err != nil {
			return err
		}
		if err := os.Chmod(name, mode); err != nil {
			return err
		}
	}
	return nil
}

// A variable gets the value Kubernetes would give it, or an error when the
// tests cannot know it.
func TestEnvValue(t *testing.T) {
	ct := &corev1.Container{
		Name:      "floed",
		Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("100M")}},
	}
	optional := true
	sec := secrets{"floed": {"token": []byte("s3cret")}}
	memory := func(divisor string) *corev1.EnvVarSource {
		ref := &corev1.ResourceFieldSelector{Resource: "limits.memory"}
		if divisor != "" {
			ref.Divisor = resource.MustParse(divisor)
		}
		return &corev1.EnvVarSource{ResourceFieldRef: ref}
	}
	secret := func(name, key string, optional *bool) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key, Optional: optional}}
	}
	tests := []struct {
		name    string
		from    *corev1.EnvVarSource
		value   string
		want    string
		wantSet bool
		wantErr string
	}{
		{name: "a value", value: "json", want: "json", wantSet: true},
		{name: "the memory limit in bytes", from: memory(""), want: "100000000", wantSet: true},
		{name: "the memory limit in a divisor rounded up", from: memory("1Mi"), want: "96", wantSet: true},
		{name: "a pod field", from: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}, want: "floed-0", wantSet: true},
		{name: "a key of a secret", from: secret("floed", "token", nil), want: "s3cret", wantSet: true},
		{name: "a missing optional key", from: secret("floed", "admin-token", &optional)},
		{name: "a missing secret", from: secret("other", "token", nil), wantErr: `no key "token" in Secret "other"`},
		{name: "a pod field without a sample", from: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}, wantErr: `fieldPath "status.podIP"`},
		{name: "another resource", from: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}}, wantErr: "not limits.cpu"},
		{name: "a config map", from: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{Key: "k"}}, wantErr: "fieldRef, secretKeyRef and resourceFieldRef only"},
		{name: "a reference to a variable", value: "$(HOME)/x", wantErr: "$(VAR)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, set, err := envValue(ct, corev1.EnvVar{Name: "V", Value: tt.value, ValueFrom: tt.from}, sec, fieldSamples)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("envValue: %q, %v, %v; want an error containing %q", got, set, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want || set != tt.wantSet {
				t.Errorf("envValue = %q, %v, %v; want %q, %v", got, set, err, tt.want, tt.wantSet)
			}
		})
	}
}
