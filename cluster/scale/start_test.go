package scale_test

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/sequencer"
)

// Defaults of the pods' configuration (see config), for the expected
// request rates.
const (
	leaseTTL = 10 * time.Second // etcd.Config.TTL's default
	window   = 2 * time.Second  // sequencer.Config.Window's default
)

// TestScaleStart starts -scale.n sequencers at once on one snowcast-1024
// sequence of an etcd catalog, each with its own etcd client and lease,
// and reports how soon they serve, what their claims cost etcd, and the
// steady-state etcd requests; it checks that no worker ID is held twice
// and no ID issued twice.
func TestScaleStart(t *testing.T) {
	o := setup(t)
	ec := etcdtest.StartTimers(t, 3, o.timers())
	ctx := etcdtest.Ctx(t, 30*time.Minute)
	def, err := sequencer.Snowcast(epoch, maxSequencers)
	if err != nil {
		t.Fatal(err)
	}
	const name = "scale-1024"

	began := time.Now()
	nodes := newNodes(t, ec.Endpoints(), o.n)
	clientsTook := time.Since(began)
	t.Cleanup(func() {
		// Before the clients close (cleanups run last first).
		each(nodes, func(nd *node) error {
			if nd.sq != nil {
				nd.sq.Close(context.Background())
			}
			return nil
		})
	})

	// Every pod starts at once.
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, nd := range nodes {
		wg.Go(func() {
			<-start
			nd.open(ctx, name, def)
		})
	}
	cpu0, t0 := cpuTime(), time.Now()
	close(start)
	progress(t, &wg, nodes, t0)
	allServing, startCPU := time.Since(t0), cpuTime()-cpu0
	var errs []error
	for _, nd := range nodes {
		if nd.err != nil {
			errs = append(errs, nd.err)
		}
	}
	report(t, "starting", errs)
	if len(errs) > 0 {
		t.FailNow()
	}

	obs := newClient(t, ec.Endpoints())
	checkWorkerIDs(t, ctx, obs, nodes, def)
	report(t, "issuing before the steady state", each(nodes, func(nd *node) error { return nd.issue(o.ids) }))

	// The steady state: every pod serving, idle.
	before, srv0, st0 := sum(nodes), serverCounters(t), seqStats(nodes)
	cpu1, t1 := cpuTime(), time.Now()
	select {
	case <-time.After(o.steady):
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	elapsed, steadyCPU := time.Since(t1), cpuTime()-cpu1
	steady, srv1, st1 := sum(nodes).sub(before), serverCounters(t), seqStats(nodes)

	report(t, "issuing after the steady state", each(nodes, func(nd *node) error { return nd.issue(o.ids) }))
	issued := checkIDs(t, nodes, def.Layout)

	cpu2, t2 := cpuTime(), time.Now()
	report(t, "closing", each(nodes, func(nd *node) error { return nd.sq.Close(ctx) }))
	closing, closeCPU := time.Since(t2), cpuTime()-cpu2
	if held := heldKeys(t, ctx, obs, nodes[0].sq.Generation(), name); len(held) != 0 {
		t.Errorf("after Close, %d owner keys are left, want 0", len(held))
	}

	// The report.
	lat := make([]time.Duration, 0, len(nodes))
	opened := make([]time.Duration, 0, len(nodes))
	attempts := make([]time.Duration, 0, len(nodes)) // claim transactions, as a count
	var claimed tally
	var failed []error
	retried := 0
	for _, nd := range nodes {
		failed = append(failed, nd.failed...)
		if len(nd.failed) > 0 {
			retried++
		}
		lat = append(lat, nd.latency)
		opened = append(opened, nd.openTook)
		attempts = append(attempts, time.Duration(nd.claimed.claims))
		claimed = claimed.add(nd.claimed)
	}
	n := float64(o.n)
	tb := newTable(fmt.Sprintf("%d sequencers on snowcast-1024, 3-member embedded etcd, %d CPUs, GOMAXPROCS %d, lease TTL %v, window %v",
		o.n, runtime.NumCPU(), runtime.GOMAXPROCS(0), leaseTTL, window))
	tb.row("start", "", "")
	tb.row("  clients made (before the start)", ms(clientsTook), "")
	tb.row("  all serving", ms(allServing), fmt.Sprintf("CPU %.2f s (%.0f%% of %d cores)", startCPU.Seconds(), 100*startCPU.Seconds()/allServing.Seconds()/float64(runtime.NumCPU()), runtime.NumCPU()))
	tb.row("  claim latency p50 / p99 / max", ms(percentile(lat, 50))+" / "+ms(percentile(lat, 99))+" / "+ms(percentile(lat, 100)), "Open's start to serving")
	tb.row("  Open returned p50 / p99 / max", ms(percentile(opened, 50))+" / "+ms(percentile(opened, 99))+" / "+ms(percentile(opened, 100)), "")
	tb.row("  claim transactions per pod mean / p99 / max",
		fmt.Sprintf("%.2f / %d / %d", float64(claimed.claims)/n, int64(percentile(attempts, 99)), int64(percentile(attempts, 100))),
		fmt.Sprintf("%d lost to another pod in all", claimed.lostClaims))
	tb.row("  Opens failed and tried again", fmt.Sprintf("%d, by %d pods", len(failed), retried), "")
	for _, k := range kinds(failed, 3) {
		tb.row("", "", k)
	}
	tb.row("  etcd requests per pod until serving", fmt.Sprintf("%.2f", float64(claimed.requests())/n),
		fmt.Sprintf("grants %d, claim txns %d, reserves %d, other txns %d, gets %d, revokes %d",
			claimed.grants, claimed.claims, claimed.reserves, claimed.otherTxns, claimed.gets, claimed.revokes))
	mean := func(d time.Duration, n int64) string { return ms(d / time.Duration(max(n, 1))) }
	tb.row("  etcd answer, mean: grant / read / claim txn / reserve", mean(claimed.grantWait, claimed.grants)+" / "+mean(claimed.otherWait, claimed.otherTxns)+" / "+
		mean(claimed.claimWait, claimed.claims)+" / "+mean(claimed.reserveWait, claimed.reserves),
		fmt.Sprintf("%s a pod in all, of %s p50 to serve", mean(claimed.grantWait+claimed.otherWait+claimed.claimWait+claimed.reserveWait, int64(o.n)), ms(percentile(lat, 50))))
	sec := elapsed.Seconds()
	tb.row(fmt.Sprintf("steady state over %.1f s", sec), "measured", "expected")
	tb.row("  reservation writes/s (client)", fmt.Sprintf("%.1f", float64(steady.reserves)/sec),
		fmt.Sprintf("%.1f at one per 7/16 window (%.1f at one per window)", n*16/7/window.Seconds(), n/window.Seconds()))
	tb.row("  reservation writes/s (sequencer Stats)", fmt.Sprintf("%.1f", float64(st1.writes-st0.writes)/sec), "")
	tb.row("  keepalives/s (client)", fmt.Sprintf("%.1f", float64(steady.keepalives)/sec),
		fmt.Sprintf("%.1f at one per TTL/3", n*3/leaseTTL.Seconds()))
	tb.row("  lease renewals/s (etcd leader)", fmt.Sprintf("%.1f", (srv1["etcd_debugging_lease_renewed_total"]-srv0["etcd_debugging_lease_renewed_total"])/sec), "")
	tb.row("  puts/s (etcd, per member)", fmt.Sprintf("%.1f", (srv1["etcd_mvcc_put_total"]-srv0["etcd_mvcc_put_total"])/3/sec), "")
	tb.row("  txns/s (etcd, per member)", fmt.Sprintf("%.1f", (srv1["etcd_mvcc_txn_total"]-srv0["etcd_mvcc_txn_total"])/3/sec), "")
	tb.row("  other requests/s (client)", fmt.Sprintf("%.1f", float64(steady.requests()-steady.reserves-steady.keepalives)/sec), "0")
	tb.row("  CPU", fmt.Sprintf("%.0f%% of %d cores", 100*steadyCPU.Seconds()/sec/float64(runtime.NumCPU()), runtime.NumCPU()), "")
	tb.row("  leases lost / write errors", fmt.Sprintf("%d / %d", st1.losses-st0.losses, st1.writeErrors-st0.writeErrors), "0 / 0")
	tb.row("uniqueness", "", "")
	tb.row("  worker IDs held", fmt.Sprintf("%d distinct of %d pods", o.n, o.n), "")
	tb.row("  IDs issued", fmt.Sprintf("%d, 0 duplicated", issued), "")
	tb.row("close", ms(closing), fmt.Sprintf("CPU %.2f s", closeCPU.Seconds()))
	t.Log("\n" + tb.String())
}

// progress waits for wg and logs every 15 s how many nodes serve and how
// many Opens failed.
func progress(t *testing.T, wg *sync.WaitGroup, nodes []*node, t0 time.Time) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		serving, failed := 0, int64(0)
		for _, nd := range nodes {
			if nd.serving.Load() {
				serving++
			}
			failed += nd.failures.Load()
		}
		t.Logf("after %v: %d of %d serving, %d Opens failed", time.Since(t0).Round(time.Second), serving, len(nodes), failed)
	}
}

