package scale_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/floeid/floe/cluster/kubetest"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/kube"
)

var (
	kubeNFlag    = flag.Int("scale.kube", 256, "TestScaleKube: sequencers started at once on one API server, 1..1024")
	kubeWaitFlag = flag.Duration("scale.kube.wait", 10*time.Minute, "TestScaleKube: how long the sequencers may take to serve")
)

// The kube pods' configuration: kube.Config's default TTL, the
// sequencer's default window.
const kubeTTL = 10 * time.Second

// TestScaleKube starts -scale.kube sequencers at once on one snowcast-1024
// sequence of a kube.Catalog, on one kube-apiserver (cluster/kubetest) on
// this machine, each with its own kube.Client as the namespace's service
// account, and reports how soon they serve, their claim latency, the
// steady-state API requests per second, counted by the clients and by
// the API server's apiserver_request_total; it checks that no worker ID
// is held twice and no ID issued twice.
func TestScaleKube(t *testing.T) {
	o := setup(t)
	n := *kubeNFlag
	if n < 1 || n > maxSequencers {
		t.Fatalf("-scale.kube %d: want 1..%d", n, maxSequencers)
	}
	api := kubetest.Start(t)
	ns, rc := api.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), *kubeWaitFlag+5*time.Minute)
	t.Cleanup(cancel)
	startCtx, startCancel := context.WithTimeout(ctx, *kubeWaitFlag)
	defer startCancel()
	def, err := sequencer.Snowcast(epoch, maxSequencers)
	if err != nil {
		t.Fatal(err)
	}
	const name, cluster = "scale-1024", "scale"

	began := time.Now()
	nodes := make([]*kubeNode, n)
	plain := make([]*node, n)
	for i := range nodes {
		// A Proxy of its own keeps client-go from sharing one cached
		// transport, and its connection, among the clients: each pod has
		// its own.
		prc := rest.CopyConfig(rc)
		prc.Proxy = http.ProxyFromEnvironment
		cli, err := kube.NewClient(prc)
		if err != nil {
			t.Fatal(err)
		}
		nodes[i] = &kubeNode{node: &node{i: i}, cli: &countingKube{LeasesGetter: cli}}
		plain[i] = nodes[i].node
	}
	clientsTook := time.Since(began)
	t.Cleanup(func() {
		each(plain, func(nd *node) error {
			if nd.sq != nil {
				nd.sq.Close(context.Background())
			}
			return nil
		})
	})

	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, nd := range nodes {
		wg.Go(func() {
			<-start
			nd.open(startCtx, ns, cluster, name, def)
		})
	}
	api0 := apiCounters(t, api.Admin())
	cpu0, t0 := cpuTime(), time.Now()
	close(start)
	progress(t, &wg, plain, t0)
	allServing, startCPU := time.Since(t0), cpuTime()-cpu0
	startAPICPU := apiCounters(t, api.Admin())[cpuKey] - api0[cpuKey]
	var errs []error
	for _, nd := range plain {
		if nd.err != nil {
			errs = append(errs, nd.err)
		}
	}
	report(t, "starting", errs)
	if len(errs) > 0 {
		var failed []error
		for _, nd := range plain {
			failed = append(failed, nd.failed...)
		}
		t.Logf("%d of %d pods serving after %v; %d Opens failed, most often:", n-len(errs), n, allServing.Round(time.Second), len(failed))
		for _, k := range kinds(failed, 5) {
			t.Log("  " + k)
		}
		t.FailNow()
	}
	held := make(map[int]int)
	for _, nd := range plain {
		w := nd.sq.Stats().WorkerID
		if p, ok := held[w]; ok {
			t.Errorf("pods %d and %d both hold worker ID %d", p, nd.i, w)
		}
		held[w] = nd.i
	}
	report(t, "issuing before the steady state", each(plain, func(nd *node) error { return nd.issue(o.ids) }))

	// The steady state: every pod serving, idle.
	before, srv0, st0 := kubeSum(nodes), apiCounters(t, api.Admin()), seqStats(plain)
	cpu1, t1 := cpuTime(), time.Now()
	select {
	case <-time.After(o.steady):
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	elapsed, steadyCPU := time.Since(t1), cpuTime()-cpu1
	steady, srv1, st1 := kubeSum(nodes).sub(before), apiCounters(t, api.Admin()), seqStats(plain)

	report(t, "issuing after the steady state", each(plain, func(nd *node) error { return nd.issue(o.ids) }))
	issued := checkIDs(t, plain, def.Layout)

	t2 := time.Now()
	report(t, "closing", each(plain, func(nd *node) error { return nd.sq.Close(ctx) }))
	closing := time.Since(t2)

	lat := make([]time.Duration, 0, n)
	var claimed verbCounts
	var failed []error
	for _, nd := range nodes {
		failed = append(failed, nd.failed...)
		lat = append(lat, nd.latency)
		claimed = claimed.add(nd.claimed)
	}
	fn := float64(n)
	sec := elapsed.Seconds()
	tb := newTable(fmt.Sprintf("%d sequencers on snowcast-1024, one kube-apiserver %s on one embedded etcd member, %d CPUs, GOMAXPROCS %d, lease TTL %v, window %v",
		n, kubetest.Version, runtime.NumCPU(), runtime.GOMAXPROCS(0), kubeTTL, window))
	tb.row("start", "", "")
	tb.row("  clients made (before the start)", ms(clientsTook), "")
	tb.row("  all serving", ms(allServing), fmt.Sprintf("CPU %.2f s of the API server, %.2f s of this process (the pods and etcd)", startAPICPU, startCPU.Seconds()))
	tb.row("  claim latency p50 / p99 / max", ms(percentile(lat, 50))+" / "+ms(percentile(lat, 99))+" / "+ms(percentile(lat, 100)), "Open's start to serving")
	tb.row("  Opens failed and tried again", strconv.Itoa(len(failed)), "")
	for _, k := range kinds(failed, 3) {
		tb.row("", "", k)
	}
	tb.row("  API requests per pod until serving", fmt.Sprintf("%.2f", float64(claimed.total())/fn), claimed.String())
	tb.row(fmt.Sprintf("steady state over %.1f s", sec), "measured", "expected")
	tb.row("  Lease writes/s (clients: updates + creates)", fmt.Sprintf("%.1f", float64(steady[vUpdate]+steady[vCreate])/sec),
		fmt.Sprintf("%.1f at one reservation per 7/16 window, which renews too (renewals alone: %.1f, one per TTL/3)", fn*16/7/window.Seconds(), fn*3/kubeTTL.Seconds()))
	tb.row("  Lease PUTs/s (apiserver_request_total)", fmt.Sprintf("%.1f", (srv1["PUT"]-srv0["PUT"])/sec), "")
	tb.row("  Lease POSTs, GETs, LISTs, WATCHes/s (apiserver_request_total)",
		fmt.Sprintf("%.1f, %.1f, %.1f, %.1f", (srv1["POST"]-srv0["POST"])/sec, (srv1["GET"]-srv0["GET"])/sec, (srv1["LIST"]-srv0["LIST"])/sec, (srv1["WATCH"]-srv0["WATCH"])/sec), "0, 0, 0, 0")
	tb.row("  requests of the clients", steady.String(), "")
	tb.row("  reservation writes/s (sequencer Stats)", fmt.Sprintf("%.1f", float64(st1.writes-st0.writes)/sec), "")
	tb.row("  CPU of the API server / of this process (the pods and etcd)", fmt.Sprintf("%.0f%% / %.0f%% of %d cores",
		100*(srv1[cpuKey]-srv0[cpuKey])/sec/float64(runtime.NumCPU()), 100*steadyCPU.Seconds()/sec/float64(runtime.NumCPU()), runtime.NumCPU()), "")
	tb.row("  leases lost / write errors", fmt.Sprintf("%d / %d", st1.losses-st0.losses, st1.writeErrors-st0.writeErrors), "0 / 0")
	tb.row("uniqueness", "", "")
	tb.row("  worker IDs held", fmt.Sprintf("%d distinct of %d pods", len(held), n), "")
	tb.row("  IDs issued", fmt.Sprintf("%d, 0 duplicated", issued), "")
	tb.row("close", ms(closing), "")
	t.Log("\n" + tb.String())
}

