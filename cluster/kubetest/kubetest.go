// Package kubetest runs a real kube-apiserver on loopback for tests, on an
// embedded etcd member (cluster/etcdtest), and stops both when the test
// ends.
//
// The API server is the one scripts/kube-apiserver builds from the Go
// module proxy (Kubernetes v1.34.2), found where that script puts it:
// $FLOE_KUBE_BIN, else $XDG_CACHE_HOME/floe/kube-v1.34.2, else
// /var/cache/floe/kube-v1.34.2 for root, else
// $HOME/.cache/floe/kube-v1.34.2. Without it a test skips, or fails when CI
// is set, since .ci/run builds it.
//
// The server runs as production clusters do in the respects floe depends
// on: RBAC authorization, service-account tokens signed by its own key,
// TLS with a certificate of a test CA. An administrator authenticates with
// a static token; each Namespace gets a service account whose only rights
// are those of one Role, the way a pod's are.
package kubetest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/internal/faultproxy"
	"github.com/floeid/floe/internal/skiptest"
	"github.com/floeid/floe/internal/tcptest"
	"github.com/floeid/floe/internal/tlstest"
)

// Version is the Kubernetes release scripts/kube-apiserver builds.
const Version = "v1.34.2"

// readyTimeout bounds a start of the API server until /readyz answers ok:
// about 3 s on an idle 2-core machine, more under a loaded test run.
const readyTimeout = 60 * time.Second

// apiServer is what Start looks for.
var apiServer = &skiptest.Program{Helper: "kubetest", Need: "a Kubernetes API server", Install: "golang, then run scripts/kube-apiserver"}

// Dir returns the directory scripts/kube-apiserver builds kube-apiserver
// and kubectl into (see the package comment).
func Dir() string {
	if d := os.Getenv("FLOE_KUBE_BIN"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "floe", "kube-"+Version)
	}
	if os.Geteuid() == 0 {
		return filepath.Join("/var/cache/floe", "kube-"+Version)
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "floe", "kube-"+Version)
}

// Kubectl returns the path of the kubectl built beside the API server,
// or skips tb (fails it under CI) when there is none.
func Kubectl(tb testing.TB) string {
	tb.Helper()
	return lookPath(tb, "kubectl")
}

func lookPath(tb testing.TB, name string) string {
	tb.Helper()
	awaitBuild(tb)
	p := filepath.Join(Dir(), name)
	if _, err := os.Stat(p); err != nil {
		err := fmt.Errorf("%w (FLOE_KUBE_BIN names the directory)", err)
		msg := fmt.Sprintf("%s: %v; scripts/kube-apiserver builds it", name, err)
		apiServer.Missing(tb, err, msg, msg)
	}
	return p
}

// buildWait bounds how long a test waits for a build of
// scripts/kube-apiserver in progress: a first build takes minutes, and
// longer on a machine busy with the tests themselves.
const buildWait = 30 * time.Minute

// build serializes the tests that wait for a build in progress.
var build sync.Mutex

