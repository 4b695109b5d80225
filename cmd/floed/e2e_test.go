//go:build unix

// End-to-end tests: they build the real floed binary once and run it as a
// subprocess on loopback ports, speaking the binary protocol with a client
// written here from the spec in DESIGN.md (not the repository's client
// package nor internal/wire), and HTTP.

package main

import (
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/schedtest"
)

// floedBin is the daemon built by TestMain.
var floedBin string

// The version and revision TestMain builds floedBin with.
const (
	e2eVersion  = "v1.2.3-e2e"
	e2eRevision = "0123456789abcdef0123456789abcdef01234567"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "floed-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	floedBin = filepath.Join(dir, "floed")
	// A release's link-time version and revision, as a release build sets
	// them (TestE2E_Version).
	build := exec.Command("go", "build", "-o", floedBin, "-ldflags",
		"-X github.com/floeid/floe/internal/buildinfo.version="+e2eVersion+
			" -X github.com/floeid/floe/internal/buildinfo.revision="+e2eRevision, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building floed:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Bounds of the harness's polling: generous, since a loaded machine running
// -race can be slow; none of them is asserted as a latency.
const (
	startDeadline = 20 * time.Second
	stopDeadline  = 30 * time.Second
	pollEvery     = 10 * time.Millisecond
)

// httpClient opens a fresh connection per request, so that the daemon's
// goroutine and descriptor counts do not depend on idle keep-alives.
var httpClient = &http.Client{
	Timeout:   10 * time.Second,
	Transport: &http.Transport{DisableKeepAlives: true},
}

// floed is one running daemon.
type floed struct {
	t      testing.TB
	cmd    *exec.Cmd
	Bin    string // binary protocol address
	HTTP   string // HTTP address
	State  string // state directory
	stderr *floetest.Buffer
	done   chan struct{} // closed when the process has exited
	err    error         // cmd.Wait's result, set before done closes
}

// startFloed starts floed with args on fresh loopback ports and waits until
// /healthz answers. Without --state in args it gets a t.TempDir(). The
// process is killed at cleanup if still running.
func startFloed(t testing.TB, args ...string) *floed {
	t.Helper()
	return startFloedEnv(t, nil, args...)
}

// startFloedEnv is startFloed with extra environment variables
// ("NAME=value"); FLOE_* and NOEQ_TOKEN of the test's own environment are
// not passed on.
func startFloedEnv(t testing.TB, env []string, args ...string) *floed {
	t.Helper()
	state := ""
	for i, a := range args {
		if (a == "--state" || a == "-state") && i+1 < len(args) {
			state = args[i+1]
		}
	}
	if state == "" {
		state = t.TempDir()
		args = append(args, "--state", state)
	}
	const attempts = 5
	for range attempts {
		if f := tryStart(t, env, args); f != nil {
			f.State = state
			return f
		}
	}
	t.Fatalf("floed did not start in %d attempts: its ports were taken each time", attempts)
	return nil
}

// tryStart makes one attempt; it returns nil when a port it picked was
// taken in the meantime.
func tryStart(t testing.TB, env []string, args []string) *floed {
	t.Helper()
	addrs := floetest.FreeAddrs(t, 2)
	bin, web := addrs[0], addrs[1]
	cmd := exec.Command(floedBin, append([]string{"--listen", bin, "--http", web}, args...)...)
	cmd.Env = floedEnv(env)
	f := &floed{t: t, cmd: cmd, Bin: bin, HTTP: web, stderr: &floetest.Buffer{}, done: make(chan struct{})}
	cmd.Stderr = f.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting floed: %v", err)
	}
	// The daemon's threads count in the slowdown of the tests' marks
	// (internal/schedtest) while it runs.
	pid := cmd.Process.Pid
	schedtest.Watch(pid)
	go func() {
		f.err = cmd.Wait()
		schedtest.Unwatch(pid)
		close(f.done)
	}()
	t.Cleanup(func() {
		f.kill()
		if t.Failed() {
			t.Logf("floed %v stderr:\n%s", f.cmd.Args[1:], f.stderr.String())
		}
	})
	deadline := time.Now().Add(startDeadline)
	health, hc := "http://"+web+"/healthz", httpClient
	if slices.Contains(args, "--tls-cert") {
		// /healthz answers over HTTPS, without a client certificate
		// under --tls-client-ca too; who serves it is checked below.
		health, hc = "https://"+web+"/healthz", &http.Client{Timeout: 10 * time.Second,
			Transport: &http.Transport{DisableKeepAlives: true, TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	}
	for time.Now().Before(deadline) {
		healthy := false
		if resp, err := hc.Get(health); err == nil {
			resp.Body.Close()
			healthy = resp.StatusCode == http.StatusOK
		}
		// Checked after /healthz, so that whoever took our HTTP port is
		// not mistaken for our daemon.
		if f.exited() {
			if strings.Contains(f.stderr.String(), "address already in use") {
				return nil
			}
			t.Fatalf("floed exited at start (%v):\n%s", f.err, f.stderr.String())
		}
		if healthy {
			return f
		}
		time.Sleep(pollEvery)
	}
	t.Fatalf("floed not healthy after %v:\n%s", startDeadline, f.stderr.String())
	return nil
}

// floedEnv is the test's environment without its FLOE_* and NOEQ_*
// variables, plus env ("NAME=value").
func floedEnv(env []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FLOE_") && !strings.HasPrefix(kv, "NOEQ_") {
			out = append(out, kv)
		}
	}
	return append(out, env...)
}

// Pid returns the daemon's process id.
func (f *floed) Pid() int { return f.cmd.Process.Pid }

// exited reports whether the process has exited.
func (f *floed) exited() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

// kill sends SIGKILL and waits for the process to exit.
func (f *floed) kill() {
	if !f.exited() {
		f.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-f.done
}

// stop sends SIGTERM and waits for a clean exit (code 0).
func (f *floed) stop() {
	f.t.Helper()
	if err := f.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		f.t.Fatalf("SIGTERM: %v", err)
	}
	select {
	case <-f.done:
	case <-time.After(stopDeadline):
		f.t.Fatalf("floed still running %v after SIGTERM", stopDeadline)
	}
	if f.err != nil {
		f.t.Fatalf("floed exited with %v after SIGTERM, want 0:\n%s", f.err, f.stderr.String())
	}
}

// get performs GET path on the daemon's HTTP address with optional header
// pairs (name, value, ...) and returns the status and body.
func (f *floed) get(path string, header ...string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, "http://"+f.HTTP+path, nil)
	if err != nil {
		return 0, "", err
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// mustGet is get failing the test on a transport error.
func (f *floed) mustGet(path string, header ...string) (int, string) {
	f.t.Helper()
	code, body, err := f.get(path, header...)
	if err != nil {
		f.t.Fatalf("GET %s: %v", path, err)
	}
	return code, body
}

// metrics scrapes /metrics into series ("name{labels}") and values.
func (f *floed) metrics() map[string]float64 {
	f.t.Helper()
	code, body := f.mustGet("/metrics")
	if code != http.StatusOK {
		f.t.Fatalf("GET /metrics: %d %s", code, body)
	}
	m := make(map[string]float64)
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			f.t.Fatalf("metrics line %q: %v", line, err)
		}
		m[line[:i]] = v
	}
	return m
}

