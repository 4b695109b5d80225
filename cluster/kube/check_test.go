//go:build unix

package kube_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/floeid/floe/cluster/kubetest"
)

// workload is what the checks need of a StatefulSet or a Deployment.
type workload struct {
	kind, name  string
	serviceName string // a StatefulSet's governing Service
	selector    *metav1.LabelSelector
	template    *corev1.PodTemplateSpec
	claims      []corev1.PersistentVolumeClaim // a StatefulSet's volumeClaimTemplates
	replicas    int32                          // spec.replicas, 1 when unset
}

func (w workload) String() string { return w.kind + " " + w.name }

// workloads returns the StatefulSets and Deployments of m.
func (m *manifest) workloads() []workload {
	var ws []workload
	replicas := func(n *int32) int32 {
		if n == nil {
			return 1
		}
		return *n
	}
	for _, s := range m.statefulSets {
		ws = append(ws, workload{kind: "StatefulSet", name: s.Name, serviceName: s.Spec.ServiceName, selector: s.Spec.Selector, template: &s.Spec.Template, claims: s.Spec.VolumeClaimTemplates, replicas: replicas(s.Spec.Replicas)})
	}
	for _, d := range m.deployments {
		ws = append(ws, workload{kind: "Deployment", name: d.Name, selector: d.Spec.Selector, template: &d.Spec.Template, replicas: replicas(d.Spec.Replicas)})
	}
	return ws
}

// floedContainer is the name of floed's container in a pod template.
const floedContainer = "floed"

// container returns the container of w named floedContainer.
func (w workload) container() (*corev1.Container, error) {
	for i := range w.template.Spec.Containers {
		if c := &w.template.Spec.Containers[i]; c.Name == floedContainer {
			return c, nil
		}
	}
	return nil, fmt.Errorf("%s: spec.template.spec.containers: no container named %s", w, floedContainer)
}

// probePaths are the paths floed serves for each probe (docs/http.md):
// readiness is /readyz, false while floed cannot issue; liveness is
// /healthz, true while the process serves, so that a node waiting for its
// worker ID or its clock is not restarted.
var probePaths = []struct {
	field string
	probe func(*corev1.Container) *corev1.Probe
	path  string
}{
	{"readinessProbe", func(c *corev1.Container) *corev1.Probe { return c.ReadinessProbe }, "/readyz"},
	{"livenessProbe", func(c *corev1.Container) *corev1.Probe { return c.LivenessProbe }, "/healthz"},
}

// checker collects the errors of one manifest's checks.
type checker struct {
	m    *manifest
	errs []error
}

func (c *checker) errorf(obj fmt.Stringer, format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%s: %s: %s", c.m.file, obj, fmt.Sprintf(format, args...)))
}

// service names a Service in errors.
type service struct{ *corev1.Service }

func (s service) String() string { return "Service " + s.Name }

// check checks the objects of m against each other and against floed,
// as its usage u describes it; it returns every error found.
func check(m *manifest, u *usage) error {
	c := &checker{m: m}
	for _, w := range m.workloads() {
		c.workload(w, u)
	}
	for _, s := range m.services {
		c.service(service{s}, m.workloads())
	}
	c.rbac()
	return errors.Join(c.errs...)
}

// named names an object of a kind in errors.
type named struct{ kind, name string }

func (n named) String() string { return n.kind + " " + n.name }

