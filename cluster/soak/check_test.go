//go:build unix

package soak_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/floedproc"
)

// isolationSlop is how late past the TTL a node cut off from etcd may
// still take a request: its lease deadline is the send time of its last
// renewal plus the TTL, and ending a term takes a moment on a loaded host.
// That moment is work: the check stretches it by the slowdown measured
// over the fault (fault.isoSlowdown); the TTL is waiting, as it is.
const isolationSlop = 500 * time.Millisecond

// recoveryBound is how soon every node must serve again once every fault
// has healed: a claim after a lost lease backs off up to 2 s, and a node
// restarted with its clock stepped back 3 s waits about 4 s to pass its
// reservation. Those are recoveryWaits, which load does not lengthen; the
// rest is work, stretched by the slowdown measured since the heal.
const recoveryBound = 15 * time.Second

// recoveryWaits is recoveryBound's part that is waiting.
const recoveryWaits = 6 * time.Second

// check is one verdict of the soak.
type check struct {
	name    string
	failed  bool
	details []string
}

// gap is a time a node, or the whole cluster, served nothing.
type gap struct {
	node     string
	from, to time.Duration
	length   time.Duration // to-from less the times no process ran
}

// result is what the checker found.
type result struct {
	ids, dups, order int
	faults           map[string]int
	nFaults          int
	longest          gap // of a node
	cluster          gap // of every node at once
	perNode          []gap
	handoffs         int // a worker ID changing process, in tick order
	workers          int // worker IDs that issued anything
	lateness         time.Duration
	recovered        map[string]time.Duration
	checks           []*check
}

func (r *result) add(name string, details ...string) {
	r.checks = append(r.checks, &check{name: name, failed: len(details) > 0, details: details})
}

// summary is the soak's summary line, in a stable form.
func (r *result) summary() string {
	var kinds []string
	for _, k := range faultKinds {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, r.faults[k]))
	}
	return fmt.Sprintf("soak: %d IDs checked, %d duplicates, %d order violations, %d faults injected (%s), longest unavailability %.1fs (node %s), cluster-wide %.1fs",
		r.ids, r.dups, r.order, r.nFaults, strings.Join(kinds, ", "),
		r.longest.length.Seconds(), cmp.Or(r.longest.node, "-"), r.cluster.length.Seconds())
}

// counted returns the details of n violations, led by their count; none
// when n is 0.
func counted(n int, what string, details []string) []string {
	if n == 0 {
		return nil
	}
	return append([]string{fmt.Sprintf("%d %s; the first:", n, what)}, details...)
}

// passed returns how many checks passed and failed.
func (r *result) passed() (ok, failed int) {
	for _, c := range r.checks {
		if c.failed {
			failed++
		} else {
			ok++
		}
	}
	return ok, failed
}

// evaluate checks what the clients saw from the start of the faults
// (from) to the end of the soak (end); recovered holds, per node, how
// long after the heal it served again (-1 if not within recoveryBound).
func evaluate(nodes []*node, nm *nemesis, led *floedproc.Ledger, from, end time.Duration, recovered map[string]time.Duration) *result {
	r := &result{faults: nm.counts(), nFaults: len(nm.faults), recovered: recovered}
	for _, n := range nodes {
		r.ids += n.ids
	}

	ndups, dups := led.Dups()
	r.dups = ndups
	r.add("every ID issued once", counted(ndups, fmt.Sprintf("duplicates among %d IDs", led.Len()), dups)...)

	var order, switches, early []string
	nSwitch, nEarly := 0, 0
	for _, n := range nodes {
		r.order += n.nOrder
		nSwitch += n.nSwitch
		nEarly += n.nEarly
		order = append(order, n.orderReports...)
		switches = append(switches, n.switchReports...)
		early = append(early, n.earlyReports...)
	}
	r.add("IDs of one connection strictly increase", counted(r.order, "IDs not above the one before", order)...)
	r.add("one worker ID per connection", counted(nSwitch, "changes of worker ID on a connection", switches)...)
	r.add("no ID stamped before its request, by its issuer's clock", counted(nEarly, "IDs stamped before their request", early)...)

	r.add("holders of a worker ID issue disjoint ticks", r.disjoint(nodes)...)
	r.add(fmt.Sprintf("a node cut off from etcd serves at most %v", ttl+isolationSlop), r.isolation(nodes, nm)...)

	var late []string
	for _, n := range nodes {
		if d := recovered[n.name]; d < 0 {
			late = append(late, fmt.Sprintf("%s served nothing within %v of the last heal", n.name, recoveryBound))
		}
	}
	r.add(fmt.Sprintf("every node serves again within %v of the heal", recoveryBound), late...)

	var exited []string
	for _, n := range nodes {
		n.mu.Lock()
		exited = append(exited, n.exited...)
		n.mu.Unlock()
		if p, who := n.current(); p != nil && p.Exited() {
			exited = append(exited, fmt.Sprintf("%s exited on its own: %s", who, lastLine(p.Stderr())))
		}
	}
	r.add("no daemon exited on its own", exited...)

	r.unavailability(nodes, from, end)
	return r
}

