//go:build unix

package scenario_test

import (
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/schedtest"
)

// Two nodes on a three-member etcd cluster serve while etcd fails: first
// its leader crashes (service continues, or recovers within the TTL or so),
// then two of three members crash (no quorum: the nodes go not ready
// within TTL + request timeout and issue nothing more), then one starts
// again (a quorum: the nodes claim again and serve within seconds).
func TestScenario_EtcdFailures(t *testing.T) {
	ec := etcdtest.Start(t, 3)
	led := floedproc.NewLedger()
	names := []string{"a", "b"}
	procs := make(map[string]*floedproc.Proc)
	feeds := make(map[string]*feed)
	for _, name := range names {
		p := floedproc.Start(t, bin, name, etcdNode(ec.Endpoints(), "etcdfail", name)...)
		mustReady(t, p, 5*time.Second)
		procs[name] = p
		feeds[name] = startFeed(t, led, p, name, feedOpts{})
	}
	time.Sleep(time.Second)

	// The leader crashes: no handover of the leadership.
	leader := ec.Leader()
	if leader == nil {
		t.Fatal("no etcd leader")
	}
	stopped := time.Now()
	crashMark := schedtest.Now()
	leader.Crash()
	next := ec.WaitLeader(t)
	t.Logf("etcd leader %s crashed; %s led %v later", leader.Name, next.Name, time.Since(stopped).Round(time.Millisecond))
	gapBound := boundFrom(crashMark, ttl+time.Second, ttl)
	gapBound.sleep(0)
	for _, name := range names {
		mustReady(t, procs[name], 5*time.Second)
		// From the last reply before the crash on.
		gap, at := maxGap(feeds[name].received(name, stopped.Add(-50*time.Millisecond), time.Now()))
		t.Logf("%s: longest pause between replies after the leader's crash: %v, ending %v after it", name, gap.Round(time.Millisecond), at.Sub(stopped).Round(time.Millisecond))
		if ok, want := gapBound.check(gap); !ok {
			t.Errorf("%s served nothing for %v when the etcd leader crashed, want at most TTL + 1 s = %s", name, gap, want)
		}
	}
	leader.Restart(t)
	time.Sleep(time.Second)

	// Quorum lost: two of the three members crash.
	down := ec.Members()[:2]
	down[0].Crash()
	lost := time.Now()
	down[1].Crash()
	var wg sync.WaitGroup
	notReady := make(map[string]time.Duration)
	var mu sync.Mutex
	for _, name := range names {
		wg.Go(func() {
			if d, ok := waitNotReady(procs[name], lost, ttl+requestTimeout+time.Second); ok {
				mu.Lock()
				notReady[name] = d
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	time.Sleep(time.Second)
	for _, name := range names {
		d, ok := notReady[name]
		if !ok {
			t.Fatalf("%s still ready %v after etcd lost its quorum", name, ttl+requestTimeout+time.Second)
		}
		// The last request answered: one sent after TTL + request
		// timeout was served past the lease.
		last := time.Duration(0)
		if sent, ok := feeds[name].lastSent(name, lost, time.Time{}); ok {
			last = sent.Sub(lost)
		}
		t.Logf("%s: last seen ready by a poll sent %v after etcd lost its quorum; last ID asked for %v after", name, d.Round(time.Millisecond), last.Round(time.Millisecond))
		if d > ttl+requestTimeout {
			t.Errorf("%s still answered ready to a poll sent %v after the quorum loss, want not ready within TTL + request timeout = %v", name, d, ttl+requestTimeout)
		}
		if last > ttl+requestTimeout {
			t.Errorf("%s issued IDs asked for %v after the quorum loss, want none after TTL + request timeout = %v", name, last, ttl+requestTimeout)
		}
	}

	// One member starts again: two of three, a quorum.
	down[0].Restart(t)
	restored := time.Now()
	back := boundFrom(schedtest.Now(), healBound, healWaits)
	for _, name := range names {
		b, ok := feeds[name].waitServed(name, restored, 20*time.Second)
		if !ok {
			t.Fatalf("%s issued nothing within 20 s of etcd's quorum returning; /readyz: %v", name, procs[name].Ready())
		}
		d := b.at.Sub(restored)
		t.Logf("%s served again %v after the quorum returned", name, d.Round(time.Millisecond))
		if ok, want := back.check(d); !ok {
			t.Errorf("%s served again %v after the quorum returned, want within %s", name, d, want)
		}
	}
	down[1].Restart(t)
	time.Sleep(300 * time.Millisecond)
	for _, f := range feeds {
		f.halt()
	}
	checkLedger(t, led)
}

// maxGap returns the longest time between two consecutive batches, and
// when it ended.
func maxGap(bs []batch) (time.Duration, time.Time) {
	var gap time.Duration
	var at time.Time
	for i := 1; i < len(bs); i++ {
		if d := bs[i].at.Sub(bs[i-1].at); d > gap {
			gap, at = d, bs[i].at
		}
	}
	return gap, at
}
