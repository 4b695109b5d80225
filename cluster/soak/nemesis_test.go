//go:build unix

package soak_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/internal/faultproxy"
	"github.com/floeid/floe/internal/schedtest"
)

// The kinds of fault, in the summary's order.
var faultKinds = []string{"pause", "kill", "partition", "delay", "leader", "quorum"}

// fault is one injected fault. Its goroutine writes start, end, isolated
// and the etcd members in detail; the checker reads them once the
// goroutine has finished.
type fault struct {
	kind   string // immutable
	detail string
	node   *node         // immutable: nil for etcd's faults
	done   chan struct{} // closed when the fault has healed
	start  time.Duration // soak time
	end    time.Duration // soak time it healed
	// isolated is when the node (every node for a quorum loss) could reach
	// no etcd quorum: from the cut to the heal. Zero for other faults.
	isolated span
	// isoMark marks the isolation's start, and isoSlowdown is the
	// slowdown schedtest measured from it to the fault's end: how much
	// later than on an idle machine the node may end its term.
	isoMark     schedtest.Mark
	isoSlowdown float64
}

// Allowances in a fault's planned end for the work around its duration.
const (
	startAllowance  = time.Second // a floed's start
	memberAllowance = time.Second // an etcd member's stop or start
)

// nemesis injects one fault every 1 to 3 s. Every choice is made on the
// test's goroutine from the seed and the slot's number alone, and against
// the faults' planned ends, never their real ones, so that a seed replays
// the same faults on the same nodes at the same times (only which etcd
// member leads is up to etcd). Each fault then runs in a goroutine of its
// own, which waits for the faults it must not overlap to end, injects it,
// and heals it after its duration, or at once when the soak ends.
//
// The limits: a node has one fault at a time and at least one node has
// none; etcd has one fault at a time; a node is never restarted while
// etcd has no quorum (it would not start).
type nemesis struct {
	t     *testing.T
	seed  uint64
	ec    *etcdtest.Cluster
	nodes []*node
	base  time.Time
	hurry chan struct{}  // closed when the soak ends: heal at once
	wg    sync.WaitGroup // the faults' goroutines

	// Owned by the test's goroutine: the plan.
	rng       *rand.Rand              // the current slot's
	at        time.Duration           // the current slot's soak time
	nodeLast  map[*node]*fault        // each node's last fault
	nodeUntil map[*node]time.Duration // its planned end
	offsets   map[*node]time.Duration // the clock offsets planned
	etcdLast  *fault                  // etcd's last fault
	etcdUntil time.Duration           // its planned end
	quorum    *fault                  // the last quorum loss
	quorumEnd time.Duration           // its planned end
	kills     []*fault                // kills planned to last past a slot
	killEnds  []time.Duration         // their planned ends
	allKills  []*fault
	faults    []*fault
	skipped   int // slots with no fault possible
}

func newNemesis(t *testing.T, seed uint64, ec *etcdtest.Cluster, nodes []*node, base time.Time) *nemesis {
	return &nemesis{
		t: t, seed: seed, ec: ec, nodes: nodes, base: base,
		hurry:    make(chan struct{}),
		nodeLast: make(map[*node]*fault), nodeUntil: make(map[*node]time.Duration),
		offsets: make(map[*node]time.Duration),
	}
}

func (nm *nemesis) now() time.Duration { return time.Since(nm.base) }

// between returns a uniform duration in [lo, hi) from the slot's
// generator.
func (nm *nemesis) between(lo, hi time.Duration) time.Duration {
	return lo + time.Duration(nm.rng.Int64N(int64(hi-lo)))
}

// run injects faults until end (soak time), then heals every fault at
// once and returns when all have healed.
func (nm *nemesis) run(from, end time.Duration) {
	gaps := rand.New(rand.NewPCG(nm.seed, 0))
	next := from
	for slot := uint64(1); ; slot++ {
		next += time.Second + time.Duration(gaps.Int64N(int64(2*time.Second)))
		if next >= end {
			break
		}
		time.Sleep(next - nm.now())
		nm.rng = rand.New(rand.NewPCG(nm.seed, slot))
		nm.at = next
		nm.inject()
	}
	time.Sleep(end - nm.now())
	close(nm.hurry)
	nm.wg.Wait()
}

