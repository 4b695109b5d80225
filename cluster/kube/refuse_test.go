//go:build unix

package kube_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/cluster/kubetest"
)

// kubeEnv is an API server and the pods of floed-kube.yaml's Deployment as
// the refusal tests run them.
type kubeEnv struct {
	s     *kubetest.APIServer
	admin kubernetes.Interface
	w     workload
	role  *rbacv1.Role // the manifest's Role
	ca    []byte
	n     int
}

// newKubeEnv starts an API server and reads floed-kube.yaml.
func newKubeEnv(t *testing.T) *kubeEnv {
	t.Helper()
	needMountNamespace(t)
	m := load(t, filepath.Join("..", "..", "deploy", "kubernetes", "floed-kube.yaml"))
	if len(m.deployments) != 1 || len(m.roles) != 1 {
		t.Fatalf("%s: %d Deployments and %d Roles, want one of each", m.file, len(m.deployments), len(m.roles))
	}
	e := &kubeEnv{s: kubetest.Start(t), w: m.workloads()[0], role: m.roles[0]}
	var err error
	if e.ca, err = os.ReadFile(e.s.CA.CertFile); err != nil {
		t.Fatal(err)
	}
	if e.admin, err = kubernetes.NewForConfig(e.s.Admin()); err != nil {
		t.Fatal(err)
	}
	return e
}

// account is the ServiceAccount the manifest's pods run as.
func (e *kubeEnv) account() string { return e.w.template.Spec.ServiceAccountName }

// namespace creates a fresh namespace holding the pods' ServiceAccount,
// with no Role, and returns its name.
func (e *kubeEnv) namespace(t *testing.T) string {
	t.Helper()
	e.n++
	ns := fmt.Sprintf("floed-refused-%d", e.n)
	ctx := context.Background()
	if _, err := e.admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: e.account()}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return ns
}

// grant creates the manifest's Role in namespace in, with rules when
// given, and binds it to the pods' ServiceAccount of namespace of.
func (e *kubeEnv) grant(t *testing.T, in, of string, rules []rbacv1.PolicyRule) {
	t.Helper()
	role := e.role.DeepCopy()
	if rules != nil {
		role.Rules = rules
	}
	ctx := context.Background()
	if _, err := e.admin.RbacV1().Roles(in).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: e.account(), Namespace: of}},
	}
	if _, err := e.admin.RbacV1().RoleBindings(in).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// token returns a token of the pods' ServiceAccount in ns.
func (e *kubeEnv) token(t *testing.T, ns string) string {
	t.Helper()
	return e.s.Token(t, ns, e.account(), time.Hour)
}

// podStart is how a pod of the manifest starts.
type podStart struct {
	name string
	// In the cluster: the pod's service account token and namespace
	// (empty: floed runs outside a pod, with a kubeconfig in env).
	token, namespace string
	addr             string   // the API server's host:port, or a proxy's
	env              []string // after the manifest's: they win
}

// command returns the executable and the environment of floed as the pod
// st, with the manifest's args and env.
func (e *kubeEnv) command(t *testing.T, st podStart) (string, []string, []string) {
	t.Helper()
	p, err := newPod(t, e.w, nil, map[string]string{"metadata.name": st.name})
	if err != nil {
		t.Fatal(err)
	}
	env := append(p.environ(), st.env...)
	if st.token == "" {
		return bin, env, p.args
	}
	host, port, err := net.SplitHostPort(cmp.Or(st.addr, e.s.Addr))
	if err != nil {
		t.Fatal(err)
	}
	env = append(env, "KUBERNETES_SERVICE_HOST="+host, "KUBERNETES_SERVICE_PORT="+port)
	sa := serviceAccount{token: st.token, ca: e.ca, namespace: st.namespace}
	return inPod(t, bin, sa.write(t)), env, p.args
}

// refused starts the pod st and returns the error floed stopped with, or
// fails t unless floed exits with status 1.
func (e *kubeEnv) refused(t *testing.T, st podStart) string {
	t.Helper()
	exe, env, args := e.command(t, st)
	stderr, err := floedproc.StartErrEnv(t, exe, env, args...)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("floed exited with %v, want exit status 1, a refusal:\n%s", err, stderr)
	}
	return stoppedWith(stderr)
}

