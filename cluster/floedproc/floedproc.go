//go:build unix

// Package floedproc runs floed daemons as subprocesses for cluster tests:
// it builds the binary once, starts daemons on free loopback ports, kills,
// stops, pauses (SIGSTOP) and resumes them, and fetches IDs over the noeq
// binary protocol, written here from the spec rather than with floe's own
// client, so the tests check the daemon against the protocol.
package floedproc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/schedtest"
)

// Main builds floed into a temporary directory, sets *bin to its path,
// runs the tests and removes the directory; it returns the exit code. Call
// it from TestMain: os.Exit(floedproc.Main(m, &bin)).
func Main(m *testing.M, bin *string) int {
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "cmd", "floed")
	dir, err := os.MkdirTemp("", "floedproc-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	*bin = filepath.Join(dir, "floed")
	cmd := exec.Command("go", "build", "-o", *bin, ".")
	cmd.Dir = src
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building floed:", err)
		return 1
	}
	return m.Run()
}

// Bounds of the harness's polling; none of them is asserted as a latency.
const (
	startDeadline = 30 * time.Second
	stopDeadline  = 30 * time.Second
	pollEvery     = 10 * time.Millisecond
)

// httpClient opens a fresh connection per request and gives up fast: a
// paused daemon must not hang a poll.
var httpClient = &http.Client{
	Transport: &http.Transport{DisableKeepAlives: true},
	Timeout:   2 * time.Second,
}

// Proc is one floed process.
type Proc struct {
	Name string
	Bin  string // binary protocol address
	HTTP string // HTTP address
	Args []string
	Env  []string // added to the environment, as StartEnv takes them

	tb     testing.TB
	cmd    *exec.Cmd
	stderr *floetest.Buffer
	done   chan struct{}
	err    error // set before done closes
}

// Start runs floed with args on two free loopback ports and waits until it
// answers /healthz (it need not be ready: a cluster node may wait for a
// worker ID). It is killed when the test ends.
func Start(tb testing.TB, bin, name string, args ...string) *Proc {
	tb.Helper()
	return StartEnv(tb, bin, name, nil, args...)
}

// StartEnv is Start with the variables env ("NAME=value") in floed's
// environment, after the test's own, of which the FLOE_* and NOEQ_* ones
// are left out.
func StartEnv(tb testing.TB, bin, name string, env []string, args ...string) *Proc {
	tb.Helper()
	for range 5 {
		if p := tryStart(tb, bin, name, env, args); p != nil {
			return p
		}
	}
	tb.Fatalf("floedproc: %s did not start: its ports were taken each time", name)
	return nil
}

// Restart starts a new process with the same name, environment and
// arguments on new ports, extra arguments appended.
func (p *Proc) Restart(extra ...string) *Proc {
	p.tb.Helper()
	p.Kill()
	return StartEnv(p.tb, p.cmd.Path, p.Name, p.Env, append(append([]string(nil), p.Args...), extra...)...)
}

