// Package promtest runs Prometheus's own tools for tests: promtool, and a
// real prometheus server on a free loopback port, with its own
// configuration and storage, stopped when the test ends.
//
// Both come from Debian's prometheus package. Without them a test skips,
// saying so, or fails when CI is set, since CI must install them.
package promtest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
)

// Tool returns the path of the named program (promtool, prometheus). When
// it is absent, it skips the test, or fails it when CI is set.
func Tool(tb testing.TB, name string) string {
	tb.Helper()
	bin, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("%s not found, and CI is set: .ci/run installs it (apt-get install prometheus): %v", name, err)
		}
		tb.Skipf("%s not found: install Debian's prometheus package to run this test (%v)", name, err)
	}
	return bin
}

// Bounds of the harness's polling, not latencies asserted: a loaded
// machine can be slow to start or stop a server.
const (
	readyDeadline = 60 * time.Second
	stopDeadline  = 30 * time.Second
	pollEvery     = 20 * time.Millisecond
)

var httpClient = &http.Client{Timeout: 10 * time.Second}

// Server is one prometheus process scraping floed.
type Server struct {
	URL    string // http://127.0.0.1:port
	tb     testing.TB
	cmd    *exec.Cmd
	stderr *floetest.Buffer
	done   chan struct{} // closed when the process has exited
}

// Start runs prometheus on a free loopback port with a fresh storage
// directory and a configuration that scrapes targets (host:port, serving
// /metrics) as job "floed" every second. It returns once prometheus is
// ready; the test's cleanup stops it.
func Start(tb testing.TB, targets ...string) *Server {
	tb.Helper()
	bin := Tool(tb, "prometheus")
	dir := tb.TempDir()
	quoted := make([]string, len(targets))
	for i, t := range targets {
		quoted[i] = strconv.Quote(t)
	}
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: floed
    static_configs:
      - targets: [%s]
`, strings.Join(quoted, ", "))
	configFile := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(configFile, []byte(config), 0o644); err != nil {
		tb.Fatal(err)
	}
	for range 5 { // a freed port can be taken again before prometheus binds it
		if s := try(tb, bin, configFile, filepath.Join(dir, "data")); s != nil {
			return s
		}
	}
	tb.Fatalf("prometheus did not start in 5 attempts: its port was taken each time")
	return nil
}

// try makes one attempt; it returns nil when the port was taken.
func try(tb testing.TB, bin, configFile, data string) *Server {
	tb.Helper()
	addr := floetest.FreeAddrs(tb, 1)[0]
	cmd := exec.Command(bin,
		"--config.file="+configFile,
		"--storage.tsdb.path="+data,
		"--web.listen-address="+addr,
		"--log.level=warn",
	)
	s := &Server{URL: "http://" + addr, tb: tb, cmd: cmd, stderr: &floetest.Buffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.stderr, s.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting prometheus: %v", err)
	}
	go func() {
		cmd.Wait()
		close(s.done)
	}()
	tb.Cleanup(s.stop)
	deadline := time.Now().Add(readyDeadline)
	for time.Now().Before(deadline) {
		ready := false
		if resp, err := httpClient.Get(s.URL + "/-/ready"); err == nil {
			resp.Body.Close()
			ready = resp.StatusCode == http.StatusOK
		}
		select {
		case <-s.done:
			if strings.Contains(s.stderr.String(), "address already in use") {
				return nil
			}
			tb.Fatalf("prometheus exited at start:\n%s", s.stderr.String())
		default:
		}
		if ready {
			return s
		}
		time.Sleep(pollEvery)
	}
	tb.Fatalf("prometheus not ready after %v:\n%s", readyDeadline, s.stderr.String())
	return nil
}

// stop sends SIGTERM and waits for the exit, SIGKILL after stopDeadline.
func (s *Server) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(stopDeadline):
		s.tb.Errorf("prometheus still running %v after SIGTERM; killing it", stopDeadline)
		s.cmd.Process.Kill()
		<-s.done
	}
	if s.tb.Failed() {
		s.tb.Logf("prometheus stderr:\n%s", s.stderr.String())
	}
}

// Sample is one value of a series at a time.
type Sample struct {
	Metric map[string]string
	Time   time.Time // millisecond precision, as Prometheus stores it
	Value  float64
}

// Query evaluates the PromQL expression expr at time at (now when zero)
// with the HTTP API, and returns its samples: one per series for an
// instant vector, every sample in the range for a range vector.
func (s *Server) Query(expr string, at time.Time) ([]Sample, error) {
	q := url.Values{"query": {expr}}
	if !at.IsZero() {
		q.Set("time", strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', 3, 64))
	}
	resp, err := httpClient.Get(s.URL + "/api/v1/query?" + q.Encode())
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Value  []any             `json:"value"`
				Values [][]any           `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("query %q: %d: %v", expr, resp.StatusCode, err)
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("query %q: %s: %s", expr, body.Status, body.Error)
	}
	var out []Sample
	for _, r := range body.Data.Result {
		points := r.Values
		if body.Data.ResultType == "vector" {
			points = [][]any{r.Value}
		}
		for _, p := range points {
			sm, err := sample(r.Metric, p)
			if err != nil {
				return nil, fmt.Errorf("query %q: %v", expr, err)
			}
			out = append(out, sm)
		}
	}
	return out, nil
}

// sample decodes a [time, "value"] pair of the API.
func sample(metric map[string]string, p []any) (Sample, error) {
	if len(p) != 2 {
		return Sample{}, fmt.Errorf("sample %v: want [time, value]", p)
	}
	ts, ok := p[0].(float64)
	str, ok2 := p[1].(string)
	if !ok || !ok2 {
		return Sample{}, fmt.Errorf("sample %v: want [number, string]", p)
	}
	v, err := strconv.ParseFloat(str, 64)
	if err != nil {
		return Sample{}, fmt.Errorf("sample %v: %v", p, err)
	}
	return Sample{Metric: metric, Time: time.UnixMilli(int64(math.Round(ts * 1000))), Value: v}, nil
}
