//go:build unix

package scenario_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	coordclient "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"

	"github.com/floeid/floe/cluster/kubetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/faultproxy"
	"github.com/floeid/floe/internal/server"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/kube"
)

// The kube scenarios (kube_*_test.go) run floed nodes with --kube
// --kubeconfig and sequencer applications on a kube.Catalog against a
// real kube-apiserver (cluster/kubetest), as the service account of a
// namespace whose only rights are floe's Role. A node that a fault cuts
// off reaches the API server through a fault proxy of its own.

// kubeEnv is the API server of one scenario and a namespace in it.
type kubeEnv struct {
	api     *kubetest.APIServer
	ns      string
	rc      *rest.Config // the namespace's service account: the Role's rights only
	cluster string
	leases  coordclient.LeaseInterface // the administrator's, unthrottled, for the test's own reads and writes
}

// startKube starts an API server and makes a namespace for cluster.
func startKube(t *testing.T, cluster string) *kubeEnv {
	t.Helper()
	api := kubetest.Start(t)
	return kubeIn(t, api, cluster)
}

// kubeIn makes a namespace for cluster on api.
func kubeIn(t *testing.T, api *kubetest.APIServer, cluster string) *kubeEnv {
	t.Helper()
	ns, rc := api.Namespace(t)
	admin := api.Admin()
	admin.QPS = -1 // holdAllBut writes a thousand Leases
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		t.Fatal(err)
	}
	return &kubeEnv{api: api, ns: ns, rc: rc, cluster: cluster, leases: cs.CoordinationV1().Leases(ns)}
}

// kubeconfig returns a kubeconfig file that reaches the API server
// directly, as the service account.
func (k *kubeEnv) kubeconfig(t *testing.T) string { return k.api.Kubeconfig(t, k.rc, k.ns) }

// proxied returns a kubeconfig file that reaches the API server through a
// fault proxy of its own, and the proxy.
func (k *kubeEnv) proxied(t *testing.T) (string, *faultproxy.Proxy) {
	t.Helper()
	rc, p := k.api.Proxy(t, k.rc)
	return k.api.Kubeconfig(t, rc, k.ns), p
}

// kubeNode returns the flags of a floed node of the env's cluster
// reaching the API server with kubeconfig, named owner, with the
// scenarios' timings and extra flags after them.
func (k *kubeEnv) kubeNode(kubeconfig, owner string, extra ...string) []string {
	return append([]string{
		"--kube", "--kubeconfig", kubeconfig, "--kube-namespace", k.ns, "--cluster", k.cluster, "--owner", owner,
		"--lease-ttl", ttl.String(), "--reserve-window", window.String(),
	}, extra...)
}

// catalog returns a Catalog of the env's cluster over a client of rc of
// its own, as a process has.
func (k *kubeEnv) catalog(t *testing.T, rc *rest.Config) *kube.Catalog {
	t.Helper()
	return k.catalogOn(t, kubeClient(t, rc))
}