// stoppedWith returns the error of floed's last log record "floed
// stopped" (FLOE_LOG_FORMAT=json), or the whole log when there is none.
func stoppedWith(log string) string {
	lines := strings.Split(strings.TrimSpace(log), "\n")
	for _, line := range slices.Backward(lines) {
		var rec struct{ Msg, Err string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "floed stopped" {
			return rec.Err
		}
	}
	return log
}

// floed --kube refuses to start, with a message naming the namespace or
// the object and the cause, when its identity may not use Leases there,
// when its credentials are refused, when its namespace does not exist,
// and when its kubeconfig does not parse.
func TestKube_Refusals(t *testing.T) {
	e := newKubeEnv(t)
	tests := []struct {
		name  string
		start func(t *testing.T) podStart
		want  []string // in the error, each with %s the namespace
	}{
		{
			name: "a Role in another namespace",
			start: func(t *testing.T) podStart {
				ns, other := e.namespace(t), e.namespace(t)
				e.grant(t, other, ns, nil)
				return podStart{token: e.token(t, ns), namespace: ns}
			},
			want: []string{"may not list leases in namespace %s", "a Role there on leases is bound to the identity", `User "system:serviceaccount:%s:floed" cannot list resource "leases"`},
		},
		{
			name: "no Role",
			start: func(t *testing.T) podStart {
				ns := e.namespace(t)
				return podStart{token: e.token(t, ns), namespace: ns}
			},
			want: []string{"may not list leases in namespace %s", "a Role there on leases is bound to the identity", `User "system:serviceaccount:%s:floed" cannot list resource "leases"`},
		},
		{
			name: "a Role without delete and watch",
			start: func(t *testing.T) podStart {
				ns := e.namespace(t)
				e.grant(t, ns, ns, []rbacv1.PolicyRule{{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "create", "update"}}})
				return podStart{token: e.token(t, ns), namespace: ns}
			},
			want: []string{"may not watch, delete leases in namespace %s", "a Role there on leases with every verb"},
		},
		{
			name: "a token that is not one",
			start: func(t *testing.T) podStart {
				ns := e.namespace(t)
				e.grant(t, ns, ns, nil)
				return podStart{token: "not-a-token", namespace: ns}
			},
			want: []string{"list Leases in namespace %s: the credentials were refused", "Unauthorized", "(the service account token " + serviceAccountPath + "/token)"},
		},
		{
			name: "a service account deleted after its token was made",
			start: func(t *testing.T) podStart {
				ns := e.namespace(t)
				e.grant(t, ns, ns, nil)
				token := e.token(t, ns)
				if err := e.admin.CoreV1().ServiceAccounts(ns).Delete(context.Background(), e.account(), metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
				return podStart{token: token, namespace: ns}
			},
			want: []string{"list Leases in namespace %s: the credentials were refused", "Unauthorized", "(the service account token " + serviceAccountPath + "/token)"},
		},
		{
			name: "a namespace that does not exist, for the pod's identity",
			start: func(t *testing.T) podStart {
				ns := e.namespace(t)
				e.grant(t, ns, ns, nil)
				return podStart{token: e.token(t, ns), namespace: ns, env: []string{"FLOE_KUBE_NAMESPACE=no-such-namespace"}}
			},
			want: []string{"may not list leases in namespace no-such-namespace: check that the namespace exists"},
		},
		{
			name: "a namespace that does not exist, for an administrator",
			start: func(t *testing.T) podStart {
				kubeconfig := e.s.Kubeconfig(t, e.s.Admin(), "no-such-namespace")
				return podStart{env: []string{"FLOE_KUBECONFIG=" + kubeconfig}}
			},
			want: []string{`create Lease no-such-namespace/floe-prod-default-`, "namespace no-such-namespace not found"},
		},
		{
			name: "a kubeconfig that does not parse",
			start: func(t *testing.T) podStart {
				f := filepath.Join(t.TempDir(), "kubeconfig")
				if err := os.WriteFile(f, []byte("apiVersion: v1\nkind: Config\nclusters: [\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				return podStart{env: []string{"FLOE_KUBECONFIG=" + f}}
			},
			want: []string{"--kubeconfig", "kubeconfig /", "yaml"},
		},
		{
			name: "a kubeconfig that is not there",
			start: func(t *testing.T) podStart {
				return podStart{env: []string{"FLOE_KUBECONFIG=" + filepath.Join(t.TempDir(), "nothing")}}
			},
			want: []string{"--kubeconfig", "nothing", "no such file"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := tt.start(t)
			st.name = e.w.name + "-refused-" + safeString(5)
			got := e.refused(t, st)
			for _, w := range tt.want {
				if strings.Contains(w, "%s") {
					w = strings.ReplaceAll(w, "%s", st.namespace)
				}
				if !strings.Contains(got, w) {
					t.Errorf("floed stopped with:\n%s\nwant %q in it", got, w)
				}
			}
			t.Logf("floed stopped with: %s", got)
		})
	}
}