// rbac checks the rights the file gives floed's pods: a workload's
// serviceAccountName names a ServiceAccount of the file, a RoleBinding
// binds that account to a Role of the file, and the Role grants what
// floed --kube needs (kubetest.LeaseRules) and nothing more: no
// cluster-wide rights, no other resource.
func (c *checker) rbac() {
	for _, w := range c.m.workloads() {
		sa := w.template.Spec.ServiceAccountName
		if sa == "" {
			continue
		}
		if !slices.ContainsFunc(c.m.accounts, func(a *corev1.ServiceAccount) bool { return a.Name == sa }) {
			c.errorf(w, "spec.template.spec.serviceAccountName %q names no ServiceAccount of the file", sa)
			continue
		}
		bound := slices.ContainsFunc(c.m.bindings, func(b *rbacv1.RoleBinding) bool {
			return slices.ContainsFunc(b.Subjects, func(s rbacv1.Subject) bool {
				return s.Kind == "ServiceAccount" && s.Name == sa && (s.Namespace == "" || s.Namespace == b.Namespace)
			})
		})
		if !bound {
			c.errorf(w, "no RoleBinding of the file binds its ServiceAccount %q", sa)
		}
	}
	for _, b := range c.m.bindings {
		obj := named{"RoleBinding", b.Name}
		if b.RoleRef.Kind != "Role" || b.RoleRef.APIGroup != rbacv1.GroupName {
			c.errorf(obj, "roleRef is a %s of %q, want a Role of %s: floed needs rights in its namespace only", b.RoleRef.Kind, b.RoleRef.APIGroup, rbacv1.GroupName)
			continue
		}
		if !slices.ContainsFunc(c.m.roles, func(r *rbacv1.Role) bool { return r.Name == b.RoleRef.Name }) {
			c.errorf(obj, "roleRef.name %q names no Role of the file", b.RoleRef.Name)
		}
	}
	for _, r := range c.m.roles {
		if !reflect.DeepEqual(r.Rules, kubetest.LeaseRules) {
			c.errorf(named{"Role", r.Name}, "rules %v, want exactly %v: what floed --kube uses, which the tests grant", r.Rules, kubetest.LeaseRules)
		}
	}
}

func (c *checker) workload(w workload, u *usage) {
	sel, err := metav1.LabelSelectorAsSelector(w.selector)
	switch {
	case w.selector == nil || sel.Empty():
		c.errorf(w, "spec.selector is empty")
	case err != nil:
		c.errorf(w, "spec.selector: %v", err)
	case !sel.Matches(labels.Set(w.template.Labels)):
		c.errorf(w, "spec.selector %s does not match the pod template's labels %v", sel, w.template.Labels)
	}
	if w.kind == "StatefulSet" {
		i := slices.IndexFunc(c.m.services, func(s *corev1.Service) bool { return s.Name == w.serviceName })
		switch {
		case i < 0:
			c.errorf(w, "spec.serviceName %q names no Service of the file", w.serviceName)
		case c.m.services[i].Spec.ClusterIP != corev1.ClusterIPNone:
			c.errorf(w, "spec.serviceName %q names a Service that is not headless (spec.clusterIP %q, want None)", w.serviceName, c.m.services[i].Spec.ClusterIP)
		}
	}

	volumes := make(map[string]bool)
	for _, v := range w.template.Spec.Volumes {
		volumes[v.Name] = true
	}
	for _, pvc := range w.claims {
		volumes[pvc.Name] = true
	}
	spec := &w.template.Spec
	for _, ct := range slices.Concat(spec.InitContainers, spec.Containers) {
		for _, vm := range ct.VolumeMounts {
			if !volumes[vm.Name] {
				c.errorf(w, "spec.template.spec.containers[%s].volumeMounts[%s]: name %q names no volume or volumeClaimTemplate", ct.Name, vm.MountPath, vm.Name)
			}
		}
	}

	ct, err := w.container()
	if err != nil {
		c.errs = append(c.errs, fmt.Errorf("%s: %w", c.m.file, err))
		return
	}
	field := "spec.template.spec.containers[" + ct.Name + "]"
	for _, e := range ct.Env {
		if strings.HasPrefix(e.Name, "FLOE_") && !u.vars[e.Name] {
			c.errorf(w, "%s.env[%s]: floed reads no such variable (floed -h lists them)", field, e.Name)
		}
	}
	ports := u.ports
	for _, p := range ports {
		i := slices.IndexFunc(ct.Ports, func(cp corev1.ContainerPort) bool { return cp.Name == p.name })
		switch {
		case i < 0:
			c.errorf(w, "%s.ports: no port named %s, floed's --%s (have %s)", field, p.name, p.flag, portNames(ct))
		case ct.Ports[i].ContainerPort != p.port:
			c.errorf(w, "%s.ports[%s]: containerPort %d, want floed's default --%s port %d", field, p.name, ct.Ports[i].ContainerPort, p.flag, p.port)
		}
	}
	for _, cp := range ct.Ports {
		if !slices.ContainsFunc(ports, func(p floedPort) bool { return p.name == cp.Name }) {
			c.errorf(w, "%s.ports[%s]: floed listens on no such port (want %s)", field, cp.Name, strings.Join(wantNames(ports), ", "))
		}
	}
	for _, pp := range probePaths {
		probe := pp.probe(ct)
		switch {
		case probe == nil:
			c.errorf(w, "%s: no %s", field, pp.field)
			continue
		case probe.HTTPGet == nil:
			c.errorf(w, "%s.%s: want an httpGet probe of %s", field, pp.field, pp.path)
			continue
		}
		if _, ok := containerPort(ct, probe.HTTPGet.Port); !ok {
			c.errorf(w, "%s.%s.httpGet.port %s names no port of the container (have %s)", field, pp.field, quote(probe.HTTPGet.Port), portNames(ct))
		}
		if probe.HTTPGet.Path != pp.path {
			c.errorf(w, "%s.%s.httpGet.path %q, want %s", field, pp.field, probe.HTTPGet.Path, pp.path)
		}
	}
}

