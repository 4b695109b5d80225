//go:build unix

package scenario_test

import (
	"bufio"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/internal/schedtest"
)

// safeRedis are the redis-server flags that pass floed's safety check.
var safeRedis = []string{"--appendonly", "yes", "--appendfsync", "always"}

// redisNode returns the flags of a floed node of cluster on the Redis
// server at addr, named owner, with the scenarios' timings.
func redisNode(addr, cluster, owner string, extra ...string) []string {
	return append([]string{
		"--redis", addr, "--cluster", cluster, "--owner", owner,
		"--lease-ttl", ttl.String(), "--reserve-window", window.String(),
	}, extra...)
}

// unsafeGauge returns the value floe_coordinator_unsafe{coordinator="redis"}
// shows in p's metrics, or "" without it.
func unsafeGauge(t *testing.T, p *floedproc.Proc) string {
	t.Helper()
	code, body, err := p.Get("/metrics")
	if err != nil || code != http.StatusOK {
		t.Fatalf("%s: GET /metrics: %d %v", p.Name, code, err)
	}
	for line := range strings.Lines(body) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), `floe_coordinator_unsafe{coordinator="redis"} `); ok {
			return v
		}
	}
	return ""
}

// floed refuses a Redis server without AOF, naming the problem and the
// way out; with --redis-unsafe it runs, serves and says so in its metrics.
func TestScenario_RedisSafetyCheck(t *testing.T) {
	unsafe := redistest.Start(t) // no AOF, no snapshots
	stderr, err := floedproc.StartErr(t, bin, redisNode(unsafe.Addr, "check", "a")...)
	if err == nil {
		t.Fatalf("floed started on a Redis server without AOF:\n%s", stderr)
	}
	for _, want := range []string{"AOF is off", "appendfsync", "--redis-unsafe"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the refusal does not mention %q:\n%s", want, stderr)
		}
	}

	led := floedproc.NewLedger()
	p := floedproc.Start(t, bin, "a", redisNode(unsafe.Addr, "check", "a", "--redis-unsafe")...)
	mustReady(t, p, 5*time.Second)
	if v := unsafeGauge(t, p); v != "1" {
		t.Errorf(`floe_coordinator_unsafe{coordinator="redis"} = %q with --redis-unsafe, want 1`, v)
	}
	if !strings.Contains(p.Stderr(), "failed the safety check") {
		t.Errorf("no warning of the unsafe server in the log:\n%s", p.Stderr())
	}
	f := startFeed(t, led, p, "a", feedOpts{})
	if _, ok := f.waitServed("a", time.Time{}, 5*time.Second); !ok {
		t.Fatal("a issued nothing with --redis-unsafe")
	}

	safe := redistest.Start(t, safeRedis...)
	q := floedproc.Start(t, bin, "b", redisNode(safe.Addr, "check", "b")...)
	mustReady(t, q, 5*time.Second)
	if v := unsafeGauge(t, q); v != "0" {
		t.Errorf(`floe_coordinator_unsafe{coordinator="redis"} = %q on a safe server, want 0`, v)
	}
	f.halt()
	checkLedger(t, led)
}

