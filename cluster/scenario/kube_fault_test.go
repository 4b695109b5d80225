//go:build unix

package scenario_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/faultproxy"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/sequencer"
)

// kubeStopSlop is how long after its lease's local deadline a node's last
// reply may still arrive: one in flight at the deadline, and its
// recording by the feed, on a loaded host under the race detector.
const kubeStopSlop = seqSlop

// kubeWorld is two floed nodes and a sequencer application, each on its
// own client of one API server, serving throughout a fault.
type kubeWorld struct {
	k     *kubeEnv
	procs []*floedproc.Proc
	logs  map[string]*batchLog // by who: "a", "b" and "s", the application
	who   []string
	sled  *floedproc.Ledger // the application's
	led   *floedproc.Ledger // the nodes'
}

// startKubeWorld starts nodes a and b and the application s, all reaching
// the API server directly, and waits until each serves.
func startKubeWorld(t *testing.T, k *kubeEnv) *kubeWorld {
	t.Helper()
	w := &kubeWorld{k: k, logs: make(map[string]*batchLog), led: floedproc.NewLedger(), sled: floedproc.NewLedger()}
	kc := k.kubeconfig(t)
	for _, name := range []string{"a", "b"} {
		p := floedproc.Start(t, bin, name, k.kubeNode(kc, name)...)
		mustReady(t, p, 10*time.Second)
		w.procs = append(w.procs, p)
		w.logs[name] = &startFeed(t, w.led, p, name, feedOpts{}).batchLog
		w.who = append(w.who, name)
	}
	k.define(t, seqName, seqSpec(t, sequencer.Definition{}), seqIDs)
	s, err := k.openKube(t, k.rc, "s", sequencer.Definition{})
	if err != nil {
		t.Fatal(err)
	}
	s.serving(t, 10*time.Second)
	w.logs["s"] = &startSeqFeed(t, w.sled, s, 2).batchLog
	w.who = append(w.who, "s")
	time.Sleep(time.Second)
	return w
}

// stopped checks that each one served nothing later than TTL +
// kubeStopSlop after down, when none could write any more. Call it
// before the fault ends.
func (w *kubeWorld) stopped(t *testing.T, what string, down time.Time) {
	t.Helper()
	for _, who := range w.who {
		// When the last request answered was sent: load may delay a
		// reply, not when it was issued.
		last, _ := w.logs[who].lastSent(who, time.Time{}, time.Time{})
		t.Logf("%s: %s served a request sent last %v after it", what, who, last.Sub(down).Round(time.Millisecond))
		if d := last.Sub(down); d > ttl+kubeStopSlop {
			t.Errorf("%s: %s served a request sent %v after it, past its lease's deadline (the TTL %v)", what, who, d, ttl)
		}
	}
}

// served checks that each one served again within bound of up, when the
// API server answered again (bound's mark).
func (w *kubeWorld) served(t *testing.T, what string, up time.Time, bound loadBound) {
	t.Helper()
	for _, who := range w.who {
		b, ok := w.logs[who].waitServed(who, up, 20*time.Second)
		if !ok {
			t.Errorf("%s: %s issued nothing within 20 s", what, who)
			continue
		}
		d := b.at.Sub(up)
		t.Logf("%s: %s served again %v after it", what, who, d.Round(time.Millisecond))
		if ok, want := bound.check(d); !ok {
			t.Errorf("%s: %s served again %v after it, want within %s", what, who, d, want)
		}
	}
}

// check halts the feeds and checks every ID: no duplicate, none stamped
// before its request, and on each worker ID, the IDs issued after up
// above those issued before down.
func (w *kubeWorld) check(t *testing.T, down, up time.Time) {
	t.Helper()
	var before, after, all []batch
	for _, who := range w.who {
		before = append(before, w.logs[who].received(who, time.Time{}, down)...)
		after = append(after, w.logs[who].received(who, up, time.Time{})...)
		all = append(all, w.logs[who].all(who)...)
	}
	his := make(map[int]uint64)
	for _, b := range before {
		for _, v := range b.ids {
			his[floedproc.Node(v)] = max(his[floedproc.Node(v)], floedproc.Tick(v))
		}
	}
	for _, b := range after {
		for _, v := range b.ids {
			if hi, ok := his[floedproc.Node(v)]; ok && floedproc.Tick(v) <= hi {
				t.Fatalf("%s issued tick %d of worker ID %d after the fault, not above tick %d issued before it", b.who, floedproc.Tick(v), floedproc.Node(v), hi)
			}
		}
	}
	checkStamps(t, all)
	checkLedger(t, w.led)
	checkLedger(t, w.sled)
}

