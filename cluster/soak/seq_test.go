//go:build unix

package soak_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/etcd"
)

// In-process sequencers of the soak's sequence run next to the floed
// nodes, as applications embedding the sequencer package would: each with
// an etcd client of its own to every member, so that etcd's leader
// crashes and quorum losses reach them, and goroutines calling Next64
// throughout. Their IDs go into the floed nodes' ledger, and the checker
// treats each as a node: its IDs are unique, its holdings of a worker ID
// disjoint from every other holder's, it stops within the TTL of a quorum
// loss, and it serves again after the heal.

// The load of an in-process sequencer: seqCallers goroutines each taking
// seqBatch IDs every fetchEvery, together what a node's client asks.
const (
	seqCallers = 2
	seqBatch   = batch / seqCallers
)

// seqPolicies are the in-process sequencers' clock policies, in turn.
var seqPolicies = []floe.Policy{floe.Wait, floe.Borrow, floe.Fail}

// startSeqs opens k in-process sequencers of the default sequence of the
// soak's cluster on ec, as nodes of the checker named s1, s2..., and
// starts their callers, which record every ID in led. It returns the
// nodes and the function that stops the callers and closes the
// sequencers, which also runs when the test ends.
func startSeqs(t *testing.T, k int, ec *etcdtest.Cluster, base time.Time, led *floedproc.Ledger) ([]*node, func()) {
	t.Helper()
	var (
		nodes []*node
		seqs  []*sequencer.Sequencer
		halt  = make(chan struct{})
		wg    sync.WaitGroup
	)
	stop := sync.OnceFunc(func() {
		close(halt)
		wg.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, sq := range seqs {
			sq.Close(ctx)
		}
	})
	t.Cleanup(stop)
	for i := range k {
		name := fmt.Sprintf("s%d", i+1)
		policy := seqPolicies[i%len(seqPolicies)]
		sq := openSeq(t, name, policy, ec)
		seqs = append(seqs, sq)
		n := &node{name: name, policy: policy.String() + ", in process", base: base}
		nodes = append(nodes, n)
		var mu sync.Mutex // serializes the callers' records in n
		for range seqCallers {
			wg.Go(func() { n.call(sq, led, &mu, halt) })
		}
	}
	return nodes, stop
}

// openSeq opens the default sequence of the soak's cluster as floed
// defines it (id64 on the Twitter layout), with floed's timings.
func openSeq(t *testing.T, name string, policy floe.Policy, ec *etcdtest.Cluster) *sequencer.Sequencer {
	t.Helper()
	cli := ec.Client(t)
	catalog := etcd.NewCatalog(cli, "/floe/v1/soak/")
	def := sequencer.Definition{Format: sequencer.Format64, Layout: id64.Twitter}
	sources := func(seq workerid.Sequence) (workerid.Source, error) {
		src, err := catalog.Source(seq, etcd.Config{IDs: def.WorkerIDs(), TTL: ttl, Owner: name})
		if err != nil {
			return nil, err
		}
		return src, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sq, err := sequencer.Open(ctx, sequencer.Config{
		Name: "default", Definition: def, Catalog: catalog, Sources: sources,
		Policy: policy, Window: window,
	})
	if err != nil {
		t.Fatalf("%s: opening the default sequence: %v", name, err)
	}
	return sq
}

// call takes seqBatch IDs from sq every fetchEvery until stop closes,
// recording them in led and in n as a connection of the node's client
// does: each caller's run of IDs of one worker ID, between two failed
// calls, is a connection, within which the IDs must increase. A failed
// call ends the run, so that no run spans a time another holder had its
// worker ID.
func (n *node) call(sq *sequencer.Sequencer, led *floedproc.Ledger, mu *sync.Mutex, stop <-chan struct{}) {
	tick := time.NewTicker(fetchEvery)
	defer tick.Stop()
	var (
		rec  *connRecord
		last uint64
	)
	ids := make([]uint64, 0, seqBatch)
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		sent := n.now()
		ids = ids[:0]
		for range seqBatch {
			id, err := sq.Next64()
			if err != nil {
				break
			}
			ids = append(ids, uint64(id))
		}
		if len(ids) == 0 {
			rec = nil
			continue
		}
		recv := n.now()
		led.Add(n.name, ids...)
		mu.Lock()
		n.fetches = append(n.fetches, fetch{sent: sent, recv: recv})
		n.lastServed.Store(int64(recv))
		n.ids += len(ids)
		for _, id := range ids {
			tk, w := floedproc.Tick(id), floedproc.Node(id)
			if rec != nil && w != rec.worker {
				rec = nil // claimed another worker ID
			}
			if rec != nil && id <= last {
				n.nOrder++
				report(&n.orderReports, "%s: ID %d (tick %d, worker %d) after %d (tick %d) from one caller, at %v",
					n.name, id, tk, w, last, floedproc.Tick(last), recv)
			}
			last = id
			n.checkStamp(n.name, id, sent, 0)
			if rec == nil {
				rec = &connRecord{who: n.name, worker: w, lo: tk, hi: tk}
				n.conns = append(n.conns, rec)
			}
			rec.lo, rec.hi = min(rec.lo, tk), max(rec.hi, tk)
			rec.n++
		}
		if len(ids) < seqBatch {
			rec = nil // the last call failed
		}
		mu.Unlock()
	}
}