func (c *checker) service(s service, ws []workload) {
	if len(s.Spec.Selector) == 0 {
		c.errorf(s, "spec.selector is empty")
		return
	}
	sel := labels.SelectorFromSet(s.Spec.Selector)
	var matched []workload
	for _, w := range ws {
		if sel.Matches(labels.Set(w.template.Labels)) {
			matched = append(matched, w)
		}
	}
	if len(matched) == 0 {
		c.errorf(s, "spec.selector %s matches the pod template of no workload of the file", sel)
		return
	}
	for _, p := range s.Spec.Ports {
		target := p.TargetPort
		if target == (intstr.IntOrString{}) {
			target = intstr.FromInt32(p.Port) // Kubernetes' default
		}
		for _, w := range matched {
			if !slices.ContainsFunc(w.template.Spec.Containers, func(ct corev1.Container) bool { _, ok := containerPort(&ct, target); return ok }) {
				c.errorf(s, "spec.ports[%s].targetPort %s names no container port of %s", p.Name, quote(target), w)
			}
		}
	}
}

// containerPort returns the port of ct that port, a name or a number,
// refers to.
func containerPort(ct *corev1.Container, port intstr.IntOrString) (corev1.ContainerPort, bool) {
	for _, cp := range ct.Ports {
		if port.Type == intstr.String && cp.Name == port.StrVal || port.Type == intstr.Int && cp.ContainerPort == port.IntVal {
			return cp, true
		}
	}
	return corev1.ContainerPort{}, false
}

func quote(port intstr.IntOrString) string {
	if port.Type == intstr.String {
		return strconv.Quote(port.StrVal)
	}
	return port.String()
}

func portNames(ct *corev1.Container) string {
	var names []string
	for _, cp := range ct.Ports {
		names = append(names, cp.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func wantNames(ports []floedPort) []string {
	var names []string
	for _, p := range ports {
		names = append(names, p.name)
	}
	return names
}

// The objects of every manifest agree with each other and with floed.
func TestManifest_Consistent(t *testing.T) {
	u := floedUsage(t)
	for _, f := range manifestFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if err := check(load(t, f), u); err != nil {
				t.Error(err)
			}
		})
	}
}