// awaitBuild waits while scripts/kube-apiserver builds into Dir(): its
// file Dir()+".building" holds the pid of the script, which removes it
// when done. CI starts the build beside the tests, and only the tests
// that need the server wait for it.
func awaitBuild(tb testing.TB) {
	tb.Helper()
	build.Lock()
	defer build.Unlock()
	marker := Dir() + ".building"
	start := time.Now()
	logged := false
	for {
		b, err := os.ReadFile(marker)
		if err != nil {
			return // no build in progress
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || syscall.Kill(pid, 0) == syscall.ESRCH {
			return // a build that did not end cleanly: nothing to wait for
		}
		if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && !strings.Contains(string(cmdline), "kube-apiserver") {
			return // the pid is another process's now
		}
		if !logged {
			tb.Logf("kubetest: waiting for scripts/kube-apiserver (pid %d) to finish building into %s", pid, Dir())
			logged = true
		}
		if time.Since(start) > buildWait {
			tb.Fatalf("kubetest: scripts/kube-apiserver (pid %d) still building into %s after %v", pid, Dir(), buildWait)
		}
		time.Sleep(time.Second)
	}
}

// APIServer is a kube-apiserver on loopback and the etcd it stores in.
type APIServer struct {
	// Etcd is the embedded etcd member behind the API server: stop or
	// restart it to fault the storage.
	Etcd *etcdtest.Cluster
	// Addr is the API server's host:port on 127.0.0.1.
	Addr string
	// CA signed the API server's certificate; a client trusts it.
	CA *tlstest.CA

	tb    testing.TB
	bin   string
	dir   string
	args  []string
	admin string // the administrator's token

	mu   sync.Mutex
	cmd  *exec.Cmd     // guarded by mu: nil while stopped
	done chan struct{} // guarded by mu: closed when cmd exits
	n    int           // guarded by mu: namespaces made
}

// Start starts etcd and a kube-apiserver on free loopback ports and
// returns once the API server is ready. Both stop when tb ends.
func Start(tb testing.TB) *APIServer {
	tb.Helper()
	bin := lookPath(tb, "kube-apiserver")
	s := &APIServer{tb: tb, bin: bin, dir: tb.TempDir(), CA: tlstest.NewCA(tb, "kube")}
	s.Etcd = etcdtest.Start(tb, 1)
	port, err := tcptest.FreePort()
	if err != nil {
		tb.Fatalf("kubetest: a free port: %v", err)
	}
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	serving := s.CA.Issue(tb, "kube-apiserver")
	saKey, saPub := s.writeServiceAccountKey()
	s.admin = randomToken(tb)
	tokens := filepath.Join(s.dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(s.admin+",floe-test-admin,floe-test-admin,system:masters\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	s.args = []string{
		"--etcd-servers=http://" + s.Etcd.Members()[0].ClientAddr,
		"--etcd-prefix=/registry",
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + serving.CertFile,
		"--tls-private-key-file=" + serving.KeyFile,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + saPub,
		"--service-account-signing-key-file=" + saKey,
		"--token-auth-file=" + tokens,
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.96.0.0/24",
		"--cert-dir=" + filepath.Join(s.dir, "certs"),
		// No aggregated APIs, no OpenAPI clients: keep the start short.
		"--enable-aggregator-routing=false",
		"--profiling=false",
	}
	tb.Cleanup(s.Stop)
	s.Start()
	return s
}

// writeServiceAccountKey writes the RSA key pair that signs and checks
// service-account tokens and returns the files of the private and the
// public key.
func (s *APIServer) writeServiceAccountKey() (private, public string) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		s.tb.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		s.tb.Fatal(err)
	}
	private = filepath.Join(s.dir, "sa.key")
	public = filepath.Join(s.dir, "sa.pub")
	if err := os.WriteFile(private, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		s.tb.Fatal(err)
	}
	if err := os.WriteFile(public, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o644); err != nil {
		s.tb.Fatal(err)
	}
	return private, public
}

func randomToken(tb testing.TB) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		tb.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// Start starts the API server, stopped by Stop or Kill, again on its
// address, and returns once it is ready.
func (s *APIServer) Start() {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return
	}
	log, err := os.OpenFile(filepath.Join(s.dir, "kube-apiserver.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		s.tb.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(s.bin, s.args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	dieWithParent(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		s.tb.Fatalf("kubetest: starting kube-apiserver: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	s.cmd, s.done = cmd, done
	if err := s.waitReady(done); err != nil {
		s.stopLocked(syscall.SIGKILL)
		s.tb.Fatalf("kubetest: kube-apiserver %s: %v\n%s", s.Addr, err, s.logTail())
	}
}

// waitReady polls /readyz as the administrator until it answers ok.
func (s *APIServer) waitReady(exited <-chan struct{}) error {
	hc := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: s.CA.ClientConfig(tlstest.Pair{})}}
	defer hc.CloseIdleConnections()
	deadline := time.Now().Add(readyTimeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("exited before it was ready")
		default:
		}
		req, _ := http.NewRequest("GET", "https://"+s.Addr+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+s.admin)
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("/readyz: %s", resp.Status)
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("not ready within %v: %v", readyTimeout, last)
}

// logTail returns the end of the API server's log, for a failure.
func (s *APIServer) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "kube-apiserver.log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// Stop stops the API server with SIGTERM, as a rolling restart does, and
// waits for it to exit (killing it after 10 s).
func (s *APIServer) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked(syscall.SIGTERM)
}

// Kill stops the API server with SIGKILL.
func (s *APIServer) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked(syscall.SIGKILL)
}

// Restart stops the API server with SIGTERM and starts it again.
func (s *APIServer) Restart() {
	s.tb.Helper()
	s.Stop()
	s.Start()
}

func (s *APIServer) stopLocked(sig os.Signal) {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(sig)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd, s.done = nil, nil
}

// Admin returns a configuration that authenticates as an administrator
// (group system:masters).
func (s *APIServer) Admin() *rest.Config {
	return s.config(s.admin)
}

func (s *APIServer) config(token string) *rest.Config {
	return &rest.Config{
		Host:            "https://" + s.Addr,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAFile: s.CA.CertFile},
		Timeout:         30 * time.Second,
	}
}

// AdminClient returns a clientset of the administrator.
func (s *APIServer) AdminClient() kubernetes.Interface {
	s.tb.Helper()
	cs, err := kubernetes.NewForConfig(s.Admin())
	if err != nil {
		s.tb.Fatal(err)
	}
	return cs
}

// LeaseRules are the rights floe needs in its namespace: the Role of
// deploy/kubernetes, which Namespace grants.
var LeaseRules = []rbacv1.PolicyRule{{
	APIGroups: []string{"coordination.k8s.io"},
	Resources: []string{"leases"},
	Verbs:     []string{"get", "list", "watch", "create", "update", "delete"},
}}