// disjoint checks that the processes holding a worker ID one after another
// issued disjoint tick ranges: each new holder starts above the last
// reservation, which the previous one never passed. Each connection sees
// one holding, so each connection's range is compared with the ranges of
// the other processes' connections.
func (r *result) disjoint(nodes []*node) []string {
	byWorker := make(map[int][]*connRecord)
	for _, n := range nodes {
		for _, c := range n.conns {
			byWorker[c.worker] = append(byWorker[c.worker], c)
		}
	}
	r.workers = len(byWorker)
	var bad []string
	nbad := 0
	for w, cs := range byWorker {
		slices.SortFunc(cs, func(a, b *connRecord) int { return cmp.Compare(a.lo, b.lo) })
		highest := make(map[string]*connRecord) // by process: its highest tick so far
		for i, c := range cs {
			if i > 0 && cs[i-1].who != c.who {
				r.handoffs++
			}
			for who, o := range highest {
				if who != c.who && c.lo <= o.hi {
					nbad++
					if len(bad) < maxReports {
						bad = append(bad, fmt.Sprintf("worker ID %d: %s issued ticks %d..%d, %s ticks %d..%d",
							w, o.who, o.lo, o.hi, c.who, c.lo, c.hi))
					}
					break
				}
			}
			if o := highest[c.who]; o == nil || c.hi > o.hi {
				highest[c.who] = c
			}
		}
	}
	return counted(nbad, "connections overlapping another process's ticks", bad)
}

// isolation checks that a node cut off from every etcd member (or from a
// quorum) took no request later than the TTL (and slop) after the cut.
func (r *result) isolation(nodes []*node, nm *nemesis) []string {
	var bad []string
	for _, f := range nm.faults {
		iso := f.isolated
		if iso.from == 0 {
			continue
		}
		if iso.to == 0 {
			iso.to = f.end
		}
		affected := nodes
		if f.node != nil {
			affected = []*node{f.node}
		}
		for _, n := range affected {
			for _, ft := range n.fetches {
				if ft.sent < iso.from || ft.sent >= iso.to {
					continue
				}
				late := ft.sent - iso.from
				r.lateness = max(r.lateness, late)
				slop := time.Duration(float64(isolationSlop) * max(1, f.isoSlowdown))
				if late > ttl+slop && len(bad) < maxReports {
					bad = append(bad, fmt.Sprintf("%s took a request %v after %s at %.2fs (%s) and answered it, past TTL + %v (the slop %v at the measured slowdown %.1f)",
						n.name, late.Round(time.Millisecond), f.kind, f.start.Seconds(), f.detail, slop.Round(time.Millisecond), isolationSlop, max(1, f.isoSlowdown)))
				}
			}
		}
	}
	return bad
}