// wait sleeps for d, or less if the soak ends.
func (nm *nemesis) wait(d time.Duration) {
	select {
	case <-time.After(d):
	case <-nm.hurry:
	}
}

// spawn plans a fault: its goroutine waits for the faults in after (and
// the node's last one) to end, then runs it; run calls begin as it
// injects the fault. A fault of a node takes the node until until.
func (nm *nemesis) spawn(kind string, n *node, until time.Duration, after []*fault, run func(tb testing.TB, f *fault), format string, args ...any) *fault {
	f := &fault{kind: kind, node: n, done: make(chan struct{}), detail: fmt.Sprintf(format, args...)}
	nm.faults = append(nm.faults, f)
	if n != nil {
		if prev := nm.nodeLast[n]; prev != nil {
			after = append(after, prev)
		}
		nm.nodeLast[n], nm.nodeUntil[n] = f, until
	}
	nm.wg.Add(1)
	go func() {
		defer nm.wg.Done()
		defer close(f.done)
		for _, a := range after {
			<-a.done
		}
		run(goroutineTB{nm.t}, f)
		f.end = nm.now()
		if f.isolated.from != 0 && f.isolated.to == 0 {
			f.isolated.to = f.end
		}
		if f.isolated.from != 0 {
			f.isoSlowdown = f.isoMark.Slowdown()
		}
	}()
	return f
}

// begin records and logs that f starts now; its run calls it as it
// injects the fault.
func (nm *nemesis) begin(f *fault) {
	f.start = nm.now()
	target := "etcd"
	if f.node != nil {
		target = f.node.name
	}
	nm.t.Logf("%7.2fs %-9s %-4s %s", f.start.Seconds(), f.kind, target, f.detail)
}

// goroutineTB lets the harness's helpers, which end the test on an error,
// run in a fault's goroutine: Fatal there marks the test failed and ends
// the goroutine only (FailNow belongs to the test's goroutine).
type goroutineTB struct{ testing.TB }

func (tb goroutineTB) Fatal(args ...any) {
	tb.TB.Helper()
	tb.TB.Error(args...)
	runtime.Goexit()
}

func (tb goroutineTB) Fatalf(format string, args ...any) {
	tb.TB.Helper()
	tb.TB.Errorf(format, args...)
	runtime.Goexit()
}

func (tb goroutineTB) FailNow() {
	tb.TB.Fail()
	runtime.Goexit()
}

// idleNodes returns the nodes without a fault planned now, or none when
// the nodes with one are at their limit.
func (nm *nemesis) idleNodes() []*node {
	var idle []*node
	for _, n := range nm.nodes {
		if nm.nodeUntil[n] <= nm.at {
			idle = append(idle, n)
		}
	}
	if len(nm.nodes)-len(idle) >= max(1, len(nm.nodes)-1) {
		return nil
	}
	return idle
}

// activeKills returns the kills planned to last past now.
func (nm *nemesis) activeKills() []*fault {
	var fs []*fault
	var ends []time.Duration
	for i, f := range nm.kills {
		if nm.killEnds[i] > nm.at {
			fs, ends = append(fs, f), append(ends, nm.killEnds[i])
		}
	}
	nm.kills, nm.killEnds = fs, ends
	return fs
}

// inject plans one fault, chosen at random among those possible now.
func (nm *nemesis) inject() {
	type choice struct {
		weight int
		ok     bool
		do     func(n *node)
	}
	idle := nm.idleNodes()
	nodeOK := len(idle) > 0
	etcdOK := nm.etcdUntil <= nm.at
	choices := []choice{
		{20, nodeOK, nm.pause},
		{22, nodeOK && nm.quorumEnd <= nm.at, nm.kill},
		{25, nodeOK, nm.partition},
		{12, nodeOK, nm.delay},
		{15, etcdOK, nm.leader},
		{5, etcdOK && len(nm.activeKills()) == 0, nm.quorumLoss},
	}
	total := 0
	for _, c := range choices {
		if c.ok {
			total += c.weight
		}
	}
	if total == 0 {
		nm.skipped++
		return
	}
	r := nm.rng.IntN(total)
	var n *node
	if nodeOK {
		n = idle[nm.rng.IntN(len(idle))]
	}
	for _, c := range choices {
		if !c.ok {
			continue
		}
		if r < c.weight {
			c.do(n)
			return
		}
		r -= c.weight
	}
}