// Each mutation of a shipped manifest breaks one of the checks, which
// names the file, the object and the field.
func TestCheck_Mutations(t *testing.T) {
	u := floedUsage(t)
	const (
		statefulSet = "../../deploy/kubernetes/floed.yaml"
		deployment  = "../../deploy/kubernetes/floed-etcd.yaml"
		kube        = "../../deploy/kubernetes/floed-kube.yaml"
	)
	floed := func(m *manifest) *corev1.Container {
		if len(m.statefulSets) > 0 {
			return &m.statefulSets[0].Spec.Template.Spec.Containers[0]
		}
		return &m.deployments[0].Spec.Template.Spec.Containers[0]
	}
	tests := []struct {
		name   string
		file   string
		mutate func(m *manifest)
		want   string
	}{
		{
			name:   "a service selector that matches no pod",
			file:   statefulSet,
			mutate: func(m *manifest) { m.services[1].Spec.Selector = map[string]string{"app.kubernetes.io/name": "floe"} },
			want:   "floed.yaml: Service floed: spec.selector app.kubernetes.io/name=floe matches the pod template of no workload of the file",
		},
		{
			name:   "a target port that names no container port",
			file:   statefulSet,
			mutate: func(m *manifest) { m.services[0].Spec.Ports[0].TargetPort = intstr.FromString("noq") },
			want:   `floed.yaml: Service floed-headless: spec.ports[noeq].targetPort "noq" names no container port of StatefulSet floed`,
		},
		{
			name:   "a target port number no container has",
			file:   deployment,
			mutate: func(m *manifest) { m.services[0].Spec.Ports[1].TargetPort = intstr.FromInt32(8080) },
			want:   "floed-etcd.yaml: Service floed: spec.ports[http].targetPort 8080 names no container port of Deployment floed",
		},
		{
			name:   "a renamed container port",
			file:   statefulSet,
			mutate: func(m *manifest) { floed(m).Ports[1].Name = "web" },
			want:   `floed.yaml: StatefulSet floed: spec.template.spec.containers[floed].readinessProbe.httpGet.port "http" names no port of the container (have noeq, web)`,
		},
		{
			name:   "a container port floed does not listen on",
			file:   deployment,
			mutate: func(m *manifest) { floed(m).Ports[0].ContainerPort = 4446 },
			want:   "floed-etcd.yaml: Deployment floed: spec.template.spec.containers[floed].ports[noeq]: containerPort 4446, want floed's default --listen port 4444",
		},
		{
			name: "an extra container port",
			file: deployment,
			mutate: func(m *manifest) {
				floed(m).Ports = append(floed(m).Ports, corev1.ContainerPort{Name: "debug", ContainerPort: 6060})
			},
			want: "floed-etcd.yaml: Deployment floed: spec.template.spec.containers[floed].ports[debug]: floed listens on no such port (want noeq, http)",
		},
		{
			name:   "a readiness probe of a path floed does not serve",
			file:   statefulSet,
			mutate: func(m *manifest) { floed(m).ReadinessProbe.HTTPGet.Path = "/ready" },
			want:   `floed.yaml: StatefulSet floed: spec.template.spec.containers[floed].readinessProbe.httpGet.path "/ready", want /readyz`,
		},
		{
			name:   "a liveness probe of readiness",
			file:   deployment,
			mutate: func(m *manifest) { floed(m).LivenessProbe.HTTPGet.Path = "/readyz" },
			want:   `floed-etcd.yaml: Deployment floed: spec.template.spec.containers[floed].livenessProbe.httpGet.path "/readyz", want /healthz`,
		},
		{
			name:   "a probe port number",
			file:   deployment,
			mutate: func(m *manifest) { floed(m).LivenessProbe.HTTPGet.Port = intstr.FromInt32(4446) },
			want:   "floed-etcd.yaml: Deployment floed: spec.template.spec.containers[floed].livenessProbe.httpGet.port 4446 names no port of the container (have noeq, http)",
		},
		{
			name:   "no readiness probe",
			file:   statefulSet,
			mutate: func(m *manifest) { floed(m).ReadinessProbe = nil },
			want:   "floed.yaml: StatefulSet floed: spec.template.spec.containers[floed]: no readinessProbe",
		},
		{
			name: "a probe not over http",
			file: statefulSet,
			mutate: func(m *manifest) {
				floed(m).LivenessProbe.ProbeHandler = corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("http")}}
			},
			want: "floed.yaml: StatefulSet floed: spec.template.spec.containers[floed].livenessProbe: want an httpGet probe of /healthz",
		},
		{
			name:   "a volume mount of no volume claim template",
			file:   statefulSet,
			mutate: func(m *manifest) { m.statefulSets[0].Spec.VolumeClaimTemplates[0].Name = "data" },
			want:   `floed.yaml: StatefulSet floed: spec.template.spec.containers[floed].volumeMounts[/var/lib/floed]: name "state" names no volume or volumeClaimTemplate`,
		},
		{
			name:   "a volume mount of no volume",
			file:   deployment,
			mutate: func(m *manifest) { m.deployments[0].Spec.Template.Spec.Volumes = nil },
			want:   `floed-etcd.yaml: Deployment floed: spec.template.spec.containers[floed].volumeMounts[/etc/floed/etcd]: name "etcd-tls" names no volume or volumeClaimTemplate`,
		},
		{
			name:   "a service name of no service",
			file:   statefulSet,
			mutate: func(m *manifest) { m.statefulSets[0].Spec.ServiceName = "floed-headles" },
			want:   `floed.yaml: StatefulSet floed: spec.serviceName "floed-headles" names no Service of the file`,
		},
		{
			name:   "a service name of a service that is not headless",
			file:   statefulSet,
			mutate: func(m *manifest) { m.statefulSets[0].Spec.ServiceName = "floed" },
			want:   `floed.yaml: StatefulSet floed: spec.serviceName "floed" names a Service that is not headless (spec.clusterIP "", want None)`,
		},
		{
			name:   "a workload selector that does not match its template",
			file:   deployment,
			mutate: func(m *manifest) { m.deployments[0].Spec.Selector.MatchLabels["app.kubernetes.io/name"] = "floe" },
			want:   "floed-etcd.yaml: Deployment floed: spec.selector app.kubernetes.io/name=floe does not match the pod template's labels map[app.kubernetes.io/name:floed]",
		},
		{
			name:   "a variable floed does not read",
			file:   statefulSet,
			mutate: func(m *manifest) { floed(m).Env[1].Name = "FLOE_DATACENTRE" },
			want:   "floed.yaml: StatefulSet floed: spec.template.spec.containers[floed].env[FLOE_DATACENTRE]: floed reads no such variable (floed -h lists them)",
		},
		{
			name:   "no floed container",
			file:   deployment,
			mutate: func(m *manifest) { floed(m).Name = "daemon" },
			want:   "floed-etcd.yaml: Deployment floed: spec.template.spec.containers: no container named floed",
		},
		{
			name:   "a Role with rights on another resource",
			file:   kube,
			mutate: func(m *manifest) { m.roles[0].Rules[0].Resources = append(m.roles[0].Rules[0].Resources, "configmaps") },
			want:   "floed-kube.yaml: Role floed: rules [",
		},
		{
			name:   "a binding to a ClusterRole",
			file:   kube,
			mutate: func(m *manifest) { m.bindings[0].RoleRef.Kind = "ClusterRole" },
			want:   `floed-kube.yaml: RoleBinding floed: roleRef is a ClusterRole of "rbac.authorization.k8s.io", want a Role of rbac.authorization.k8s.io: floed needs rights in its namespace only`,
		},
		{
			name:   "a binding of another account",
			file:   kube,
			mutate: func(m *manifest) { m.bindings[0].Subjects[0].Name = "default" },
			want:   `floed-kube.yaml: Deployment floed: no RoleBinding of the file binds its ServiceAccount "floed"`,
		},
		{
			name:   "a pod of an account the file lacks",
			file:   kube,
			mutate: func(m *manifest) { m.deployments[0].Spec.Template.Spec.ServiceAccountName = "floe" },
			want:   `floed-kube.yaml: Deployment floed: spec.template.spec.serviceAccountName "floe" names no ServiceAccount of the file`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := load(t, tt.file)
			tt.mutate(m)
			err := check(m, u)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("check: %v\nwant an error containing %q", err, tt.want)
			}
		})
	}
}