// kinds returns the most frequent of errs' texts, digits masked, with
// their counts.
func kinds(errs []error, most int) []string {
	digits := regexp.MustCompile(`[0-9]+`)
	n := make(map[string]int)
	for _, err := range errs {
		n[digits.ReplaceAllString(err.Error(), "N")]++
	}
	texts := slices.Collect(maps.Keys(n))
	slices.SortFunc(texts, func(a, b string) int { return cmp.Or(n[b]-n[a], strings.Compare(a, b)) })
	var out []string
	for _, text := range texts[:min(most, len(texts))] {
		out = append(out, fmt.Sprintf("%d× %s", n[text], text))
	}
	return out
}

// sum adds the requests of every node's client.
func sum(nodes []*node) tally {
	var s tally
	for _, nd := range nodes {
		s = s.add(nd.counts.load())
	}
	return s
}

// stats are sequencer counters summed over the nodes.
type stats struct{ writes, writeErrors, losses, claims uint64 }

func seqStats(nodes []*node) stats {
	var s stats
	for _, nd := range nodes {
		st := nd.sq.Stats()
		s.writes += st.Writes
		s.writeErrors += st.WriteErrors
		s.losses += st.Losses
		s.claims += st.Claims
	}
	return s
}

// heldKeys returns the owner keys of the sequence's generation gen: worker
// ID to the owner named in the key's value, as workerid/etcd lays them out
// (<prefix>seq/<name>/<gen>/workers/<id>).
func heldKeys(t *testing.T, ctx context.Context, cli *clientv3.Client, gen int64, name string) map[int]string {
	t.Helper()
	prefix := fmt.Sprintf("%sseq/%s/%d/workers/", catalogPrefix, name, gen)
	resp, err := cli.Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		t.Fatalf("reading the owner keys: %v", err)
	}
	held := make(map[int]string)
	for _, kv := range resp.Kvs {
		id, err := strconv.Atoi(strings.TrimPrefix(string(kv.Key), prefix))
		if err != nil {
			t.Fatalf("owner key %q: %v", kv.Key, err)
		}
		held[id] = string(kv.Value)
	}
	return held
}