func (k *kubeEnv) catalogOn(t *testing.T, cli kube.LeasesGetter) *kube.Catalog {
	t.Helper()
	cat, err := kube.NewCatalog(cli, k.ns, k.cluster)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func kubeClient(t testing.TB, rc *rest.Config) *kube.Client {
	t.Helper()
	cli, err := kube.NewClient(rc)
	if err != nil {
		t.Fatal(err)
	}
	return cli
}

// kubeSeq is a sequence generation in the env's catalog.
type kubeSeq struct {
	env    *kubeEnv
	seq    workerid.Sequence
	ids    int
	prefix string // of its worker Leases: floe-<cluster>-<key>-g<gen>-
}

// defineDefault records the default sequence of the env's cluster as
// floed does at its start (the Twitter layout), before any floed runs.
func (k *kubeEnv) defineDefault(t *testing.T) *kubeSeq {
	t.Helper()
	sc := server.SequenceConfig{Name: "default", Format: server.Format64, Layout: id64.Twitter}
	spec, err := server.Spec(sc)
	if err != nil {
		t.Fatal(err)
	}
	return k.define(t, sc.Name, spec, server.WorkerIDs(sc))
}

// define creates the sequence name of spec with ids worker IDs.
func (k *kubeEnv) define(t *testing.T, name, spec string, ids int) *kubeSeq {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	seq, err := k.catalog(t, k.rc).Create(ctx, name, spec)
	if err != nil {
		t.Fatalf("defining sequence %q: %v", name, err)
	}
	return &kubeSeq{env: k, seq: seq, ids: ids, prefix: k.recordName(t, name) + "-g" + strconv.FormatInt(seq.Gen, 10) + "-"}
}

// recordName finds the record Lease of sequence name: floe-<cluster>-<key>,
// its worker Leases' names beginning with it.
func (k *kubeEnv) recordName(t *testing.T, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := k.leases.List(ctx, metav1.ListOptions{LabelSelector: "floe.dev/kind=sequence,floe.dev/cluster=" + k.cluster})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range list.Items {
		if l.Annotations["floe.dev/sequence"] == name {
			return l.Name
		}
	}
	t.Fatalf("no record Lease of sequence %q among %d", name, len(list.Items))
	return ""
}

func (s *kubeSeq) name(id int) string { return s.prefix + strconv.Itoa(id) }

// holdAllBut holds every worker ID but free, as floe would: the test's
// Source claims one with a TTL of an hour, and its Lease is copied for
// the others with holders of their own, which no claimer sees renewed
// but none sees unchanged for an hour either. The floeds then contend for
// the free IDs only.
func (s *kubeSeq) holdAllBut(t *testing.T, free ...int) {
	t.Helper()
	skip := make(map[int]bool)
	for _, id := range free {
		skip[id] = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	src, err := s.env.catalog(t, s.env.rc).Source(s.seq, kube.Config{IDs: s.ids, TTL: time.Hour, Owner: "test-holder"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := src.Claim(ctx)
	if err != nil {
		t.Fatalf("holding a worker ID: %v", err)
	}
	if skip[l.ID()] {
		if err := l.Release(ctx, 0); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			l.Release(ctx, 0)
		})
	}
	tmpl, err := s.env.leases.Get(ctx, s.name(l.ID()), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the test's worker Lease: %v", err)
	}
	ids := make(chan int)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for id := range ids {
				obj := &coordv1.Lease{
					ObjectMeta: metav1.ObjectMeta{Name: s.name(id), Labels: tmpl.Labels, Annotations: tmpl.Annotations},
					Spec:       *tmpl.Spec.DeepCopy(),
				}
				holder := "test-holder/" + strconv.Itoa(id)
				obj.Spec.HolderIdentity = &holder
				if _, err := s.env.leases.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
					select {
					case errs <- fmt.Errorf("holding worker ID %d: %w", id, err):
					default:
					}
				}
			}
		})
	}
	for id := range s.ids {
		if !skip[id] && id != l.ID() {
			ids <- id
		}
	}
	close(ids)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
}

// free gives back a worker ID the test holds: its Lease deleted.
func (s *kubeSeq) free(t *testing.T, id int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.env.leases.Delete(ctx, s.name(id), metav1.DeleteOptions{}); err != nil {
		t.Fatalf("freeing worker ID %d: %v", id, err)
	}
}

// lease reads the Lease of a worker ID; nil when it has none.
func (s *kubeSeq) lease(t *testing.T, id int) *coordv1.Lease {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := s.env.leases.Get(ctx, s.name(id), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatalf("reading the Lease of worker ID %d: %v", id, err)
	}
	return l
}

// reservation reads a worker ID's reservation: R, and the last tick of a
// clean release (0 when none).
func (s *kubeSeq) reservation(t *testing.T, id int) (r, last uint64) {
	t.Helper()
	l := s.lease(t, id)
	if l == nil {
		return 0, 0
	}
	parse := func(key string) uint64 {
		v, ok := l.Annotations[key]
		if !ok {
			return 0
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("Lease %s: annotation %s %q: %v", l.Name, key, v, err)
		}
		return n
	}
	return parse("floe.dev/reserved"), parse("floe.dev/last")
}

// closable is a client whose requests all fail once closed, as a killed
// process's do: the renewals of its leases stop.
type closable struct {
	kube.LeasesGetter
	closed atomic.Bool
}

