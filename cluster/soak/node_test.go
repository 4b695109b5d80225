//go:build unix

package soak_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/faultproxy"
)

// The soak's timings and load.
const (
	ttl    = 2 * time.Second // --lease-ttl
	window = time.Second     // --reserve-window
	// batch IDs are asked for every fetchEvery on each node's connection:
	// 8,000 IDs a second per node.
	batch      = 40
	fetchEvery = 5 * time.Millisecond
	// fetchTimeout bounds one request: a paused daemon answers nothing.
	fetchTimeout = time.Second
	// redialAfter is the pause before dialing again after a refused or
	// closed connection: a daemon without a worker ID refuses at once.
	redialAfter = 20 * time.Millisecond
)

// node is one floed of the soak: its process, replaced at each restart,
// its own fault proxy to each etcd member, and what its client saw.
type node struct {
	name    string              // immutable
	policy  string              // immutable: --clock-policy
	proxies []*faultproxy.Proxy // immutable: one per etcd member, in member order
	base    time.Time           // immutable: the soak's time zero

	mu     sync.Mutex
	proc   *floedproc.Proc // guarded by mu: nil while killed
	offset time.Duration   // guarded by mu: proc's --clock-offset
	gen    int             // guarded by mu: the process's number, from 1
	who    string          // guarded by mu: name#gen, its IDs' issuer in the ledger
	dead   []span          // guarded by mu: while no process ran
	exited []string        // guarded by mu: processes found exited when killed

	lastServed    atomic.Int64 // atomic: when the last reply arrived, ns since base
	startFailures atomic.Int64 // atomic: processes that exited at start

	// Owned by the client goroutine until it returns.
	fetches       []fetch
	conns         []*connRecord
	ids           int      // IDs received
	nOrder        int      // IDs not above the one before on their connection
	nSwitch       int      // connections whose IDs changed worker ID
	nEarly        int      // IDs stamped before their request, by their issuer's clock
	orderReports  []string // the first order violations described
	switchReports []string // the first changes of worker ID described
	earlyReports  []string // the first early stamps described
}

// span is an interval of soak time.
type span struct{ from, to time.Duration }

// fetch is one answered request: when it was sent and when its reply
// arrived.
type fetch struct{ sent, recv time.Duration }

// connRecord is what one connection received from one worker ID.
type connRecord struct {
	who    string // the process
	worker int
	lo, hi uint64 // the lowest and highest tick
	n      int
}

// maxReports bounds the violations a node describes.
const maxReports = 10

func newNode(t *testing.T, name, policy string, etcdEndpoints []string, base time.Time) *node {
	t.Helper()
	n := &node{name: name, policy: policy, base: base}
	for _, ep := range etcdEndpoints {
		p, err := faultproxy.Listen(ep)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		n.proxies = append(n.proxies, p)
	}
	return n
}

func (n *node) now() time.Duration { return time.Since(n.base) }

// startAttempts bounds the starts of a node that exits at start, as
// floed does when etcd fails a request of its setup (during an election):
// the soak restarts it as a supervisor would.
const startAttempts = 10

// start runs a new process with the clock offset, again if it exits at
// start. It fails the test if no attempt stays up.
func (n *node) start(tb testing.TB, offset time.Duration) {
	tb.Helper()
	var eps []string
	for _, p := range n.proxies {
		eps = append(eps, p.Addr())
	}
	args := []string{
		"--etcd", strings.Join(eps, ","), "--cluster", "soak", "--owner", n.name,
		"--lease-ttl", ttl.String(), "--reserve-window", window.String(),
		"--clock-policy", n.policy,
	}
	if offset != 0 {
		args = append(args, "--clock-offset", offset.String())
	}
	n.mu.Lock()
	if n.gen > 0 {
		// Dead from the kill until now: the new process is live from here.
		n.dead[len(n.dead)-1].to = n.now()
	}
	n.mu.Unlock()
	var p *floedproc.Proc
	for attempt := 1; ; attempt++ {
		var failure string
		p, failure = tryStart(tb, n.name, args)
		if p != nil {
			break
		}
		if attempt == startAttempts || !strings.Contains(failure, "exited at start") {
			tb.Fatalf("%s did not start in %d attempts; the last: %s", n.name, attempt, failure)
		}
		n.startFailures.Add(1)
		tb.Logf("%7.2fs %s exited at start; starting it again: %s", n.now().Seconds(), n.name, lastLine(failure))
		time.Sleep(250 * time.Millisecond)
	}
	n.mu.Lock()
	n.proc = p
	n.offset = offset
	n.gen++
	n.who = fmt.Sprintf("%s#%d", n.name, n.gen)
	n.mu.Unlock()
}

// tryStart runs floedproc.Start in a goroutine of its own and returns the
// process, or nil and why floedproc.Start gave up.
func tryStart(tb testing.TB, name string, args []string) (*floedproc.Proc, string) {
	var (
		p       *floedproc.Proc
		failure string
		done    = make(chan struct{})
	)
	go func() {
		defer close(done)
		p = floedproc.Start(catchTB{TB: tb, failure: &failure}, bin, name, args...)
	}()
	<-done
	return p, failure
}

// catchTB records a Fatal instead of failing the test, and ends the
// goroutine that called it.
type catchTB struct {
	testing.TB
	failure *string
}

func (tb catchTB) Fatal(args ...any) {
	*tb.failure = fmt.Sprint(args...)
	runtime.Goexit()
}