// A Redis server made unsafe while nodes run (AOF turned off, a replica
// attached) stops the node without --redis-unsafe within a few lease
// renewals: not ready, the reason in /readyz, and
// floe_coordinator_unsafe 1. A node with --redis-unsafe serves on and
// shows 1 too.
func TestScenario_RedisBecomesUnsafe(t *testing.T) {
	tests := []struct {
		name   string
		reason string // in /readyz
		do     func(t *testing.T, srv *redistest.Server)
	}{
		{name: "aof turned off", reason: "AOF is off", do: func(t *testing.T, srv *redistest.Server) {
			if err := redisClient(t, srv.Addr).ConfigSet(t.Context(), "appendonly", "no").Err(); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "replica attached", reason: "the primary has replicas", do: func(t *testing.T, srv *redistest.Server) {
			host, port, err := net.SplitHostPort(srv.Addr)
			if err != nil {
				t.Fatal(err)
			}
			redistest.Start(t, "--replicaof", host, port)
		}},
	}
	// stopWithin bounds how soon a node stops: the check runs with each
	// renewal (every TTL/3), then the lease ends; generous for a loaded
	// machine.
	const stopWithin = 4 * ttl
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := redistest.Start(t, safeRedis...)
			led := floedproc.NewLedger()
			a := floedproc.Start(t, bin, "a", redisNode(srv.Addr, "strict", "a")...)
			b := floedproc.Start(t, bin, "b", redisNode(srv.Addr, "lenient", "b", "--redis-unsafe")...)
			mustReady(t, a, 5*time.Second)
			mustReady(t, b, 5*time.Second)
			for _, p := range []*floedproc.Proc{a, b} {
				if v := unsafeGauge(t, p); v != "0" {
					t.Errorf(`%s: floe_coordinator_unsafe{coordinator="redis"} = %q on a safe server, want 0`, p.Name, v)
				}
			}
			fa := startFeed(t, led, a, "a", feedOpts{})
			fb := startFeed(t, led, b, "b", feedOpts{})

			tt.do(t, srv)
			changed := time.Now()
			if until, ok := waitNotReady(a, changed, stopWithin+2*time.Second); !ok || until > stopWithin {
				t.Fatalf("a still answered ready to a poll sent %v after the Redis server became unsafe, want not ready within %v", until.Round(time.Millisecond), stopWithin)
			}
			t.Logf("a not ready %v after the Redis server became unsafe", time.Since(changed).Round(time.Millisecond))
			code, body, err := a.Get("/readyz")
			if err != nil || code != http.StatusServiceUnavailable || !strings.Contains(body, tt.reason) {
				t.Errorf("a: GET /readyz: %d %q %v, want 503 naming %q", code, body, err, tt.reason)
			}
			if !strings.Contains(a.Stderr(), tt.reason) {
				t.Errorf("a's log does not name %q:\n%s", tt.reason, a.Stderr())
			}
			if !floedproc.WaitFor(stopWithin, func() bool { return unsafeGauge(t, b) == "1" }) {
				t.Errorf(`b: floe_coordinator_unsafe{coordinator="redis"} = %q %v after, want 1`, unsafeGauge(t, b), stopWithin)
			}
			if v := unsafeGauge(t, a); v != "1" {
				t.Errorf(`a: floe_coordinator_unsafe{coordinator="redis"} = %q, want 1`, v)
			}
			stopped := time.Now()
			time.Sleep(time.Second)
			if late := fa.sentAfter("a", stopped.Add(500*time.Millisecond)); len(late) > 0 {
				t.Errorf("a issued %d batches of IDs for requests sent after it went not ready", len(late))
			}
			if _, ok := fb.waitServed("b", stopped, 5*time.Second); !ok {
				t.Errorf("b, with --redis-unsafe, issued nothing after the server became unsafe; /readyz %v", b.Ready())
			}
			fa.halt()
			fb.halt()
			checkLedger(t, led)
		})
	}
}

// The Redis server is paused (SIGSTOP) past the lease TTL: both nodes go
// not ready within TTL + request timeout, issue nothing more, and serve
// again once it resumes, with no duplicate.
func TestScenario_RedisPaused(t *testing.T) {
	srv := redistest.Start(t, safeRedis...)
	led := floedproc.NewLedger()
	names := []string{"a", "b"}
	procs := make(map[string]*floedproc.Proc)
	feeds := make(map[string]*feed)
	for _, name := range names {
		p := floedproc.Start(t, bin, name, redisNode(srv.Addr, "paused", name)...)
		mustReady(t, p, 5*time.Second)
		procs[name] = p
		feeds[name] = startFeed(t, led, p, name, feedOpts{})
	}
	time.Sleep(time.Second)

	srv.Pause()
	paused := time.Now()
	t.Cleanup(srv.Resume) // before the kill, which cannot stop a stopped group otherwise
	for _, name := range names {
		until, ok := waitNotReady(procs[name], paused, ttl+requestTimeout+2*time.Second)
		if !ok || until > ttl+requestTimeout+time.Second {
			t.Fatalf("%s still answered ready to a poll sent %v after Redis paused, want not ready within %v", name, until.Round(time.Millisecond), ttl+requestTimeout+time.Second)
		}
		t.Logf("%s last seen ready by a poll sent %v after Redis paused", name, until.Round(time.Millisecond))
	}
	time.Sleep(time.Second)
	for _, name := range names {
		// By when the last request answered was sent: load may delay a
		// reply, not when it was asked for.
		if sent, ok := feeds[name].lastSent(name, paused, time.Time{}); ok {
			if d := sent.Sub(paused); d > ttl+requestTimeout {
				t.Errorf("%s issued IDs for a request sent %v after Redis paused, want none after TTL + request timeout = %v", name, d, ttl+requestTimeout)
			}
		}
	}

	srv.Resume()
	resumed := time.Now()
	back := boundFrom(schedtest.Now(), 5*time.Second, healWaits)
	for _, name := range names {
		b, ok := feeds[name].waitServed(name, resumed, 10*time.Second)
		if !ok {
			t.Fatalf("%s issued nothing within 10 s of Redis resuming", name)
		}
		d := b.at.Sub(resumed)
		t.Logf("%s served again %v after Redis resumed", name, d.Round(time.Millisecond))
		if ok, want := back.check(d); !ok {
			t.Errorf("%s served again %v after Redis resumed, want within %s", name, d, want)
		}
	}
	time.Sleep(300 * time.Millisecond)
	for _, f := range feeds {
		f.halt()
	}
	checkLedger(t, led)
}

