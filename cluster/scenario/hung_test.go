//go:build unix

package scenario_test

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/faultproxy"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/etcd"
)

// The bound of a hung member: every node and application keeps serving, or
// is back within it, while one member of three stops answering with
// quorum intact, and after it answers again.
const hungBound = ttl + time.Second

// How long each fault of a member lasts, and how long a scenario watches
// after it ends: longer than hungBound, so that a node still out then
// counts.
const (
	hungFor   = 10 * time.Second
	hungAfter = hungBound + time.Second
)

// memberFault is a fault of one etcd member m: on c, the client proxy the
// nodes and applications reach it through, and on its peer proxies.
type memberFault struct {
	name string
	set  func(t *testing.T, ec *etcdtest.Cluster, m *etcdtest.Member, c *faultproxy.Proxy, on bool)
}

// memberFaults are the ways a member stops answering without closing its
// connections, on its client proxy: a black hole (bytes lost; connections
// that lost some close when it ends, as TCP's do once their
// retransmissions ran out), one way each (requests lost, or applied with
// their replies lost), and a freeze (nothing lost, everything delivered
// when it ends, as to a process stopped with SIGSTOP and continued).
// Toward the other members each isolates it both ways (Isolate): a loss
// of packets one way stops a TCP connection both ways (its data one way,
// the acknowledgments the other), and a frozen process hears nothing.
var memberFaults = []memberFault{
	{"black hole", func(t *testing.T, ec *etcdtest.Cluster, m *etcdtest.Member, c *faultproxy.Proxy, on bool) {
		c.Blackhole(on)
		ec.Isolate(t, m, on)
	}},
	{"black hole to member", func(t *testing.T, ec *etcdtest.Cluster, m *etcdtest.Member, c *faultproxy.Proxy, on bool) {
		c.Cut(faultproxy.ToTarget, on)
		ec.Isolate(t, m, on)
	}},
	{"black hole from member", func(t *testing.T, ec *etcdtest.Cluster, m *etcdtest.Member, c *faultproxy.Proxy, on bool) {
		c.Cut(faultproxy.ToClient, on)
		ec.Isolate(t, m, on)
	}},
	{"frozen", func(t *testing.T, ec *etcdtest.Cluster, m *etcdtest.Member, c *faultproxy.Proxy, on bool) {
		c.Freeze(on)
		ec.Isolate(t, m, on)
	}},
}

// One etcd member of three stops answering while the other two keep a
// quorum, in each way of memberFaults in turn, each on the leader of the
// moment: two floed nodes and an application on the sequencer package,
// every one reaching etcd through the fault proxies, keep serving
// throughout, or are back within TTL + 1 s, and issue no ID twice.
func TestScenario_EtcdHungMember(t *testing.T) {
	ec := etcdtest.StartPeerProxies(t, 3)
	proxies, via := proxyAll(t, ec)
	led := floedproc.NewLedger()
	names := []string{"a", "b"}
	logs := make(map[string]*batchLog)
	for _, name := range names {
		p := floedproc.Start(t, bin, name, etcdNode(via, "hung", name)...)
		mustReady(t, p, 5*time.Second)
		logs[name] = &startFeed(t, led, p, name, feedOpts{}).batchLog
	}
	// The application's IDs are of a sequence of their own: a ledger of
	// their own.
	defineSeq(t, ec, "hung")
	sq := openDialed(t, via, "hung", "s")
	sq.serving(t, 5*time.Second)
	logs[sq.who] = &startSeqFeed(t, floedproc.NewLedger(), sq, 2).batchLog
	sled := logs[sq.who].led
	time.Sleep(time.Second)

	for _, f := range memberFaults {
		m := ec.WaitLeader(t)
		f.set(t, ec, m, proxies[memberIndex(ec, m)], true)
		began := time.Now()
		gapBound := boundFrom(schedtest.Now(), hungBound, ttl)
		time.Sleep(hungFor)
		f.set(t, ec, m, proxies[memberIndex(ec, m)], false)
		healed := time.Now()
		boundFrom(schedtest.Now(), hungAfter, ttl).sleep(0)
		for _, who := range append(names, sq.who) {
			gap, at := quietest(logs[who], who, began, time.Now())
			t.Logf("longest gap | %s | %s | %v | ending %v after the fault began (healed after %v)",
				f.name, who, gap.Round(time.Millisecond), at.Sub(began).Round(time.Millisecond), healed.Sub(began).Round(time.Millisecond))
			if ok, want := gapBound.check(gap); !ok {
				t.Errorf("%s: %s served nothing for %v with member %s %s, want at most TTL + 1 s = %s", f.name, who, gap.Round(time.Millisecond), m.Name, f.name, want)
			}
		}
	}
	checkLedger(t, led)
	checkLedger(t, sled)
}

// quietest returns the longest time from from to to in which who received
// nothing in l (from from to its first reply, between two replies, from
// its last reply to to), and when it ended.
func quietest(l *batchLog, who string, from, to time.Time) (time.Duration, time.Time) {
	var gap time.Duration
	var at time.Time
	last := from
	for _, b := range l.received(who, from, to) {
		if d := b.at.Sub(last); d > gap {
			gap, at = d, b.at
		}
		last = b.at
	}
	if d := to.Sub(last); d > gap {
		gap, at = d, to
	}
	return gap, at
}

// memberIndex returns the index of m in ec's members.
func memberIndex(ec *etcdtest.Cluster, m *etcdtest.Member) int {
	for i, mm := range ec.Members() {
		if mm == m {
			return i
		}
	}
	panic("etcdtest: member " + m.Name + " not in its cluster")
}

// defineSeq defines seqName in cluster on ec.
func defineSeq(t *testing.T, ec *etcdtest.Cluster, cluster string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := etcd.NewCatalog(ec.Client(t), "/floe/v1/"+cluster+"/").Create(ctx, seqName, seqSpec(t, sequencer.Definition{})); err != nil {
		t.Fatalf("defining sequence %q: %v", seqName, err)
	}
}

// openDialed opens a sequencer of seqName (see defineSeq) in cluster as
// the application owner, with an etcd client of its own that etcd.Dial
// makes on the endpoints eps, as an application builds it.
func openDialed(t *testing.T, eps []string, cluster, owner string) *seqProc {
	t.Helper()
	prefix := "/floe/v1/" + cluster + "/"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cli, err := etcd.Dial(ctx, clientv3.Config{Endpoints: eps, Logger: zap.NewNop()})
	if err != nil {
		t.Fatalf("%s: %v", owner, err)
	}
	t.Cleanup(func() { cli.Close() })
	cat := etcd.NewCatalog(cli, prefix)
	sources := func(seq workerid.Sequence) (workerid.Source, error) {
		src, err := cat.Source(seq, etcd.Config{IDs: seqIDs, TTL: ttl, Owner: owner})
		if err != nil {
			return nil, err
		}
		return src, nil
	}
	p, err := openOn(t, owner, sequencer.Definition{}, cat, sources, func() { cli.Close() })
	if err != nil {
		t.Fatal(err)
	}
	return p
}