// The API server stops, with SIGTERM as in a rolling restart or killed,
// under load, and starts again: every node and the application stop
// issuing by their leases' deadline, within the TTL of the stop, and
// serve again within healBound of the API server being ready, above all
// they issued before.
func TestKube_APIServerRestart(t *testing.T) {
	for _, c := range []struct {
		name string
		stop func(k *kubeEnv)
	}{
		{"SIGTERM", func(k *kubeEnv) { k.api.Stop() }},
		{"SIGKILL", func(k *kubeEnv) { k.api.Kill() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := startKube(t, "apirestart")
			w := startKubeWorld(t, k)
			began := time.Now()
			c.stop(k)
			down := time.Now()
			// kube-apiserver drains for a while on SIGTERM; kubetest kills
			// it after 10 s. Its writes may apply until it exits.
			t.Logf("the API server took %v to exit", down.Sub(began).Round(time.Millisecond))
			time.Sleep(ttl + time.Second)
			w.stopped(t, "the API server's exit", down)
			k.api.Start()
			up := time.Now()
			w.served(t, "the API server ready again", up, boundFrom(schedtest.Now(), healBound, healWaits))
			time.Sleep(500 * time.Millisecond)
			w.check(t, began, up)
		})
	}
}

// The etcd behind the API server stops and starts again: no write of the
// API server succeeds, every node and the application stop issuing within
// the TTL, and they serve again once etcd is back.
func TestKube_EtcdRestart(t *testing.T) {
	k := startKube(t, "etcdrestart")
	w := startKubeWorld(t, k)
	m := k.api.Etcd.Members()[0]
	down := time.Now()
	m.Stop()
	t.Logf("etcd took %v to stop", time.Since(down).Round(time.Millisecond))
	time.Sleep(ttl + time.Second)
	w.stopped(t, "etcd's stop", down)
	restarted := time.Now()
	m.Restart(t)
	// The API server's etcd client dials again after gRPC's back-off, out
	// of floe's hands: the bound runs from when it answers again.
	up, upMark := k.answering(t, 30*time.Second)
	t.Logf("the API server answered %v after etcd's restart began", up.Sub(restarted).Round(time.Millisecond))
	w.served(t, "the API server answering again", up, boundFrom(upMark, healBound, healWaits))
	time.Sleep(500 * time.Millisecond)
	w.check(t, down, up)
}

// answering waits up to d until the API server answers a read of the
// namespace's Leases, and returns when it did, and a mark of then.
func (k *kubeEnv) answering(t *testing.T, d time.Duration) (time.Time, schedtest.Mark) {
	t.Helper()
	if !floedproc.WaitFor(d, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, err := k.leases.List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil
	}) {
		t.Fatalf("the API server did not answer within %v", d)
	}
	m := schedtest.Now()
	return m.At, m
}

// One node stops hearing from the API server, which it reaches through a
// fault proxy of its own: a black hole (every byte dropped both ways,
// nothing reset) or a freeze (everything held back, and delivered once it
// ends: its stale renewals then meet another's claim). The node stops
// issuing within the TTL and goes not ready within TTL + 1 s; a standby
// takes its worker ID once it saw the Lease unchanged for the lease
// duration, above its reservation; the application, on the API server
// directly, serves throughout; and once the network heals the node claims
// again, another ID, within healBound.
func TestKube_Partition(t *testing.T) {
	t.Run("black hole", func(t *testing.T) { kubePartition(t, (*faultproxy.Proxy).Blackhole) })
	t.Run("frozen", func(t *testing.T) { kubePartition(t, (*faultproxy.Proxy).Freeze) })
}