// checkWorkerIDs checks that every node holds a worker ID of def, no two
// the same, and that etcd's owner keys say the same.
func checkWorkerIDs(t *testing.T, ctx context.Context, cli *clientv3.Client, nodes []*node, def sequencer.Definition) {
	t.Helper()
	holder := make(map[int]int) // worker ID to node
	for _, nd := range nodes {
		id := nd.sq.Stats().WorkerID
		if id < 0 || id >= def.WorkerIDs() {
			t.Errorf("pod %d holds worker ID %d, want 0..%d", nd.i, id, def.WorkerIDs()-1)
			continue
		}
		if other, ok := holder[id]; ok {
			t.Errorf("pods %d and %d both hold worker ID %d", other, nd.i, id)
			continue
		}
		holder[id] = nd.i
	}
	held := heldKeys(t, ctx, cli, nodes[0].sq.Generation(), nodes[0].sq.Name())
	if len(held) != len(nodes) {
		t.Errorf("etcd has %d owner keys, want %d", len(held), len(nodes))
	}
	for id, i := range holder {
		if got, want := held[id], owner(i); got != want {
			t.Errorf("the owner key of worker ID %d names %q, want %q", id, got, want)
		}
	}
}

// checkIDs checks that no ID was issued twice and that each carries its
// node's worker ID, and returns how many were issued.
func checkIDs(t *testing.T, nodes []*node, l id64.Layout) int {
	t.Helper()
	var all []id64.ID
	for _, nd := range nodes {
		w := uint64(nd.sq.Stats().WorkerID)
		bad := 0
		for _, id := range nd.ids {
			if l.Parts(id).Node != w {
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("pod %d: %d IDs not of its worker ID %d", nd.i, bad, w)
		}
		all = append(all, nd.ids...)
	}
	slices.Sort(all)
	dups := 0
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			dups++
		}
	}
	if dups > 0 {
		t.Errorf("%d of %d IDs duplicated", dups, len(all))
	}
	return len(all)
}
