//go:build unix

package kube_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/cluster/kubetest"
	"github.com/floeid/floe/floetest"
)

// kubeRun is a workload whose floed claims worker IDs from the Kubernetes
// API (FLOE_KUBE), applied to a real API server, and its pods run as
// floed processes.
type kubeRun struct {
	s       *kubetest.APIServer
	w       workload
	ct      *corev1.Container
	ports   []floedPort
	ns      string
	kubectl []string // kubectl as the administrator, in ns
	admin   kubernetes.Interface
	ca      []byte // the API server's CA, the pods' ca.crt
	cluster string // FLOE_CLUSTER
	hash    string // the pods' pod-template-hash
	ids     []uint64
}

// kubePod is a pod of a kubeRun: floed in a mount namespace of its own.
type kubePod struct {
	name   string
	p      *pod
	proc   *floedproc.Proc
	worker int // the default sequence's worker ID, from /v1/sequences
}

// runKubePods applies the whole manifest to a real API server with kubectl,
// as its administrator, then runs the pods of w as a Deployment's would
// be: each floed with the container's args and env and the pod's name,
// in a mount namespace of its own with the service account's token (a
// TokenRequest for the pod's ServiceAccount), the CA and the namespace at
// serviceAccountPath, and KUBERNETES_SERVICE_HOST and _PORT naming the
// API server. Its only rights are those of the manifest's Role. It runs
// spec.replicas pods, scales the Deployment to 5 with kubectl and runs
// two more, stops one with SIGTERM and starts it again, and stops them
// all; every pod must serve under a worker ID of its own, held as a Lease
// named after the cluster, and released on SIGTERM.
func runKubePods(t *testing.T, m *manifest, w workload, ports []floedPort) {
	needMountNamespace(t)
	ct, err := w.container()
	if err != nil {
		t.Fatal(err)
	}
	r := &kubeRun{s: kubetest.Start(t), w: w, ct: ct, ports: ports, ns: "floed-run", hash: podTemplateHash()}
	if r.ca, err = os.ReadFile(r.s.CA.CertFile); err != nil {
		t.Fatal(err)
	}
	if r.admin, err = kubernetes.NewForConfig(r.s.Admin()); err != nil {
		t.Fatal(err)
	}
	// The pods' cluster name, as they get it.
	if p, err := newPod(t, w, nil, map[string]string{"metadata.name": w.name}); err == nil {
		r.cluster = cmp.Or(p.env["FLOE_CLUSTER"], "default")
	}

	r.kubectl = []string{kubetest.Kubectl(t), "--kubeconfig", r.s.Kubeconfig(t, r.s.Admin(), r.ns), "--cache-dir", t.TempDir()}
	r.run(t, "create", "namespace", r.ns)
	// The whole file: the API server validates every object, strictly
	// (kubectl's --validate=strict, the default), the Deployment and the
	// Service too, though nothing here runs them.
	t.Logf("kubectl apply -f %s -n %s:\n%s", m.file, r.ns, r.run(t, "apply", "-f", m.path, "-n", r.ns))
	r.run(t, "get", "-f", m.path, "-n", r.ns)

	pods := make([]*kubePod, w.replicas)
	for i := range pods {
		pods[i] = r.start(t, r.podName(i))
	}
	r.check(t, pods, fmt.Sprintf("%d replicas", w.replicas))

	// kubectl scale, as the manifest's comment says, and the two new pods.
	const scaled = 5
	r.run(t, "scale", "deployment/"+w.name, "--replicas="+strconv.Itoa(scaled), "-n", r.ns)
	d, err := r.admin.AppsV1().Deployments(r.ns).Get(context.Background(), w.name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := *d.Spec.Replicas; got != scaled {
		t.Fatalf("Deployment %s after kubectl scale: spec.replicas %d, want %d", w.name, got, scaled)
	}
	for i := len(pods); i < scaled; i++ {
		pods = append(pods, r.start(t, r.podName(i)))
	}
	r.check(t, pods, fmt.Sprintf("scaled to %d", scaled))

	// SIGTERM: the pod releases its worker ID with its last tick, and the
	// same pod started again (a container restart keeps the pod's name)
	// claims it back at once.
	stopped := pods[1]
	r.stop(t, stopped)
	restarted := r.start(t, stopped.name)
	if restarted.worker != stopped.worker {
		t.Errorf("%s started again serves worker ID %d, want %d, the one it released (FLOE_OWNER is the pod's name)", stopped.name, restarted.worker, stopped.worker)
	}
	pods[1] = restarted
	r.check(t, pods, "a pod stopped and started again")

	for _, kp := range pods {
		r.stop(t, kp)
	}
	if err := floetest.Unique(r.ids); err != nil {
		t.Errorf("IDs of all pods: %v", err)
	}
	t.Logf("%d pods served %d IDs, none twice", scaled, len(r.ids))
}

// run runs kubectl as the administrator and returns its output.
func (r *kubeRun) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(r.kubectl[0], append(r.kubectl[1:], args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// podTemplateHash returns a pod-template-hash as a Deployment's
// ReplicaSet has one: 10 characters of Kubernetes' safe alphabet.
func podTemplateHash() string { return safeString(10) }

// safeString returns n random characters of the alphabet Kubernetes
// names generated objects with: no vowels, no 0, 1 or 3.
func safeString(n int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rand.N(len(alphabet))]
	}
	return string(b)
}

// podName returns the name of the pod i of the Deployment:
// <deployment>-<pod-template-hash>-<5 random characters>, different for
// each i.
func (r *kubeRun) podName(i int) string {
	return fmt.Sprintf("%s-%s-%s%s", r.w.name, r.hash, safeString(4), string("bcdfghjklm"[i%10]))
}

// start starts the pod name as floed in a mount namespace of its own,
// waits for its probes, fetches IDs, and reads its worker ID.
func (r *kubeRun) start(t *testing.T, name string) *kubePod {
	t.Helper()
	p, err := newPod(t, r.w, nil, map[string]string{"metadata.name": name})
	if err != nil {
		t.Fatal(err)
	}
	if v := p.env["FLOE_KUBE"]; v != "true" {
		t.Fatalf("%s: FLOE_KUBE=%q, want true", r.w, v)
	}
	account := cmp.Or(r.w.template.Spec.ServiceAccountName, "default")
	sa := serviceAccount{token: r.s.Token(t, r.ns, account, time.Hour), ca: r.ca, namespace: r.ns}
	host, port, err := net.SplitHostPort(r.s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	env := append(p.environ(), "KUBERNETES_SERVICE_HOST="+host, "KUBERNETES_SERVICE_PORT="+port)
	kp := &kubePod{name: name, p: p}
	started := time.Now()
	kp.proc = floedproc.StartEnv(t, inPod(t, bin, sa.write(t)), name, env, p.args...)
	waitProbes(t, kp.proc, r.ct, r.ports)
	t.Logf("%s ready %v after its start", name, time.Since(started).Round(time.Millisecond))
	ids := fetchIDs(t, kp.proc, p)
	r.ids = append(r.ids, ids...)
	kp.worker = workerID(t, kp.proc)
	r.checkInCluster(t, kp)
	if node := floedproc.Node(ids[0]); node != kp.worker {
		t.Errorf("%s: IDs of node %d, want its worker ID %d (/v1/sequences)", name, node, kp.worker)
	}
	return kp
}

// stop stops kp with SIGTERM within the pod's grace period and checks that
// its Lease is free, with its last tick recorded.
func (r *kubeRun) stop(t *testing.T, kp *kubePod) {
	t.Helper()
	if err := kp.proc.StopWithin(kp.p.grace); err != nil {
		t.Errorf("SIGTERM: %v, want exit status 0 within terminationGracePeriodSeconds (%v)", err, kp.p.grace)
	}
	l, ok := r.workerLeases(t)[kp.worker]
	switch {
	case !ok:
		t.Errorf("%s stopped: no Lease of worker ID %d", kp.name, kp.worker)
	case l.holder != "":
		t.Errorf("%s stopped: Lease %s held by %q, want released (holderIdentity empty)", kp.name, l.name, l.holder)
	case l.last == "":
		t.Errorf("%s stopped: Lease %s has no floe.dev/last: released without its last tick", kp.name, l.name)
	}
}

// check checks the pods running at the step when: every one is ready, holds
// a worker ID of its own as its Lease, and every ID fetched so far is
// unique.
func (r *kubeRun) check(t *testing.T, pods []*kubePod, when string) {
	t.Helper()
	leases := r.workerLeases(t)
	seen := make(map[int]string)
	for _, kp := range pods {
		if !kp.proc.Ready() {
			t.Errorf("%s: %s not ready", when, kp.name)
		}
		if other, ok := seen[kp.worker]; ok {
			t.Errorf("%s: %s and %s both serve worker ID %d", when, other, kp.name, kp.worker)
		}
		seen[kp.worker] = kp.name
		l, ok := leases[kp.worker]
		switch {
		case !ok:
			t.Errorf("%s: %s serves worker ID %d, of which namespace %s has no Lease (have %v)", when, kp.name, kp.worker, r.ns, leases)
		case !strings.HasPrefix(l.holder, kp.name+"/"):
			t.Errorf("%s: %s serves worker ID %d, whose Lease %s is held by %q", when, kp.name, kp.worker, l.name, l.holder)
		}
	}
	if err := floetest.Unique(r.ids); err != nil {
		t.Errorf("%s: IDs of all pods: %v", when, err)
	}
	var held []string
	for _, kp := range pods {
		held = append(held, fmt.Sprintf("%s: %d", kp.name, kp.worker))
	}
	t.Logf("%s: worker IDs %s", when, strings.Join(held, ", "))
}

// checkInCluster checks that kp connected as a pod does: to the API
// server KUBERNETES_SERVICE_HOST and _PORT name, in the namespace of its
// service account, with no kubeconfig (floed's log of the connection).
func (r *kubeRun) checkInCluster(t *testing.T, kp *kubePod) {
	t.Helper()
	want := map[string]string{"server": "https://" + r.s.Addr, "namespace": r.ns, "kubeconfig": ""}
	for _, line := range strings.Split(kp.proc.Stderr(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil || rec["msg"] != "connecting to the coordinator" {
			continue
		}
		for k, v := range want {
			if got := fmt.Sprint(rec[k]); got != v {
				t.Errorf("%s connected with %s %q, want %q (in-cluster):\n%s", kp.name, k, got, v, line)
			}
		}
		return
	}
	t.Errorf("%s logged no connection to the coordinator:\n%s", kp.name, kp.proc.Stderr())
}

// workerLease is what the tests read of the Lease of a worker ID.
type workerLease struct {
	name   string
	holder string // spec.holderIdentity
	last   string // floe.dev/last
}

// workerLeases lists the Leases floe manages in the namespace, as
// `kubectl get leases -l app.kubernetes.io/managed-by=floe` does, checks
// that their names begin with floe-<cluster>-, and returns those of worker
// IDs (labelled floe.dev/source) by worker ID.
func (r *kubeRun) workerLeases(t *testing.T) map[int]workerLease {
	t.Helper()
	list, err := r.admin.CoordinationV1().Leases(r.ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=floe"})
	if err != nil {
		t.Fatal(err)
	}
	prefix := "floe-" + r.cluster + "-"
	worker := regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + `[a-z0-9-]+-g[0-9]+-([0-9]+)$`)
	out := make(map[int]workerLease)
	for _, l := range list.Items {
		if !strings.HasPrefix(l.Name, prefix) {
			t.Errorf("Lease %s: its name does not begin with %s", l.Name, prefix)
		}
		if _, ok := l.Labels["floe.dev/source"]; !ok {
			continue
		}
		m := worker.FindStringSubmatch(l.Name)
		if m == nil {
			t.Errorf("Lease %s of a worker ID: its name is not %s<sequence>-g<generation>-<worker ID>", l.Name, prefix)
			continue
		}
		id, _ := strconv.Atoi(m[1])
		out[id] = workerLease{name: l.Name, holder: ptrValue(l.Spec.HolderIdentity), last: l.Annotations["floe.dev/last"]}
	}
	if len(out) == 0 {
		var names []string
		for _, l := range list.Items {
			names = append(names, l.Name)
		}
		t.Errorf("no Lease of a worker ID in namespace %s (Leases: %v)", r.ns, names)
	}
	return out
}

func ptrValue[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// workerID returns the worker ID of the default sequence that floed serves,
// from /v1/sequences.
func workerID(t *testing.T, proc *floedproc.Proc) int {
	t.Helper()
	code, body, err := proc.Get("/v1/sequences")
	if err != nil || code != http.StatusOK {
		t.Fatalf("%s: GET /v1/sequences: %d %v\n%s", proc.Name, code, err, body)
	}
	var v struct {
		Sequences []struct {
			Name     string `json:"name"`
			WorkerID int    `json:"worker_id"`
		} `json:"sequences"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("%s: /v1/sequences: %v\n%s", proc.Name, err, body)
	}
	for _, s := range v.Sequences {
		if s.Name == "default" {
			return s.WorkerID
		}
	}
	t.Fatalf("%s: /v1/sequences has no default sequence:\n%s", proc.Name, body)
	return -1
}
