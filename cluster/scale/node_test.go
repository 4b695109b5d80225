package scale_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/etcd"
)

// epoch is the snowcast sequences' epoch.
var epoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// catalogPrefix is where the scale tests keep their catalog.
const catalogPrefix = "/floe-scale/"

// node is one pod: its own etcd client (counted), catalog and sequencer.
type node struct {
	i      int
	cli    *clientv3.Client
	counts counts

	sq       *sequencer.Sequencer
	err      error         // why the wait for serving failed, or the last Open
	failed   []error       // the Opens that failed and were tried again
	failures atomic.Int64  // len(failed), for the progress report
	serving  atomic.Bool   // open reached serving
	openTook time.Duration // Open's return
	latency  time.Duration // Open's start to serving
	claimed  tally         // the requests sent until serving
	ids      []id64.ID     // what it issued
}

// newClient returns a client of endpoints, closed when the test ends.
// Call it after etcdtest.Start, so that it closes before the members
// stop.
func newClient(t *testing.T, endpoints []string) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		t.Fatalf("etcd client: %v", err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// newNodes returns n nodes, each with a counted client of endpoints.
func newNodes(t *testing.T, endpoints []string, n int) []*node {
	t.Helper()
	nodes := make([]*node, n)
	for i := range nodes {
		nd := &node{i: i, cli: newClient(t, endpoints)}
		count(nd.cli, &nd.counts)
		nodes[i] = nd
	}
	return nodes
}

// owner is the name node i gives its host in the owner keys.
func owner(i int) string { return fmt.Sprintf("pod-%d", i) }

// config returns the sequencer configuration of a pod named ownerName:
// sequence name of definition def in the catalog over cli, with the
// worker-ID source's defaults (TTL 10 s) and the sequencer's (a 2 s
// window).
func config(cli *clientv3.Client, name string, def sequencer.Definition, ownerName string) sequencer.Config {
	cat := etcd.NewCatalog(cli, catalogPrefix)
	return sequencer.Config{
		Name:       name,
		Definition: def,
		Catalog:    cat,
		Sources: func(seq workerid.Sequence) (workerid.Source, error) {
			return cat.Source(seq, etcd.Config{IDs: def.WorkerIDs(), Owner: ownerName})
		},
	}
}

// A pod whose Open failed opens again after a back-off that starts at
// reopen and doubles up to maxReopen, with up to half of it added at
// random, as a restarted pod would: a fixed short wait made the failed
// claims of an overloaded etcd feed themselves.
const (
	reopen    = 200 * time.Millisecond
	maxReopen = 10 * time.Second
)

// open opens nd's sequencer, again after a failure as a restarted pod
// would, until ctx ends, and waits until it serves.
func (nd *node) open(ctx context.Context, name string, def sequencer.Definition) {
	nd.openWith(ctx, time.Now(), func() sequencer.Config { return config(nd.cli, name, def, owner(nd.i)) },
		func() { nd.claimed = nd.counts.load() })
}

// openWith opens a sequencer of cfg's configuration, a new one for each
// try, until one opens or ctx ends, backing off between tries, and waits
// until it serves. Then it times the claim from began, records its
// requests with claimed and marks nd serving.
func (nd *node) openWith(ctx context.Context, began time.Time, cfg func() sequencer.Config, claimed func()) {
	var sq *sequencer.Sequencer
	backoff := reopen
	for {
		var err error
		sq, err = sequencer.Open(ctx, cfg())
		if err == nil {
			break
		}
		nd.failures.Add(1)
		nd.failed = append(nd.failed, err)
		wait := backoff + rand.N(backoff/2)
		backoff = min(2*backoff, maxReopen)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			nd.err = fmt.Errorf("pod %d: Open: %w", nd.i, err)
			return
		}
	}
	nd.openTook = time.Since(began)
	nd.sq = sq
	if _, err := sq.Wait(ctx, sequencer.Serving); err != nil {
		nd.err = fmt.Errorf("pod %d: waiting to serve: %w", nd.i, err)
		return
	}
	nd.latency = time.Since(began)
	claimed()
	nd.serving.Store(true)
}

// issue takes n IDs from nd's sequencer.
func (nd *node) issue(n int) error {
	ids := make([]id64.ID, n)
	for got := 0; got < n; {
		k, err := nd.sq.NextN64(ids[got:])
		if err != nil {
			return fmt.Errorf("pod %d: NextN64 after %d IDs: %w", nd.i, got, err)
		}
		got += k
	}
	nd.ids = append(nd.ids, ids...)
	return nil
}

// each runs f for every node at once and returns the errors.
func each(nodes []*node, f func(*node) error) []error {
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, nd := range nodes {
		wg.Go(func() { errs[i] = f(nd) })
	}
	wg.Wait()
	var out []error
	for _, err := range errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// report fails t with the first few of errs and their number.
func report(t *testing.T, what string, errs []error) {
	t.Helper()
	for i, err := range errs {
		if i == 5 {
			t.Errorf("%s: %d errors in all", what, len(errs))
			return
		}
		t.Errorf("%s: %v", what, err)
	}
}
