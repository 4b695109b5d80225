//go:build unix

package kube_test

import (
	"cmp"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/tlstest"
)

// floed runs each workload of each manifest as its first pod would: with
// the floed container's args and env, and its volumes as temporary
// directories. What the tests change: floed listens on free loopback
// ports (floedproc's --listen and --http, which win over the variables),
// FLOE_ETCD names the test's etcd, paths under a volume mount name the
// mount's directory, and valueFrom takes the samples of pod_test.go. The
// rest is the manifest's. A workload whose floed claims worker IDs from
// the Kubernetes API (FLOE_KUBE) runs as all its replicas, against a real
// API server the manifest was applied to (kubepods_test.go).
func TestManifest_Run(t *testing.T) {
	u := floedUsage(t)
	for _, f := range manifestFiles(t) {
		m := load(t, f)
		t.Run(m.file, func(t *testing.T) {
			for _, w := range m.workloads() {
				t.Run(strings.ToLower(w.String()), func(t *testing.T) {
					if ct, err := w.container(); err == nil && slices.ContainsFunc(ct.Env, func(e corev1.EnvVar) bool { return e.Name == "FLOE_KUBE" }) {
						runKubePods(t, m, w, u.ports)
						return
					}
					runPod(t, m, w, u.ports)
				})
			}
		})
	}
}

// etcdSecret is the Secret the etcd manifests mount, with its keys as
// the manifest's comment lists them (kubectl create secret generic
// floed-etcd --from-file=ca.crt ...); etcdUser is the user floed
// authenticates as, who has readwrite on etcdPrefix only.
const (
	etcdSecret = "floed-etcd"
	etcdUser   = "floe"
	etcdPrefix = "/floe/"
)

// tlsSecrets returns the Secrets of the test: floed-etcd with the CA of
// the etcd ca, a client certificate it signed and the password of
// etcdUser, password.
func tlsSecrets(t *testing.T, ca *tlstest.CA, password string) secrets {
	t.Helper()
	client := ca.Issue(t, "floed")
	read := func(name string) []byte {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return secrets{etcdSecret: {
		"ca.crt":   read(ca.CertFile),
		"tls.crt":  read(client.CertFile),
		"tls.key":  read(client.KeyFile),
		"password": []byte(password + "\n"),
	}}
}

// secureEtcd starts a one-member etcd with TLS and client certificates of
// ca, and authentication on, set up as the etcd manifest's comment says:
// the role floe with readwrite on etcdPrefix, and the user floe of that
// role with password. It returns the etcd and a client as root.
func secureEtcd(t *testing.T, ca *tlstest.CA, password string) (*etcdtest.Cluster, *clientv3.Client) {
	t.Helper()
	server := ca.Issue(t, "etcd")
	root := ca.Issue(t, "root")
	c := etcdtest.StartSecure(t, 1, etcdtest.Security{
		CertFile: server.CertFile, KeyFile: server.KeyFile, CAFile: ca.CertFile,
		Client: ca.ClientConfig(root), RootPassword: "root-" + password,
	})
	cli := c.Client(t)
	ctx := etcdtest.Ctx(t, 10*time.Second)
	steps := []struct {
		what string
		do   func() error
	}{
		{"role add", func() error { _, err := cli.RoleAdd(ctx, etcdUser); return err }},
		{"role grant-permission", func() error {
			_, err := cli.RoleGrantPermission(ctx, etcdUser, etcdPrefix, clientv3.GetPrefixRangeEnd(etcdPrefix), clientv3.PermissionType(clientv3.PermReadWrite))
			return err
		}},
		{"user add", func() error { _, err := cli.UserAdd(ctx, etcdUser, password); return err }},
		{"user grant-role", func() error { _, err := cli.UserGrantRole(ctx, etcdUser, etcdUser); return err }},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("etcd: %s: %v", s.what, err)
		}
	}
	return c, cli
}

// runPod runs the first pod of w: it starts floed, asks its probes, fetches
// IDs and stops it with SIGTERM. Every pod must serve on its empty volume,
// as on a first apply; a pod with a volume claim then serves again on the
// volume it wrote.
func runPod(t *testing.T, m *manifest, w workload, ports []floedPort) {
	const password = "pw-of-floe"
	ca := tlstest.NewCA(t, "etcd-ca")
	p, err := newPod(t, w, tlsSecrets(t, ca, password), fieldSamples)
	if err != nil {
		t.Fatalf("%s: %v", m.file, err)
	}
	if slices.ContainsFunc(p.args, func(a string) bool { return a == "--etcd" || strings.HasPrefix(a, "--etcd=") }) {
		t.Fatalf("%s: %s gives --etcd as an argument: the tests point FLOE_ETCD at their etcd", m.file, w)
	}
	if l := p.env["FLOE_LAYOUT"]; l != "" && l != "twitter" {
		t.Fatalf("%s: %s sets FLOE_LAYOUT=%s: the tests read the worker ID of Twitter-layout IDs", m.file, w, l)
	}
	ct, _ := w.container()

	// wantNode checks the node of the IDs p issues.
	var wantNode func(t *testing.T, node int)
	if _, ok := p.env["FLOE_ETCD"]; ok {
		etcd, root := secureEtcd(t, ca, password)
		p.env["FLOE_ETCD"] = strings.Join(etcd.Endpoints(), ",")
		wantNode = func(t *testing.T, node int) { checkClaim(t, root, p, node) }
	} else {
		wantNode = func(t *testing.T, node int) {
			dc, err := strconv.Atoi(cmp.Or(p.env["FLOE_DATACENTER"], "0"))
			if err != nil {
				t.Fatalf("FLOE_DATACENTER: %v", err)
			}
			if want := dc<<5 | sampleOrdinal; node != want {
				t.Errorf("IDs of node %d (datacenter %d, worker %d), want datacenter %d and worker %d, the pod's ordinal", node, node>>5, node&31, dc, sampleOrdinal)
			}
		}
	}

	// The first apply, or a scale-up: the pod's volume is new and empty,
	// and the pod must come up serving with no operator step (no
	// FLOE_TIME_OF_DEATH set, applied and removed again).
	t.Run("first start on an empty volume", func(t *testing.T) {
		proc := floedproc.StartEnv(t, bin, w.name, p.environ(), p.args...)
		serve(t, proc, p, ct, ports, wantNode)
		if p.stateful && !strings.Contains(proc.Stderr(), "first start") {
			t.Errorf("floed on an empty volume logged no first start:\n%s", proc.Stderr())
		}
	})
	if !p.stateful {
		return
	}
	// Restarted on the volume it wrote, it starts from its state.
	t.Run("restart on its volume", func(t *testing.T) {
		proc := floedproc.StartEnv(t, bin, w.name, p.environ(), p.args...)
		serve(t, proc, p, ct, ports, wantNode)
		if strings.Contains(proc.Stderr(), "first start") {
			t.Errorf("floed restarted on its volume logged a first start:\n%s", proc.Stderr())
		}
	})
}