// command returns the command running floed on the listen addresses addrs
// (binary protocol, HTTP) with env and args.
func command(bin string, addrs, env, args []string) *exec.Cmd {
	cmd := exec.Command(bin, append([]string{"--listen", addrs[0], "--http", addrs[1]}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FLOE_") && !strings.HasPrefix(kv, "NOEQ_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

func tryStart(tb testing.TB, bin, name string, env, args []string) *Proc {
	tb.Helper()
	addrs := floetest.FreeAddrs(tb, 2)
	cmd := command(bin, addrs, env, args)
	// Its own process group, so that SIGSTOP reaches nothing else.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
	p := &Proc{Name: name, Bin: addrs[0], HTTP: addrs[1], Args: args, Env: env, tb: tb, cmd: cmd, stderr: &floetest.Buffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("floedproc: starting %s: %v", name, err)
	}
	// Its work counts in the slowdown a test's bounds stretch by.
	schedtest.Watch(cmd.Process.Pid)
	go func() {
		p.err = cmd.Wait()
		schedtest.Unwatch(cmd.Process.Pid)
		close(p.done)
	}()
	tb.Cleanup(func() {
		p.Kill()
		if tb.Failed() {
			tb.Logf("floed %s %v stderr:\n%s", name, args, p.stderr.String())
		}
	})
	deadline := time.Now().Add(startDeadline)
	for time.Now().Before(deadline) {
		healthy := false
		if resp, err := httpClient.Get("http://" + p.HTTP + "/healthz"); err == nil {
			resp.Body.Close()
			healthy = resp.StatusCode == http.StatusOK
		}
		if p.Exited() {
			if strings.Contains(p.stderr.String(), "address already in use") {
				return nil
			}
			tb.Fatalf("floedproc: %s exited at start (%v):\n%s", name, p.err, p.stderr.String())
		}
		if healthy {
			return p
		}
		time.Sleep(pollEvery)
	}
	tb.Fatalf("floedproc: %s not healthy after %v:\n%s", name, startDeadline, p.stderr.String())
	return nil
}

// StartErr runs floed with args and waits for it to exit, for
// configurations it must refuse: it returns stderr and the exit error, or
// fails the test if the daemon is still running after the deadline.
func StartErr(tb testing.TB, bin string, args ...string) (string, error) {
	tb.Helper()
	return StartErrEnv(tb, bin, nil, args...)
}

// StartErrEnv is StartErr with the variables env in floed's environment,
// as StartEnv has them.
func StartErrEnv(tb testing.TB, bin string, env []string, args ...string) (string, error) {
	tb.Helper()
	addrs := floetest.FreeAddrs(tb, 2)
	cmd := command(bin, addrs, env, args)
	var stderr floetest.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return stderr.String(), err
	case <-time.After(startDeadline):
		cmd.Process.Kill()
		<-done
		tb.Fatalf("floedproc: floed %v still running after %v, want a refusal:\n%s", args, startDeadline, stderr.String())
		return "", nil
	}
}

// Pid returns the process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Stderr returns what the daemon logged so far.
func (p *Proc) Stderr() string { return p.stderr.String() }

// Exited reports whether the process has exited.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Kill sends SIGKILL (resuming a paused process first is not needed) and
// waits for the exit.
func (p *Proc) Kill() {
	if !p.Exited() {
		p.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-p.done
}

// Stop sends SIGTERM and waits for a clean exit.
func (p *Proc) Stop() error { return p.StopWithin(stopDeadline) }

// StopWithin sends SIGTERM and waits up to d for a clean exit (status 0);
// a process still running then is killed.
func (p *Proc) StopWithin(d time.Duration) error {
	if p.Exited() {
		return fmt.Errorf("%s already exited: %v", p.Name, p.err)
	}
	p.cmd.Process.Signal(syscall.SIGCONT)
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(d):
		p.Kill()
		return fmt.Errorf("%s still running %v after SIGTERM", p.Name, d)
	}
	if p.err != nil {
		return fmt.Errorf("%s exited with %v after SIGTERM", p.Name, p.err)
	}
	return nil
}

// Pause stops the process with SIGSTOP and returns once the kernel shows
// it stopped (a signal is delivered asynchronously: a request right after
// kill(2) could still be answered). Resume continues it.
func (p *Proc) Pause() {
	p.cmd.Process.Signal(syscall.SIGSTOP)
	WaitFor(2*time.Second, func() bool {
		stopped, known := procStopped(p.cmd.Process.Pid)
		return stopped || !known
	})
}

func (p *Proc) Resume() { p.cmd.Process.Signal(syscall.SIGCONT) }

// procStopped reads the state field of /proc/<pid>/stat; known is false
// where there is no /proc, and Pause then returns right after the signal.
func procStopped(pid int) (stopped, known bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false, false
	}
	// "pid (comm) state ...": comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false, false
	}
	switch b[i+2] {
	case 'T', 't':
		return true, true
	case 'Z', 'X': // exited: nothing left to wait for
		return false, false
	}
	return false, true
}

// Get performs GET path and returns the status and body.
func (p *Proc) Get(path string) (int, string, error) {
	return p.Do(http.MethodGet, path, "")
}