// The Redis server crashes (SIGKILL) and comes back on the same address:
// with its AOF the reservations survive and the nodes serve again above
// them; without persistence the reservations are gone, a node that starts
// now refuses the server (unless --redis-unsafe), and the nodes that ran
// must not issue from a reservation they can no longer see.
func TestScenario_RedisRestarted(t *testing.T) {
	srv := redistest.Start(t, safeRedis...)
	led := floedproc.NewLedger()
	a := floedproc.Start(t, bin, "a", redisNode(srv.Addr, "restarted", "a")...)
	mustReady(t, a, 5*time.Second)
	f := startFeed(t, led, a, "a", feedOpts{})
	time.Sleep(time.Second)

	// A crash, and a restart with the AOF.
	srv.Kill()
	crashed := time.Now()
	again := startRedisAt(t, srv.Addr, srv.Dir, safeRedis...)
	// Past the TTL: a serves on a lease renewed on the restarted server,
	// or on one claimed again there.
	later := crashed.Add(ttl + requestTimeout)
	if _, ok := f.waitServed("a", later, 15*time.Second); !ok {
		t.Fatalf("a issued nothing within 15 s of Redis restarting with its AOF; /readyz %v", a.Ready())
	}
	gap, _ := maxGap(f.received("a", crashed.Add(-time.Second), time.Now()))
	t.Logf("Redis crashed and restarted with its AOF: a's longest pause between replies %v; %d claims logged",
		gap.Round(time.Millisecond), strings.Count(a.Stderr(), `msg="worker ID claimed" seq=default worker_id`))
	_, hiBefore, _ := tickRange(f.received("a", time.Time{}, crashed))
	if lo, _, _ := tickRange(f.received("a", crashed, time.Time{})); lo < hiBefore {
		t.Errorf("after the Redis restart a issued tick %d, below its tick %d before", lo, hiBefore)
	}

	// A crash, and a restart without persistence: every key is gone.
	again.kill()
	lost := time.Now()
	startRedisAt(t, srv.Addr, t.TempDir())
	time.Sleep(ttl + requestTimeout + time.Second)
	_, hi, _ := tickRange(f.received("a", time.Time{}, lost))
	lo, _, n := tickRange(f.received("a", lost, time.Time{}))
	t.Logf("after Redis lost its data a issued %d IDs (on its reservation); its sequence now: %+v", n, sequence(t, a, "default"))
	if n > 0 && lo < hi {
		t.Errorf("after Redis lost its data a issued tick %d, below its earlier tick %d", lo, hi)
	}
	// Its worker ID's reservation is gone with the data: a claim there
	// would start from nothing. a must stay out of service.
	if a.Ready() {
		t.Error("a ready on a Redis server that lost every reservation")
	}
	if late := f.sentAfter("a", lost.Add(ttl+requestTimeout)); len(late) > 0 {
		t.Errorf("a issued %d batches of IDs for requests sent more than TTL + request timeout after Redis lost its data", len(late))
	}
	stderr, err := floedproc.StartErr(t, bin, redisNode(srv.Addr, "restarted", "c")...)
	if err == nil || !strings.Contains(stderr, "AOF is off") {
		t.Errorf("a node starting on the restarted Redis without persistence: %v, want a refusal naming AOF:\n%s", err, stderr)
	}
	c := floedproc.Start(t, bin, "c", redisNode(srv.Addr, "restarted", "c", "--redis-unsafe")...)
	mustReady(t, c, 5*time.Second)
	f.halt()
	checkLedger(t, led)
}

// redisProc is a redis-server the test started on a given address.
type redisProc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// startRedisAt starts redis-server on addr with dir as its directory and
// args after the defaults (no snapshots, no AOF), as redistest does, but on
// an address of the test's choice: a restart of a server that was killed.
// It is killed when the test ends.
func startRedisAt(t *testing.T, addr, dir string, args ...string) *redisProc {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	argv := append([]string{
		"--port", port, "--bind", host, "--dir", dir, "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--logfile", "",
	}, args...)
	var out strings.Builder
	deadline := time.Now().Add(10 * time.Second)
	for {
		cmd := exec.Command("redis-server", argv...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out.Reset()
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := &redisProc{cmd: cmd, done: make(chan struct{})}
		go func() { cmd.Wait(); close(p.done) }()
		t.Cleanup(p.kill)
		for time.Now().Before(deadline) {
			select {
			case <-p.done:
			default:
				if pingRedis(addr) {
					return p
				}
				time.Sleep(10 * time.Millisecond)
				continue
			}
			break
		}
		if time.Now().After(deadline) {
			p.kill()
			t.Fatalf("redis-server on %s did not start: %s", addr, out.String())
		}
		// Exited: the port may still be held a moment by the killed one.
		time.Sleep(50 * time.Millisecond)
	}
}

func (p *redisProc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

func pingRedis(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}