// serve asks the probes of ct until they answer 200, fetches IDs and
// checks that they are unique and of the node wantNode wants, then stops
// floed with SIGTERM within the pod's grace period.
func serve(t *testing.T, proc *floedproc.Proc, p *pod, ct *corev1.Container, ports []floedPort, wantNode func(*testing.T, int)) {
	t.Helper()
	waitProbes(t, proc, ct, ports)
	ids := fetchIDs(t, proc, p)
	wantNode(t, floedproc.Node(ids[0]))
	if err := proc.StopWithin(p.grace); err != nil {
		t.Errorf("SIGTERM: %v, want exit status 0 within terminationGracePeriodSeconds (%v)", err, p.grace)
	}
}

// waitProbes asks the probes of ct, on floed's listeners behind their
// container ports, until they answer 200, or fails t after 10 s.
func waitProbes(t *testing.T, proc *floedproc.Proc, ct *corev1.Container, ports []floedPort) {
	t.Helper()
	// addr is the loopback address of floed's listener behind a probe's
	// container port.
	addr := func(probe *corev1.Probe) string {
		cp, _ := containerPort(ct, probe.HTTPGet.Port)
		for _, fp := range ports {
			if fp.port == cp.ContainerPort && fp.flag == "listen" {
				return proc.Bin
			}
		}
		return proc.HTTP
	}
	for _, pp := range probePaths {
		probe := pp.probe(ct)
		url := "http://" + addr(probe) + probe.HTTPGet.Path
		var last string
		ok := floedproc.WaitFor(10*time.Second, func() bool {
			resp, err := probeClient.Get(url)
			if err != nil {
				last = err.Error()
				return false
			}
			resp.Body.Close()
			last = resp.Status
			return resp.StatusCode == http.StatusOK
		})
		if !ok {
			t.Fatalf("%s: %s %s: %s after 10 s, want 200 OK; floed's log:\n%s", proc.Name, pp.field, url, last, proc.Stderr())
		}
	}
}

// fetchIDs fetches 300 IDs over the binary protocol and checks that they
// are unique and of one node.
func fetchIDs(t *testing.T, proc *floedproc.Proc, p *pod) []uint64 {
	t.Helper()
	c, err := floedproc.Dial(proc.Bin, p.env["FLOE_TOKEN"], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var ids []uint64
	for range 3 {
		got, err := c.Fetch(100)
		if err != nil {
			t.Fatalf("%s: fetching IDs: %v", proc.Name, err)
		}
		ids = append(ids, got...)
	}
	if err := floetest.Unique(ids); err != nil {
		t.Errorf("%s: %v", proc.Name, err)
	}
	nodes := make(map[int]bool)
	for _, id := range ids {
		nodes[floedproc.Node(id)] = true
	}
	if len(nodes) != 1 {
		t.Errorf("%s: IDs of nodes %v, want one node", proc.Name, nodes)
	}
	return ids
}

// probeClient asks the probes as the kubelet does: a connection each, and
// a timeout (timeoutSeconds, 1 s by default; more here for a busy machine).
var probeClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}

// checkClaim checks that node is the worker ID the pod holds in etcd: the
// owner key of its cluster's default sequence names the pod (FLOE_OWNER).
func checkClaim(t *testing.T, root *clientv3.Client, p *pod, node int) {
	t.Helper()
	owner, ok := p.env["FLOE_OWNER"]
	if !ok {
		t.Fatal("the pod sets no FLOE_OWNER: the tests find its claim by its owner name")
	}
	prefix := etcdPrefix + "v1/" + cmp.Or(p.env["FLOE_CLUSTER"], "default") + "/seq/default/"
	resp, err := root.Get(etcdtest.Ctx(t, 10*time.Second), prefix, clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	claimed := -1
	for _, kv := range resp.Kvs {
		if _, id, ok := strings.Cut(string(kv.Key), "/workers/"); ok && string(kv.Value) == owner {
			if claimed, err = strconv.Atoi(id); err != nil {
				t.Fatalf("owner key %s: %v", kv.Key, err)
			}
		}
	}
	if claimed != node {
		t.Errorf("IDs of node %d, want the worker ID %s holds under %s: %d (-1: none)", node, owner, prefix, claimed)
	}
}

// environ returns the pod's environment as NAME=value lines.
func (p *pod) environ() []string {
	var env []string
	for k, v := range p.env {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env
}
