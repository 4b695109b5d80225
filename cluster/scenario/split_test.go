//go:build unix

package scenario_test

import (
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/schedtest"
)

// splitFor is how long each split of TestScenario_EtcdSplit lasts.
const splitFor = 12 * time.Second

// A network split of a three-member etcd cluster, one member on one side
// (the leader, then a follower) and two on the other, with a floed node and
// an application on the sequencer package on each side, each configured
// with all three members but reaching only those of its side. The split
// is shorter than TCP's retransmissions: every connection across it holds
// what it carries and delivers it once healed. The majority side keeps
// serving, or is back within TTL + 1 s; the minority side goes not ready
// within TTL + request timeout and issues nothing after; once healed,
// every one serves again within healBound; no ID is issued twice.
func TestScenario_EtcdSplit(t *testing.T) {
	ec := etcdtest.StartPeerProxies(t, 3)
	x := ec.WaitLeader(t)
	// Each side reaches the members through proxies of its own.
	majProxies, majVia := proxyAll(t, ec)
	minProxies, minVia := proxyAll(t, ec)
	led := floedproc.NewLedger()
	a := floedproc.Start(t, bin, "a", etcdNode(minVia, "split", "a")...)
	b := floedproc.Start(t, bin, "b", etcdNode(majVia, "split", "b")...)
	mustReady(t, a, 5*time.Second)
	mustReady(t, b, 5*time.Second)
	logs := map[string]*batchLog{
		"a": &startFeed(t, led, a, "a", feedOpts{}).batchLog,
		"b": &startFeed(t, led, b, "b", feedOpts{}).batchLog,
	}
	defineSeq(t, ec, "split")
	sled := floedproc.NewLedger()
	s := openDialed(t, majVia, "split", "s")
	u := openDialed(t, minVia, "split", "u")
	for _, p := range []*seqProc{s, u} {
		p.serving(t, 5*time.Second)
		logs[p.who] = &startSeqFeed(t, sled, p, 2).batchLog
	}
	majority, minority := []string{"b", "s"}, []string{"a", "u"}
	time.Sleep(time.Second)

	split := func(on bool) {
		for i, m := range ec.Members() {
			if m == x {
				majProxies[i].Freeze(on)
			} else {
				minProxies[i].Freeze(on)
			}
		}
		ec.Isolate(t, x, on)
	}
	// Twice: the member alone is the leader first, a follower then (a new
	// leader was elected without it).
	for range 2 {
		role := "follower"
		if ec.Leader() == x {
			role = "leader"
		}
		kind := "split, " + role + " alone"
		split(true)
		began := time.Now()
		mark := schedtest.Now()
		t.Logf("etcd split: %s (%s) alone, the others together", x.Name, role)
		notReady, ok := waitNotReady(a, began, ttl+requestTimeout+time.Second)
		if !ok {
			t.Errorf("%s: a still ready %v after the split put its etcd member in the minority", kind, ttl+requestTimeout+time.Second)
		}
		time.Sleep(splitFor - time.Since(began))
		split(false)
		healed := time.Now()
		healMark := schedtest.Now()
		// Until every minority one served again, or healBound, stretched,
		// passed; then long enough for the majority's gap to count.
		healedBound := boundFrom(healMark, healBound, healWaits)
		for _, who := range minority {
			logs[who].waitServedWithin(who, healed, healedBound, 0)
		}
		boundFrom(healMark, hungAfter, ttl).sleep(0)

		gapBound := boundFrom(mark, hungBound, ttl)
		for _, who := range majority {
			gap, at := quietest(logs[who], who, began, time.Now())
			t.Logf("longest gap | %s, majority side | %s | %v | ending %v after the split began (healed after %v)",
				kind, who, gap.Round(time.Millisecond), at.Sub(began).Round(time.Millisecond), healed.Sub(began).Round(time.Millisecond))
			if ok, want := gapBound.check(gap); !ok {
				t.Errorf("%s: %s, on the majority side, served nothing for %v, want at most TTL + 1 s = %s", kind, who, gap.Round(time.Millisecond), want)
			}
		}
		for _, who := range minority {
			// The last request answered before the heal: one sent after
			// TTL + request timeout was served past the lease.
			var last time.Duration
			if sent, ok := logs[who].lastSent(who, began, healed); ok {
				last = sent.Sub(began)
			}
			again, ok := logs[who].waitServed(who, healed, 0)
			back := time.Duration(-1)
			if ok {
				back = again.at.Sub(healed)
			}
			t.Logf("%s, minority side | %s | last ID asked for %v after the split; served again %v after the heal",
				kind, who, last.Round(time.Millisecond), back.Round(time.Millisecond))
			if last > ttl+requestTimeout {
				t.Errorf("%s: %s, on the minority side, issued IDs asked for %v after the split, want none after TTL + request timeout = %v", kind, who, last.Round(time.Millisecond), ttl+requestTimeout)
			}
			if in, want := healedBound.check(back); !ok || !in {
				t.Errorf("%s: %s, on the minority side, served again %v after the heal (-1: not within the bound), want within %s", kind, who, back.Round(time.Millisecond), want)
			}
		}
		t.Logf("%s, minority side | a | last seen ready by a poll sent %v after the split", kind, notReady.Round(time.Millisecond))
		if notReady > ttl+requestTimeout {
			t.Errorf("%s: a still answered ready to a poll sent %v after the split, want not ready within TTL + request timeout = %v", kind, notReady.Round(time.Millisecond), ttl+requestTimeout)
		}
	}
	checkLedger(t, led)
	checkLedger(t, sled)
}