// pause stops a node with SIGSTOP for 0.5 to 5 s: past the lease TTL
// about two times in three.
func (nm *nemesis) pause(n *node) {
	d := nm.between(500*time.Millisecond, 5*time.Second)
	nm.spawn("pause", n, nm.at+d, nil, func(_ testing.TB, f *fault) {
		p, _ := n.current()
		if p == nil { // its start failed the test
			return
		}
		nm.begin(f)
		p.Pause()
		nm.wait(d)
		p.Resume()
	}, "SIGSTOP for %v", d.Round(time.Millisecond))
}

// The clock of a node started again: restartSteps for a start at once,
// against its clock before; reclaimSteps for a start after the TTL, which
// claims its worker ID again, against the clock at the kill, so that it
// reads a time inside the reservation of the IDs it issued last (300 ms
// back, less than the window) or below it (3 s back), or later (1 s).
var (
	restartSteps = []time.Duration{0, 0, 0, -300 * time.Millisecond, -3 * time.Second, 300 * time.Millisecond, 3 * time.Second}
	reclaimSteps = []time.Duration{0, 0, -300 * time.Millisecond, -300 * time.Millisecond, -3 * time.Second, -3 * time.Second, time.Second}
)

// maxOffset bounds a node's clock offset: past it, the offset is the
// step alone.
const maxOffset = time.Minute

// kill sends SIGKILL to a node and starts it again with the same owner,
// either at once (its worker ID still leased, it claims another) with its
// clock stepped, or after the TTL (it claims its own again, above the
// reservation) with its clock stepped from the time of the kill.
func (nm *nemesis) kill(n *node) {
	var down, step time.Duration
	var offset time.Duration
	var clock string
	if nm.rng.IntN(2) == 0 {
		step = restartSteps[nm.rng.IntN(len(restartSteps))]
		offset = nm.offsets[n] + step
		clock = fmt.Sprintf("its clock stepped %v", step)
	} else {
		down = nm.between(ttl+300*time.Millisecond, ttl+1500*time.Millisecond)
		step = reclaimSteps[nm.rng.IntN(len(reclaimSteps))]
		offset = nm.offsets[n] - down + step
		clock = fmt.Sprintf("its clock at the kill's time %v", step)
	}
	if offset > maxOffset || offset < -maxOffset {
		offset = step
	}
	nm.offsets[n] = offset
	var after []*fault
	if nm.quorum != nil {
		after = append(after, nm.quorum)
	}
	until := nm.at + down + startAllowance
	f := nm.spawn("kill", n, until, after, func(tb testing.TB, f *fault) {
		nm.begin(f)
		n.kill(tb)
		nm.wait(down)
		n.start(tb, offset)
	}, "SIGKILL, start again after %v with %s (offset %v)", down.Round(time.Millisecond), clock, offset.Round(time.Millisecond))
	nm.kills, nm.killEnds = append(nm.kills, f), append(nm.killEnds, until)
	nm.allKills = append(nm.allKills, f)
}

// partition cuts a node off from etcd for 1 to 5 s: a black hole to every
// member, one way only, or a black hole to one member (the node's client
// fails over to the others). The connections the cut broke are reset when
// it heals, as a real network's would have timed out.
func (nm *nemesis) partition(n *node) {
	d := nm.between(time.Second, 5*time.Second)
	proxies := n.proxies
	var apply func(p *faultproxy.Proxy)
	var what string
	isolated := true
	switch r := nm.rng.IntN(20); {
	case r < 7:
		what, apply = "black hole to every member", func(p *faultproxy.Proxy) { p.Blackhole(true) }
	case r < 11:
		what, apply = "cut toward etcd", func(p *faultproxy.Proxy) { p.Cut(faultproxy.ToTarget, true) }
	case r < 15:
		what, apply = "cut from etcd", func(p *faultproxy.Proxy) { p.Cut(faultproxy.ToClient, true) }
	default:
		i := nm.rng.IntN(len(proxies))
		proxies = proxies[i : i+1]
		what, apply = fmt.Sprintf("black hole to member m%d", i), func(p *faultproxy.Proxy) { p.Blackhole(true) }
		isolated = false
	}
	nm.spawn("partition", n, nm.at+d, nil, func(_ testing.TB, f *fault) {
		nm.begin(f)
		for _, p := range proxies {
			apply(p)
		}
		if isolated {
			f.isolated.from, f.isoMark = nm.now(), schedtest.Now()
		}
		nm.wait(d)
		f.isolated.to = nm.now()
		for _, p := range proxies {
			p.Heal()
			p.Reset()
		}
	}, "%s for %v", what, d.Round(time.Millisecond))
}