// kubeNode is one pod on the Kubernetes API: its own counted client.
type kubeNode struct {
	*node
	cli     *countingKube
	claimed verbCounts // the requests sent until serving
}

// open opens nd's sequencer, again after a failure as a restarted pod
// would, until ctx ends, and waits until it serves.
func (nd *kubeNode) open(ctx context.Context, ns, cluster, name string, def sequencer.Definition) {
	began := time.Now()
	cat, err := kube.NewCatalog(nd.cli, ns, cluster)
	if err != nil {
		nd.err = err
		return
	}
	cfg := sequencer.Config{
		Name:       name,
		Definition: def,
		Catalog:    cat,
		Sources: func(seq workerid.Sequence) (workerid.Source, error) {
			return cat.Source(seq, kube.Config{IDs: def.WorkerIDs(), Owner: owner(nd.i)})
		},
	}
	nd.node.openWith(ctx, began, func() sequencer.Config { return cfg }, func() { nd.claimed = nd.cli.load() })
}

// Verbs a countingKube counts.
const (
	vGet = iota
	vList
	vCreate
	vUpdate
	vDelete
	vWatch
	nVerbs
)

var verbNames = [nVerbs]string{"get", "list", "create", "update", "delete", "watch"}

type verbCounts [nVerbs]int64