// unavailability finds the longest time each node served nothing while a
// process of it ran, and the longest time no node served at all, between
// from and end.
func (r *result) unavailability(nodes []*node, from, end time.Duration) {
	var all []time.Duration
	for _, n := range nodes {
		dead := n.deadSpans(end)
		g := gap{node: n.name}
		consider := func(a, b time.Duration) {
			a = max(a, from)
			if b <= a {
				return
			}
			length := b - a
			for _, d := range dead {
				length -= max(0, min(d.to, b)-max(d.from, a))
			}
			if length > g.length {
				g = gap{node: n.name, from: a, to: b, length: length}
			}
		}
		prev := from
		for _, ft := range n.fetches {
			all = append(all, ft.recv)
			consider(prev, ft.recv)
			prev = ft.recv
		}
		consider(prev, end)
		r.perNode = append(r.perNode, g)
		if g.length > r.longest.length {
			r.longest = g
		}
	}
	slices.Sort(all)
	prev := from
	for _, at := range append(all, end) {
		if a := max(prev, from); at-a > r.cluster.length {
			r.cluster = gap{node: "all", from: a, to: at, length: at - a}
		}
		prev = at
	}
}

// log logs the details behind the summary.
func (r *result) log(t *testing.T, nodes []*node, nm *nemesis, led *floedproc.Ledger, healed time.Duration) {
	t.Helper()
	var slowest time.Duration
	for _, d := range r.recovered {
		if d < 0 {
			slowest = -1
			break
		}
		slowest = max(slowest, d)
	}
	t.Logf("faults healed at %.2fs; the slowest node served again %v later (-1: not within %v)",
		healed.Seconds(), slowest.Round(time.Millisecond), recoveryBound)
	t.Logf("%d distinct IDs from %d worker IDs, %d handoffs of a worker ID between processes; a cut-off node took requests up to %v after the cut",
		led.Len(), r.workers, r.handoffs, r.lateness.Round(time.Millisecond))
	for i, g := range r.perNode {
		t.Logf("%s (%s): longest unavailable %v, %.2fs to %.2fs, during: %s",
			g.node, nodes[i].policy, g.length.Round(time.Millisecond), g.from.Seconds(), g.to.Seconds(), during(g, nm))
	}
	t.Logf("cluster: longest unavailable %v, %.2fs to %.2fs, during: %s",
		r.cluster.length.Round(time.Millisecond), r.cluster.from.Seconds(), r.cluster.to.Seconds(), during(r.cluster, nm))
	var restarts int64
	for _, n := range nodes {
		restarts += n.startFailures.Load()
	}
	if restarts > 0 {
		t.Logf("%d processes exited at start (etcd failed a request of their setup) and were started again", restarts)
	}
	if nm.skipped > 0 {
		t.Logf("%d fault slots skipped: no fault was possible then", nm.skipped)
	}
}

// print prints the summary, each check's verdict and the count of passed
// and failed checks on stdout, in a stable form, and fails the test on any
// failed check.
func (r *result) print(t *testing.T, took time.Duration) {
	t.Helper()
	fmt.Println(r.summary())
	for _, c := range r.checks {
		verdict := "ok"
		if c.failed {
			verdict = "FAILED"
			t.Errorf("%s: %v", c.name, c.details)
		}
		fmt.Printf("soak: %-6s %s\n", verdict, c.name)
		for _, d := range c.details {
			fmt.Printf("soak:          %s\n", d)
		}
	}
	ok, failed := r.passed()
	fmt.Printf("soak: %d passed, %d failed (in %v)\n", ok, failed, took.Round(time.Second))
}

// during describes the faults active in g.
func during(g gap, nm *nemesis) string {
	var fs []string
	for _, f := range nm.faults {
		if f.start <= g.to && f.end >= g.from-time.Second {
			target := "etcd"
			if f.node != nil {
				target = f.node.name
			}
			fs = append(fs, fmt.Sprintf("%s %s at %.2fs (%s)", f.kind, target, f.start.Seconds(), f.detail))
		}
	}
	if len(fs) == 0 {
		return "no fault"
	}
	return strings.Join(fs, "; ")
}