// delay slows a node's etcd traffic for 1 to 5 s, by a little or by more
// than the etcd requests' timeout (a third of the TTL).
func (nm *nemesis) delay(n *node) {
	d := nm.between(time.Second, 5*time.Second)
	by := nm.between(20*time.Millisecond, 200*time.Millisecond)
	if nm.rng.IntN(2) == 0 {
		by = nm.between(400*time.Millisecond, 1500*time.Millisecond)
	}
	nm.spawn("delay", n, nm.at+d, nil, func(_ testing.TB, f *fault) {
		nm.begin(f)
		for _, p := range n.proxies {
			p.Delay(by)
		}
		nm.wait(d)
		for _, p := range n.proxies {
			p.Delay(0)
		}
	}, "%v each way for %v", by.Round(time.Millisecond), d.Round(time.Millisecond))
}

// planEtcd plans a fault of etcd until until, after the last one.
func (nm *nemesis) planEtcd(until time.Duration) []*fault {
	var after []*fault
	if nm.etcdLast != nil {
		after = append(after, nm.etcdLast)
	}
	nm.etcdUntil = until
	return after
}

// leader stops etcd's leader, by a crash or a graceful stop that hands
// the leadership over, and starts it again after 1 to 4 s.
func (nm *nemesis) leader(*node) {
	d := nm.between(time.Second, 4*time.Second)
	crash := nm.rng.IntN(2) == 0
	how := "graceful stop"
	if crash {
		how = "crash"
	}
	after := nm.planEtcd(nm.at + d + 2*memberAllowance)
	nm.etcdLast = nm.spawn("leader", nil, 0, after, func(tb testing.TB, f *fault) {
		m := waitLeader(tb, nm.ec)
		f.detail += ", " + m.Name
		nm.begin(f)
		if crash {
			m.Crash()
		} else {
			m.Stop()
		}
		nm.wait(d)
		m.Restart(tb)
	}, "%s of the leader for %v", how, d.Round(time.Millisecond))
}

// quorumLoss crashes the leader and another member, so etcd has no
// quorum, for 2 to 3 s, then starts both again.
func (nm *nemesis) quorumLoss(*node) {
	d := nm.between(2*time.Second, 3*time.Second)
	second := nm.rng.IntN(2) // which of the others
	// Every kill has started its node again, even one later than planned.
	after := append(nm.planEtcd(nm.at+d+2*memberAllowance), nm.allKills...)
	nm.quorumEnd = nm.at + d + 2*memberAllowance
	nm.quorum = nm.spawn("quorum", nil, 0, after, func(tb testing.TB, f *fault) {
		lead := waitLeader(tb, nm.ec)
		var others []*etcdtest.Member
		for _, m := range nm.ec.Members() {
			if m != lead {
				others = append(others, m)
			}
		}
		down := []*etcdtest.Member{lead, others[second%len(others)]}
		f.detail += fmt.Sprintf(", %s (leader) and %s", down[0].Name, down[1].Name)
		nm.begin(f)
		for _, m := range down {
			m.Crash()
		}
		f.isolated.from, f.isoMark = nm.now(), schedtest.Now()
		nm.wait(d)
		f.isolated.to = nm.now()
		for _, m := range down {
			m.Restart(tb)
		}
	}, "crash of the leader and another member for %v", d.Round(time.Millisecond))
	nm.etcdLast = nm.quorum
}

// waitLeader returns etcd's leader, waiting for an election if need be.
func waitLeader(tb testing.TB, ec *etcdtest.Cluster) *etcdtest.Member {
	deadline := time.Now().Add(15 * time.Second)
	for {
		if m := ec.Leader(); m != nil {
			return m
		}
		if time.Now().After(deadline) {
			tb.Fatalf("etcd has no leader 15 s after its last fault")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// counts returns how many faults of each kind were injected.
func (nm *nemesis) counts() map[string]int {
	c := make(map[string]int)
	for _, f := range nm.faults {
		c[f.kind]++
	}
	return c
}