// Namespace creates a fresh namespace with a service account "floe" bound
// to a Role of LeaseRules, and returns its name and a configuration that
// authenticates as that account, with a token the API server signed:
// the only rights it has are the Role's.
func (s *APIServer) Namespace(tb testing.TB) (string, *rest.Config) {
	tb.Helper()
	return s.NamespaceWith(tb, LeaseRules)
}

// NamespaceWith is Namespace with the Role's rules; none binds no Role.
func (s *APIServer) NamespaceWith(tb testing.TB, rules []rbacv1.PolicyRule) (string, *rest.Config) {
	tb.Helper()
	s.mu.Lock()
	s.n++
	name := fmt.Sprintf("floe-test-%d", s.n)
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := s.AdminClient()
	must := func(what string, err error) {
		tb.Helper()
		if err != nil {
			tb.Fatalf("kubetest: %s in namespace %s: %v", what, name, err)
		}
	}
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	must("creating the namespace", err)
	_, err = cs.CoreV1().ServiceAccounts(name).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "floe"}}, metav1.CreateOptions{})
	must("creating the service account", err)
	if len(rules) > 0 {
		_, err = cs.RbacV1().Roles(name).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "floe"}, Rules: rules}, metav1.CreateOptions{})
		must("creating the Role", err)
		_, err = cs.RbacV1().RoleBindings(name).Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "floe"},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "floe"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "floe", Namespace: name}},
		}, metav1.CreateOptions{})
		must("binding the Role", err)
		must("waiting for the Role to apply", s.waitAllowed(ctx, cs, name, rules))
	}
	token := s.Token(tb, name, "floe", time.Hour)
	return name, s.config(token)
}

// waitAllowed waits until the authorizer allows the service account
// "floe" of namespace every verb of rules: RBAC reads Roles and
// RoleBindings from a watch cache, so a binding just written may not
// apply yet, and the account's first requests would be forbidden.
func (s *APIServer) waitAllowed(ctx context.Context, cs kubernetes.Interface, namespace string, rules []rbacv1.PolicyRule) error {
	for _, r := range rules {
		for _, group := range r.APIGroups {
			for _, res := range r.Resources {
				for _, verb := range r.Verbs {
					sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
						User:   "system:serviceaccount:" + namespace + ":floe",
						Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
						ResourceAttributes: &authorizationv1.ResourceAttributes{
							Namespace: namespace, Verb: verb, Group: group, Resource: res,
						},
					}}
					for {
						got, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
						if err != nil {
							return err
						}
						if got.Status.Allowed {
							break
						}
						select {
						case <-ctx.Done():
							return fmt.Errorf("%s %s.%s not allowed: %w", verb, res, group, ctx.Err())
						case <-time.After(20 * time.Millisecond):
						}
					}
				}
			}
		}
	}
	return nil
}

// Token returns a token of the service account namespace/account, valid
// for ttl (at least 10 minutes: the API server's floor).
func (s *APIServer) Token(tb testing.TB, namespace, account string, ttl time.Duration) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	secs := int64(ttl / time.Second)
	tr, err := s.AdminClient().CoreV1().ServiceAccounts(namespace).CreateToken(ctx, account,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &secs}}, metav1.CreateOptions{})
	if err != nil {
		tb.Fatalf("kubetest: a token of %s/%s: %v", namespace, account, err)
	}
	return tr.Status.Token
}

// Proxy returns a copy of cfg that reaches the API server through a new
// fault proxy, and the proxy, closed when tb ends: black-hole or freeze it
// to make the server silent for that client alone.
func (s *APIServer) Proxy(tb testing.TB, cfg *rest.Config) (*rest.Config, *faultproxy.Proxy) {
	tb.Helper()
	p, err := faultproxy.Listen(s.Addr)
	if err != nil {
		tb.Fatalf("kubetest: a fault proxy: %v", err)
	}
	tb.Cleanup(func() { p.Close() })
	c := rest.CopyConfig(cfg)
	c.Host = "https://" + p.Addr()
	// The certificate names 127.0.0.1, which the proxy's address also is.
	return c, p
}

// Kubeconfig writes a kubeconfig file for cfg (a server, its CA and a
// bearer token) in namespace and returns its path: what floed --kubeconfig
// and kubectl read.
func (s *APIServer) Kubeconfig(tb testing.TB, cfg *rest.Config, namespace string) string {
	tb.Helper()
	ca, err := os.ReadFile(s.CA.CertFile)
	if err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: test
  user:
    token: %s
contexts:
- name: test
  context:
    cluster: test
    user: test
    namespace: %s
current-context: test
`, cfg.Host, base64.StdEncoding.EncodeToString(ca), cfg.BearerToken, namespace)
	f, err := os.CreateTemp(tb.TempDir(), "kubeconfig-*")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(b.String()); err != nil {
		tb.Fatal(err)
	}
	return f.Name()
}