var errClientClosed = errors.New("test: the client is closed")

func (c *closable) Leases(ns string) kube.Leases { return closableLeases{c.LeasesGetter.Leases(ns), c} }

type closableLeases struct {
	kube.Leases
	c *closable
}

func (l closableLeases) Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordv1.Lease, error) {
	if l.c.closed.Load() {
		return nil, errClientClosed
	}
	return l.Leases.Get(ctx, name, opts)
}

func (l closableLeases) List(ctx context.Context, opts metav1.ListOptions) (*coordv1.LeaseList, error) {
	if l.c.closed.Load() {
		return nil, errClientClosed
	}
	return l.Leases.List(ctx, opts)
}

func (l closableLeases) Create(ctx context.Context, obj *coordv1.Lease, opts metav1.CreateOptions) (*coordv1.Lease, error) {
	if l.c.closed.Load() {
		return nil, errClientClosed
	}
	return l.Leases.Create(ctx, obj, opts)
}

func (l closableLeases) Update(ctx context.Context, obj *coordv1.Lease, opts metav1.UpdateOptions) (*coordv1.Lease, error) {
	if l.c.closed.Load() {
		return nil, errClientClosed
	}
	return l.Leases.Update(ctx, obj, opts)
}

func (l closableLeases) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	if l.c.closed.Load() {
		return errClientClosed
	}
	return l.Leases.Delete(ctx, name, opts)
}

func (l closableLeases) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if l.c.closed.Load() {
		return nil, errClientClosed
	}
	return l.Leases.Watch(ctx, opts)
}

// openKube opens a sequencer of seqName in the env's cluster as the
// application owner, on a Catalog over a client of rc of its own, as an
// application builds it.
func (k *kubeEnv) openKube(t *testing.T, rc *rest.Config, owner string, def sequencer.Definition) (*seqProc, error) {
	cli := &closable{LeasesGetter: kubeClient(t, rc)}
	cat := k.catalogOn(t, cli)
	sources := func(seq workerid.Sequence) (workerid.Source, error) {
		src, err := cat.Source(seq, kube.Config{IDs: seqIDs, TTL: ttl, Owner: owner})
		if err != nil {
			return nil, err
		}
		return src, nil
	}
	return openOn(t, owner, def, cat, sources, func() { cli.closed.Store(true) })
}

// kubeCoord is a sequence on the Kubernetes API, for the in-process
// scenarios: a namespace of its own, and one fault proxy in front of the
// API server for the processes that open their sequencer faulty.
type kubeCoord struct {
	env   *kubeEnv
	seq   *kubeSeq
	proxy *faultproxy.Proxy
	via   *rest.Config // through proxy
}

func newKubeCoord(t *testing.T, api *kubetest.APIServer, cluster string) *kubeCoord {
	t.Helper()
	env := kubeIn(t, api, cluster)
	c := &kubeCoord{env: env}
	c.via, c.proxy = api.Proxy(t, env.rc)
	c.seq = env.define(t, seqName, seqSpec(t, sequencer.Definition{}), seqIDs)
	return c
}

func (c *kubeCoord) tryOpen(t *testing.T, owner string, faulty bool) (*seqProc, error) {
	rc := c.env.rc
	if faulty {
		rc = c.via
	}
	return c.env.openKube(t, rc, owner, sequencer.Definition{})
}

func (c *kubeCoord) proxies() []*faultproxy.Proxy         { return []*faultproxy.Proxy{c.proxy} }
func (c *kubeCoord) holdAllBut(t *testing.T, free ...int) { c.seq.holdAllBut(t, free...) }
func (c *kubeCoord) free(t *testing.T, id int)            { c.seq.free(t, id) }
func (c *kubeCoord) reservation(t *testing.T, id int) (uint64, uint64) {
	return c.seq.reservation(t, id)
}

// TestSeq_Kube runs the in-process scenarios on one API server, each in a
// namespace of its own with a fault proxy of its own.
func TestSeq_Kube(t *testing.T) {
	api := kubetest.Start(t)
	runSeqScenarios(t, func(t *testing.T, cluster string) coordinator { return newKubeCoord(t, api, cluster) })
}