func (a verbCounts) add(b verbCounts) verbCounts {
	for i := range a {
		a[i] += b[i]
	}
	return a
}

func (a verbCounts) sub(b verbCounts) verbCounts {
	for i := range a {
		a[i] -= b[i]
	}
	return a
}

func (a verbCounts) total() (n int64) {
	for _, v := range a {
		n += v
	}
	return n
}

func (a verbCounts) String() string {
	var parts []string
	for i, v := range a {
		parts = append(parts, fmt.Sprintf("%s %d", verbNames[i], v))
	}
	return strings.Join(parts, ", ")
}

// countingKube counts the requests of a client by verb.
type countingKube struct {
	kube.LeasesGetter
	n [nVerbs]atomic.Int64
}

func (c *countingKube) load() verbCounts {
	var v verbCounts
	for i := range v {
		v[i] = c.n[i].Load()
	}
	return v
}

func kubeSum(nodes []*kubeNode) verbCounts {
	var s verbCounts
	for _, nd := range nodes {
		s = s.add(nd.cli.load())
	}
	return s
}

func (c *countingKube) Leases(ns string) kube.Leases {
	return countingLeases{c.LeasesGetter.Leases(ns), c}
}

type countingLeases struct {
	kube.Leases
	c *countingKube
}

func (l countingLeases) Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordv1.Lease, error) {
	l.c.n[vGet].Add(1)
	return l.Leases.Get(ctx, name, opts)
}

func (l countingLeases) List(ctx context.Context, opts metav1.ListOptions) (*coordv1.LeaseList, error) {
	l.c.n[vList].Add(1)
	return l.Leases.List(ctx, opts)
}

func (l countingLeases) Create(ctx context.Context, obj *coordv1.Lease, opts metav1.CreateOptions) (*coordv1.Lease, error) {
	l.c.n[vCreate].Add(1)
	return l.Leases.Create(ctx, obj, opts)
}

func (l countingLeases) Update(ctx context.Context, obj *coordv1.Lease, opts metav1.UpdateOptions) (*coordv1.Lease, error) {
	l.c.n[vUpdate].Add(1)
	return l.Leases.Update(ctx, obj, opts)
}

func (l countingLeases) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	l.c.n[vDelete].Add(1)
	return l.Leases.Delete(ctx, name, opts)
}

func (l countingLeases) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	l.c.n[vWatch].Add(1)
	return l.Leases.Watch(ctx, opts)
}

// cpuKey is the API server's CPU time in apiCounters: its
// process_cpu_seconds_total.
const cpuKey = "cpu"

// apiCounters reads the API server's apiserver_request_total of Leases
// from its /metrics as the administrator, summed by verb (GET, LIST, PUT,
// POST, DELETE, WATCH), and its CPU seconds (cpuKey).
func apiCounters(t *testing.T, admin *rest.Config) map[string]float64 {
	t.Helper()
	hc, err := rest.HTTPClientFor(admin)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.CloseIdleConnections()
	resp, err := hc.Get(admin.Host + "/metrics")
	if err != nil {
		t.Fatalf("reading the API server's metrics: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("reading the API server's metrics: %s", resp.Status)
	}
	got := make(map[string]float64)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "process_cpu_seconds_total "); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				got[cpuKey] = f
			}
			continue
		}
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `resource="leases"`) {
			continue
		}
		labels, value, ok := strings.Cut(line[len("apiserver_request_total{"):], "} ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(labels, ",") {
			if verb, ok := strings.CutPrefix(l, `verb="`); ok {
				got[strings.TrimSuffix(verb, `"`)] += v
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the API server's metrics: %v", err)
	}
	return got
}