func kubePartition(t *testing.T, fault func(p *faultproxy.Proxy, on bool)) {
	const id, spare = 3, 7
	k := startKube(t, "partition")
	ds := k.defineDefault(t)
	ds.holdAllBut(t, id)
	viaProxy, proxy := k.proxied(t)

	led := floedproc.NewLedger()
	a := floedproc.Start(t, bin, "a", k.kubeNode(viaProxy, "a")...)
	mustReady(t, a, 10*time.Second)
	b := floedproc.Start(t, bin, "b", k.kubeNode(k.kubeconfig(t), "b")...)
	fa := startFeed(t, led, a, "a", feedOpts{})
	fb := startFeed(t, led, b, "b", feedOpts{})
	k.define(t, seqName, seqSpec(t, sequencer.Definition{}), seqIDs)
	s, err := k.openKube(t, k.rc, "s", sequencer.Definition{})
	if err != nil {
		t.Fatal(err)
	}
	s.serving(t, 10*time.Second)
	fs := startSeqFeed(t, floedproc.NewLedger(), s, 2)
	log := ds.watchLease(t, id)
	time.Sleep(time.Second)

	fault(proxy, true)
	cutMark := schedtest.Now()
	cut := cutMark.At
	notReady, first, lastA := cutOff(t, a, fa, fb, "the API server", cut)
	t.Logf("cut off from the API server, a was last seen ready %v after the cut and served a request sent last %v after it; b served worker ID %d %v after the cut",
		notReady.Round(time.Millisecond), lastA.Sub(cut).Round(time.Millisecond), id, first.at.Sub(cut).Round(time.Millisecond))
	if d := lastA.Sub(cut); d > ttl+kubeStopSlop {
		t.Errorf("a served a request sent %v after it was cut off, longer than the TTL %v", d, ttl)
	}
	if ok, want := boundFrom(cutMark, ttl+time.Second, ttl).check(first.at.Sub(cut)); !ok {
		t.Errorf("b served worker ID %d %v after a was cut off, want within TTL + 1 s = %s", id, first.at.Sub(cut), want)
	}
	checkTakeover(t, log, cut.Add(-ttl))
	bFloor := claimedFloor(t, b)
	time.Sleep(time.Second)

	proxy.Heal()
	healed := time.Now()
	back := boundFrom(schedtest.Now(), healBound, healWaits)
	ds.free(t, spare)
	again, ok := fa.waitServed("a", healed, 15*time.Second)
	if !ok {
		t.Fatalf("a issued nothing within 15 s of the heal, with worker ID %d free; /readyz: %v", spare, a.Ready())
	}
	t.Logf("a served again %v after the heal", again.at.Sub(healed).Round(time.Millisecond))
	if ok, want := back.check(again.at.Sub(healed)); !ok {
		t.Errorf("a served again %v after the heal, want within %s", again.at.Sub(healed), want)
	}
	time.Sleep(300 * time.Millisecond)
	fa.halt()
	fb.halt()
	fs.halt()

	gap, at := quietest(&fs.batchLog, "s", cut, healed.Add(300*time.Millisecond))
	t.Logf("the application's longest gap: %v, ending %v after the cut", gap.Round(time.Millisecond), at.Sub(cut).Round(time.Millisecond))
	if ok, want := boundFrom(cutMark, hungBound, ttl).check(gap); !ok {
		t.Errorf("the application, not cut off, served nothing for %v, want at most TTL + 1 s = %s", gap, want)
	}
	if _, hi, n := tickRange(fa.received("a", time.Time{}, healed)); n == 0 || hi > bFloor {
		t.Errorf("a issued %d IDs before the heal, up to tick %d; want some, at most b's floor %d", n, hi, bFloor)
	}
	onlyWorker(t, "a after the heal", fa.received("a", healed, time.Time{}), spare)
	if lo, _, _ := tickRange(fb.all("b")); lo <= bFloor {
		t.Errorf("b issued tick %d, not above its floor %d", lo, bFloor)
	}
	checkLedger(t, led)
	checkLedger(t, fs.led)
}