// Do performs a request with an optional JSON body. With FLOE_ADMIN_TOKEN
// in the daemon's environment, it sends that token as a bearer token.
func (p *Proc) Do(method, path, body string) (int, string, error) {
	req, err := http.NewRequest(method, "http://"+p.HTTP+path, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, kv := range p.Env {
		if token, ok := strings.CutPrefix(kv, "FLOE_ADMIN_TOKEN="); ok && token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// Ready reports whether /readyz answers 200.
func (p *Proc) Ready() bool {
	code, _, err := p.Get("/readyz")
	return err == nil && code == http.StatusOK
}

// WaitReady waits up to d until the daemon is ready (want true) or not
// ready (want false); it reports whether it got there.
func (p *Proc) WaitReady(d time.Duration, want bool) bool {
	return WaitFor(d, func() bool { return p.Ready() == want })
}

// WaitFor polls cond until it holds or d passes.
func WaitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
}

// Conn is a binary-protocol connection to a daemon.
type Conn struct {
	nc      net.Conn
	timeout time.Duration
}

// Dial opens a binary-protocol connection; token, when set, is sent as
// the auth frame. Each request must be answered within timeout.
//
// An address names a daemon only while it runs; (*Proc).Dial makes sure
// the connection reached the daemon meant.
func Dial(addr, token string, timeout time.Duration) (*Conn, error) {
	nc, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	return handshake(nc, token, timeout)
}

// handshake sends the auth frame of token, if any, on nc.
func handshake(nc net.Conn, token string, timeout time.Duration) (*Conn, error) {
	if token != "" {
		frame := append([]byte{0, byte(len(token))}, token...)
		if _, err := nc.Write(frame); err != nil {
			nc.Close()
			return nil, err
		}
	}
	return &Conn{nc: nc, timeout: timeout}, nil
}

// ErrClosed: the daemon closed the connection instead of answering.
var ErrClosed = errors.New("floedproc: connection closed by the daemon")

// Fetch asks for n IDs (1..255) and returns them. A connection the daemon
// closed gives ErrClosed; the Conn is then unusable.
func (c *Conn) Fetch(n int) ([]uint64, error) {
	if n < 1 || n > 255 {
		return nil, fmt.Errorf("floedproc: count %d not in 1..255", n)
	}
	c.nc.SetDeadline(time.Now().Add(c.timeout))
	if _, err := c.nc.Write([]byte{byte(n)}); err != nil {
		return nil, closedOr(err)
	}
	buf := make([]byte, 8*n)
	if _, err := io.ReadFull(c.nc, buf); err != nil {
		return nil, closedOr(err)
	}
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = binary.BigEndian.Uint64(buf[8*i:])
	}
	return ids, nil
}

func closedOr(err error) error {
	var op *net.OpError
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &op) && !op.Timeout() {
		return fmt.Errorf("%w: %v", ErrClosed, err)
	}
	return err
}

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

// Twitter-layout parts of an ID: 41 bits of milliseconds since
// 1288834974657, 10 bits of node (datacenter and worker), 12 of sequence.
const (
	TwitterEpochMs = 1288834974657
	twitterSeqBits = 12
	twitterNode    = 10
)

// Tick returns the millisecond tick of a Twitter-layout ID.
func Tick(id uint64) uint64 { return id >> (twitterSeqBits + twitterNode) }

// Node returns the node (datacenter<<5 | worker) of a Twitter-layout ID.
func Node(id uint64) int { return int(id>>twitterSeqBits) & (1<<twitterNode - 1) }

// StampSlack is how far the tick of an ID may end before its request was
// sent without counting as stamped early: floed's clock follows the wall
// clock it anchored to at its start and compares with it once a second,
// so a wall clock NTP slews faster (500 ppm at most) leaves it behind a
// test's by 0.5 ms at most.
const StampSlack = time.Millisecond

// StampedEarly reports whether the tick of id, a Twitter-layout ID asked
// for at asked, ended before that time (less StampSlack), as the tick of
// an ID of a stale clock or of an old term would; end is when it ended.
func StampedEarly(id uint64, asked time.Time) (end time.Time, early bool) {
	end = time.UnixMilli(int64(Tick(id)) + 1 + TwitterEpochMs)
	return end, !end.After(asked.Add(-StampSlack))
}