// waitFor polls cond until it holds or the deadline passes; it returns
// whether it held.
func waitFor(d time.Duration, cond func() bool) bool {
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

// The binary protocol client, from the spec: an optional auth frame
// 0x00, len, token; then requests of one byte n (1..255), each answered by
// n IDs of 8 bytes, big-endian.

const dialTimeout = 5 * time.Second

// dialNoeq connects and, with a token, sends the auth frame.
func dialNoeq(addr, token string) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", addr, dialTimeout)
	if err != nil {
		return nil, err
	}
	if token != "" {
		if _, err := c.Write(authFrame(token)); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

func authFrame(token string) []byte {
	return append([]byte{0x00, byte(len(token))}, token...)
}

// requests encodes pipelined requests for counts (each 1..255).
func requests(counts ...int) []byte {
	b := make([]byte, len(counts))
	for i, n := range counts {
		b[i] = byte(n)
	}
	return b
}

// readIDs reads the reply to a request for n IDs.
func readIDs(c net.Conn, n int) ([]uint64, error) {
	buf := make([]byte, 8*n)
	if _, err := io.ReadFull(c, buf); err != nil {
		return nil, err
	}
	return decodeIDs(buf), nil
}

func decodeIDs(b []byte) []uint64 {
	ids := make([]uint64, len(b)/8)
	for i := range ids {
		ids[i] = binary.BigEndian.Uint64(b[8*i:])
	}
	return ids
}

// fetch sends pipelined requests and reads every reply.
func fetch(c net.Conn, counts ...int) ([]uint64, error) {
	if _, err := c.Write(requests(counts...)); err != nil {
		return nil, err
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	return readIDs(c, total)
}

// closedWithout reads from c until it closes and reports an error unless it
// closes (EOF or reset) without sending any byte within wait.
// sendClosed dials addr (with token's auth frame when token is not empty),
// writes payload and checks the daemon closes the connection without
// sending a byte.
func sendClosed(addr, token string, payload []byte, wait time.Duration) error {
	c, err := dialNoeq(addr, token)
	if err != nil {
		return err
	}
	defer c.Close()
	c.Write(payload)
	return closedWithout(c, wait)
}

func closedWithout(c net.Conn, wait time.Duration) error {
	c.SetReadDeadline(time.Now().Add(wait))
	b, err := io.ReadAll(c)
	switch {
	case len(b) > 0:
		return fmt.Errorf("got %d bytes, want none before the close", len(b))
	case err == nil, errors.Is(err, syscall.ECONNRESET):
		return nil
	}
	return fmt.Errorf("not closed: %v", err)
}

// The Twitter layout: 41 bits of ms since 1288834974657, 5 datacenter,
// 5 worker, 12 sequence.
const twitterEpochMS = 1288834974657

type twitterParts struct {
	Time       time.Time
	Datacenter uint64
	Worker     uint64
	Sequence   uint64
}

func decodeTwitter(id uint64) twitterParts {
	return twitterParts{
		Time:       time.UnixMilli(int64(id>>22) + twitterEpochMS),
		Datacenter: id >> 17 & 31,
		Worker:     id >> 12 & 31,
		Sequence:   id & 4095,
	}
}

// idLog collects IDs from many goroutines.
type idLog struct {
	mu  sync.Mutex
	ids []uint64
}

func (l *idLog) add(ids []uint64) {
	l.mu.Lock()
	l.ids = append(l.ids, ids...)
	l.mu.Unlock()
}

func (l *idLog) all() []uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.ids)
}

// checkUnique fails t if ids hold a duplicate, printing up to 20 of them.
func checkUnique(t testing.TB, ids []uint64) {
	t.Helper()
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	var dups []string
	n := 0
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			n++
			if len(dups) < 20 {
				p := decodeTwitter(sorted[i])
				dups = append(dups, fmt.Sprintf("%d (time %s dc %d worker %d seq %d)",
					sorted[i], p.Time.UTC().Format(time.RFC3339Nano), p.Datacenter, p.Worker, p.Sequence))
			}
		}
	}
	if n > 0 {
		t.Errorf("%d duplicate IDs among %d, e.g.:\n%s", n, len(ids), strings.Join(dups, "\n"))
	}
}

// checkIncreasing fails t unless ids are strictly increasing.
func checkIncreasing(t testing.TB, what string, ids []uint64) {
	t.Helper()
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Errorf("%s: ID %d = %d not above the previous %d", what, i, ids[i], ids[i-1])
			return
		}
	}
}

// runToExit runs floed with args and the variables env, expecting it to
// exit by itself within d, and returns its stderr and cmd.Wait's error.
func runToExit(t *testing.T, env, args []string, d time.Duration) (string, error) {
	t.Helper()
	addrs := floetest.FreeAddrs(t, 2)
	cmd := exec.Command(floedBin, append([]string{"--listen", addrs[0], "--http", addrs[1]}, args...)...)
	cmd.Env = floedEnv(env)
	stderr := &floetest.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting floed: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return stderr.String(), err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Fatalf("floed %q still running after %v, want it to stop:\n%s", args, d, stderr.String())
		return "", nil
	}
}