func (tb catchTB) Fatalf(format string, args ...any) {
	*tb.failure = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (tb catchTB) FailNow() {
	*tb.failure = "FailNow"
	runtime.Goexit()
}

// lastLine returns the last line of s that is not empty.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// kill sends SIGKILL to the process and waits for its exit.
func (n *node) kill(t testing.TB) {
	n.mu.Lock()
	p, who := n.proc, n.who
	n.proc = nil
	n.dead = append(n.dead, span{from: n.now(), to: -1})
	if p.Exited() {
		n.exited = append(n.exited, fmt.Sprintf("%s exited on its own: %s", who, lastLine(p.Stderr())))
	}
	n.mu.Unlock()
	p.Kill()
	saveLog(t, p, who)
}

// saveLog writes what the process logged to the -soak.logs directory.
func saveLog(t testing.TB, p *floedproc.Proc, who string) {
	if *logsFlag == "" {
		return
	}
	if err := os.MkdirAll(*logsFlag, 0o755); err != nil {
		t.Errorf("-soak.logs: %v", err)
		return
	}
	if err := os.WriteFile(filepath.Join(*logsFlag, who+".log"), []byte(p.Stderr()), 0o644); err != nil {
		t.Errorf("-soak.logs: %v", err)
	}
}

func (n *node) current() (*floedproc.Proc, string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.proc, n.who
}

// clockOffset returns the --clock-offset of p, the node's process.
func (n *node) clockOffset(p *floedproc.Proc) (time.Duration, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.offset, n.proc == p
}

// deadSpans returns when no process ran; a span still open ends at end.
func (n *node) deadSpans(end time.Duration) []span {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := append([]span(nil), n.dead...)
	for i := range out {
		if out[i].to < 0 {
			out[i].to = end
		}
	}
	return out
}

// servedSince reports whether a reply arrived at or after at.
func (n *node) servedSince(at time.Duration) bool {
	return time.Duration(n.lastServed.Load()) >= at
}

// client asks the node's current process for IDs over one connection at a
// time until stop closes, dialing again when the process closes it, a
// request times out or the process is replaced. It records every ID in
// led and checks each connection's IDs.
func (n *node) client(led *floedproc.Ledger, stop <-chan struct{}) {
	tick := time.NewTicker(fetchEvery)
	defer tick.Stop()
	wait := func(d time.Duration) bool {
		select {
		case <-stop:
			return false
		case <-time.After(d):
			return true
		}
	}
	for {
		select {
		case <-stop:
			return
		default:
		}
		p, who := n.current()
		if p == nil {
			if !wait(redialAfter) {
				return
			}
			continue
		}
		c, err := p.Dial("", fetchTimeout) // p's, not whoever took its port since

		if err != nil {
			if !wait(redialAfter) {
				return
			}
			continue
		}
		n.serve(c, p, who, led, stop, tick.C)
		c.Close()
		if !wait(redialAfter) {
			return
		}
	}
}

// serve runs one connection to p until it fails, p is replaced or stop
// closes.
func (n *node) serve(c *floedproc.Conn, p *floedproc.Proc, who string, led *floedproc.Ledger, stop <-chan struct{}, tick <-chan time.Time) {
	var (
		rec  *connRecord
		last uint64 // the last ID, once rec is set
	)
	offset, ok := n.clockOffset(p)
	if !ok {
		return // replaced since the dial
	}
	for {
		select {
		case <-stop:
			return
		case <-tick:
		}
		if cur, _ := n.current(); cur != p {
			return
		}
		sent := n.now()
		ids, err := c.Fetch(batch)
		if err != nil {
			return
		}
		recv := n.now()
		n.fetches = append(n.fetches, fetch{sent: sent, recv: recv})
		n.lastServed.Store(int64(recv))
		n.ids += len(ids)
		led.Add(who, ids...)
		for _, id := range ids {
			if rec != nil && id <= last {
				n.nOrder++
				report(&n.orderReports, "%s: ID %d (tick %d, worker %d) after %d (tick %d, worker %d) on one connection, at %v",
					who, id, floedproc.Tick(id), floedproc.Node(id), last, floedproc.Tick(last), floedproc.Node(last), recv)
			}
			last = id
			tk, w := floedproc.Tick(id), floedproc.Node(id)
			n.checkStamp(who, id, sent, offset)
			if rec != nil && w != rec.worker {
				n.nSwitch++
				report(&n.switchReports, "%s: worker ID %d then %d on one connection, at %v", who, rec.worker, w, recv)
				rec = nil
			}
			if rec == nil {
				rec = &connRecord{who: who, worker: w, lo: tk, hi: tk}
				n.conns = append(n.conns, rec)
			}
			rec.lo, rec.hi = min(rec.lo, tk), max(rec.hi, tk)
			rec.n++
		}
	}
}

// checkStamp counts id, which who issued for a request sent at sent, as
// stamped early if its tick ended before that time on who's clock, which
// reads the test's plus offset: an ID of a stale clock or of an old term.
func (n *node) checkStamp(who string, id uint64, sent, offset time.Duration) {
	asked := n.base.Add(sent + offset)
	if end, early := floedproc.StampedEarly(id, asked); early {
		n.nEarly++
		report(&n.earlyReports, "%s: ID %d of tick %d (ended %s) stamped %v before its request was sent at %.3fs, by its clock (offset %v)",
			who, id, floedproc.Tick(id), end.Format("15:04:05.000"), asked.Sub(end), sent.Seconds(), offset)
	}
}

// report describes a violation in *to, up to maxReports of them.
func report(to *[]string, format string, args ...any) {
	if len(*to) < maxReports {
		*to = append(*to, fmt.Sprintf(format, args...))
	}
}
