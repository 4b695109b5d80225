package scale_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/etcd"
)

// TestScaleFullClaim times the claim of a worker ID of a snowcast-8192
// sequence in an empty namespace, with 8,191 of the 8,192 IDs held, and
// with all of them held (the claim a standby repeats while it waits),
// through the worker-ID source alone and through sequencer.Open.
//
// The holders are not sequencers: the test writes their owner keys, on
// one etcd lease, and a reservation for every ID, as workerid/etcd lays
// them out (<prefix>seq/<name>/<gen>/workers/<id> and .../reserved/<id>),
// so that a claim reads what it would read in a full fleet.
func TestScaleFullClaim(t *testing.T) {
	o := setup(t)
	ec := etcdtest.StartTimers(t, 3, o.timers())
	ctx := etcdtest.Ctx(t, 10*time.Minute)
	const nodes = 8192
	def, err := sequencer.Snowcast(epoch, nodes)
	if err != nil {
		t.Fatal(err)
	}
	const name = "scale-8192"
	var c counts
	cli := newClient(t, ec.Endpoints())
	count(cli, &c)
	cat := etcd.NewCatalog(cli, catalogPrefix)
	spec, err := def.Spec()
	if err != nil {
		t.Fatal(err)
	}
	seq, err := cat.Create(ctx, name, spec)
	if err != nil {
		t.Fatalf("creating %s: %v", name, err)
	}
	src, err := cat.Source(seq, etcd.Config{IDs: def.WorkerIDs(), Owner: "probe"})
	if err != nil {
		t.Fatal(err)
	}

	tb := newTable(fmt.Sprintf("one claim of a snowcast-8192 worker ID, %d tries each, 3-member embedded etcd", o.tries))
	tb.row("held", "claim", "p50", "max", "etcd requests", "keys read")
	measure := func(held string) {
		t.Helper()
		for _, k := range []struct {
			name  string
			claim func() (time.Duration, error)
		}{
			{"Source.Claim", func() (time.Duration, error) { return claimOnce(ctx, src) }},
			{"sequencer.Open", func() (time.Duration, error) { return openOnce(ctx, cli, name, def) }},
		} {
			var took []time.Duration
			before := c.load()
			for range o.tries {
				d, err := k.claim()
				if err != nil {
					t.Fatalf("%s with %s held: %v", k.name, held, err)
				}
				took = append(took, d)
			}
			// The requests of the claims, not of the releases.
			spent := c.load().sub(before)
			reqs := spent.requests() - spent.releases - spent.revokes - spent.keepalives
			tb.row(held, k.name, ms(percentile(took, 50)), ms(percentile(took, 100)),
				fmt.Sprintf("%.1f", float64(reqs)/float64(o.tries)),
				fmt.Sprintf("%.0f", float64(spent.kvsRead)/float64(o.tries)))
		}
	}
	measure("0")

	// Hold every worker ID but one.
	const free = nodes / 2
	hold := fill(t, ctx, cli, seq, nodes, func(id int) bool { return id != free })
	measure("8191")

	// Hold the last one too: a claim finds none free.
	prefix := idPrefix(seq)
	if _, err := cli.Put(ctx, prefix+"workers/"+strconv.Itoa(free), "pod-"+strconv.Itoa(free), clientv3.WithLease(hold)); err != nil {
		t.Fatal(err)
	}
	var took []time.Duration
	before := c.load()
	for range o.tries {
		began := time.Now()
		_, err := src.Claim(ctx)
		took = append(took, time.Since(began))
		if !errors.Is(err, workerid.ErrExhausted) {
			t.Fatalf("Source.Claim with all %d held = %v, want an error wrapping workerid.ErrExhausted", nodes, err)
		}
	}
	spent := c.load().sub(before)
	tb.row("8192", "Source.Claim (exhausted)", ms(percentile(took, 50)), ms(percentile(took, 100)),
		fmt.Sprintf("%.1f", float64(spent.requests())/float64(o.tries)),
		fmt.Sprintf("%.0f", float64(spent.kvsRead)/float64(o.tries)))
	t.Log("\n" + tb.String())
}

// idPrefix is where the worker IDs of seq live in the catalog.
func idPrefix(seq workerid.Sequence) string {
	return fmt.Sprintf("%sseq/%s/%d/", catalogPrefix, seq.Name, seq.Gen)
}

// fill writes a reservation for each of seq's n worker IDs, a minute in
// the past, and an owner key on one etcd lease for each ID held says is
// held. It returns the lease, revoked when the test ends.
func fill(t *testing.T, ctx context.Context, cli *clientv3.Client, seq workerid.Sequence, n int, held func(int) bool) clientv3.LeaseID {
	t.Helper()
	def, err := sequencer.ParseSpec(seq.Spec)
	if err != nil {
		t.Fatal(err)
	}
	g, err := cli.Grant(ctx, 3600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Revoke(context.Background(), g.ID) })
	r := uint64(time.Since(def.Layout.Epoch).Milliseconds()) - 60_000
	prefix := idPrefix(seq)
	const batch = 64 // two puts per ID; etcd takes at most 128 operations a transaction
	for from := 0; from < n; from += batch {
		var ops []clientv3.Op
		for id := from; id < min(from+batch, n); id++ {
			pod := "pod-" + strconv.Itoa(id)
			ops = append(ops, clientv3.OpPut(prefix+"reserved/"+strconv.Itoa(id), fmt.Sprintf(`{"r":%d,"last":0,"owner":%q}`, r, pod)))
			if held(id) {
				ops = append(ops, clientv3.OpPut(prefix+"workers/"+strconv.Itoa(id), pod, clientv3.WithLease(g.ID)))
			}
		}
		if _, err := cli.Txn(ctx).Then(ops...).Commit(); err != nil {
			t.Fatalf("writing the holders: %v", err)
		}
	}
	return g.ID
}

// claimOnce times one Claim of src, then releases the worker ID.
func claimOnce(ctx context.Context, src workerid.Source) (time.Duration, error) {
	began := time.Now()
	l, err := src.Claim(ctx)
	took := time.Since(began)
	if err != nil {
		return 0, err
	}
	return took, l.Release(ctx, 0)
}

// openOnce times one Open of a sequencer of the sequence until it serves,
// then closes it.
func openOnce(ctx context.Context, cli *clientv3.Client, name string, def sequencer.Definition) (time.Duration, error) {
	began := time.Now()
	sq, err := sequencer.Open(ctx, config(cli, name, def, "probe"))
	if err != nil {
		return 0, err
	}
	_, err = sq.Wait(ctx, sequencer.Serving)
	took := time.Since(began)
	if cerr := sq.Close(ctx); err == nil {
		err = cerr
	}
	return took, err
}
