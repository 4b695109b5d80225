//go:build unix

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
)

// BenchmarkStart measures a start: from the exec of a fresh process to the
// first ID it sends. floed starts as README.md's first command starts it,
// with no configuration but fresh loopback ports and its own state
// directory. Its cases:
//
//   - first/binary, first/http: a first start, in a state directory that does
//     not exist yet, to the first ID over the binary protocol and over HTTP.
//     floed creates the directory and writes and fsyncs its state file
//     before that ID;
//   - restart/binary: a start over the state file of an earlier clean stop,
//     which floed reads, extends and fsyncs before the first ID.
//
// Its peers start in the same iterations, interleaved: startfloor
// (testdata/startfloor), a minimal Go program serving the same protocols
// with no state; "linked", startfloor linking the packages floed links,
// which then run their initializers, so that floed's time above linked's
// is its own work and linked's above the floor's the cost of what it
// links; noeqd, when $NOEQD_BIN names its binary (binary protocol
// only); and another floed, when $BASELINE_FLOED names one (an earlier
// build, for a before and after). Each iteration starts every program once,
// in a rotating order. The metrics are milliseconds from exec to the first
// ID, min, median and max over the iterations, and the ratios of floed's
// median to each peer's; and the median CPU time (user and system) of each
// process from exec to its kill right after the first ID, which other work
// on the machine disturbs less than the wall time. floed and startfloor are built as scripts/release
// builds floed (buildStartBins); build the peers the same way. Run with a
// fixed count of starts:
//
//	go test -run '^$' -bench Start -benchtime 20x ./cmd/floed
func BenchmarkStart(b *testing.B) {
	bins := buildStartBins(b)
	noeqd, baseline := os.Getenv("NOEQD_BIN"), os.Getenv("BASELINE_FLOED")
	for _, bc := range []struct{ state, proto string }{{"first", "binary"}, {"first", "http"}, {"restart", "binary"}} {
		b.Run(bc.state+"/"+bc.proto, func(b *testing.B) {
			var template []byte // the state file a restart starts over
			if bc.state == "restart" {
				template = stoppedState(b, bins.floed)
			}
			// floedCmd starts the floed binary bin in a new state
			// directory: one that does not exist, or one holding
			// template.
			floedCmd := func(bin string) func(binAddr, webAddr string) (*exec.Cmd, error) {
				return func(binAddr, webAddr string) (*exec.Cmd, error) {
					state := filepath.Join(b.TempDir(), "floed")
					if template != nil {
						if err := os.Mkdir(state, 0o700); err != nil {
							return nil, err
						}
						if err := os.WriteFile(filepath.Join(state, "floed.state"), template, 0o600); err != nil {
							return nil, err
						}
					}
					cmd := exec.Command(bin, "--listen", binAddr, "--http", webAddr, "--state", state)
					cmd.Env = floedEnv(nil)
					return cmd, nil
				}
			}
			type peer struct {
				name  string
				start func(binAddr, webAddr string) (*exec.Cmd, error)
				times []time.Duration // exec to first ID
				cpu   []time.Duration // CPU time, exec to kill
			}
			peers := []*peer{
				{name: "floed", start: floedCmd(bins.floed)},
				{name: "floor", start: func(binAddr, webAddr string) (*exec.Cmd, error) {
					if bc.proto == "http" {
						return exec.Command(bins.floorHTTP, "-l", binAddr, "-http", webAddr), nil
					}
					return exec.Command(bins.floor, "-l", binAddr), nil
				}},
			}
			peers = append(peers, &peer{name: "linked", start: func(binAddr, webAddr string) (*exec.Cmd, error) {
				if bc.proto == "http" {
					return exec.Command(bins.linked, "-l", binAddr, "-http", webAddr), nil
				}
				return exec.Command(bins.linked, "-l", binAddr), nil
			}})
			if noeqd != "" && bc.proto == "binary" {
				peers = append(peers, &peer{name: "noeqd", start: func(binAddr, _ string) (*exec.Cmd, error) {
					return exec.Command(noeqd, "-l", binAddr), nil
				}})
			}
			if baseline != "" {
				peers = append(peers, &peer{name: "baseline", start: floedCmd(baseline)})
			}
			b.ResetTimer()
			for i := range b.N {
				for j := range peers {
					p := peers[(i+j)%len(peers)]
					d, cpu, err := firstIDTime(b, bc.proto, p.start, false)
					if err != nil {
						b.Fatalf("%s: %v", p.name, err)
					}
					p.times = append(p.times, d)
					p.cpu = append(p.cpu, cpu)
				}
			}
			b.StopTimer()
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			var medians []time.Duration
			for _, p := range peers {
				slices.Sort(p.times)
				med := p.times[len(p.times)/2]
				medians = append(medians, med)
				b.ReportMetric(ms(p.times[0]), p.name+"-min-ms")
				b.ReportMetric(ms(med), p.name+"-median-ms")
				b.ReportMetric(ms(p.times[len(p.times)-1]), p.name+"-max-ms")
				slices.Sort(p.cpu)
				b.ReportMetric(ms(p.cpu[len(p.cpu)/2]), p.name+"-cpu-median-ms")
			}
			for i, p := range peers[1:] {
				b.ReportMetric(float64(medians[0])/float64(medians[i+1]), "floed/"+p.name)
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// stoppedState returns the state file that the floed binary bin leaves
// after it served an ID and stopped cleanly.
func stoppedState(tb testing.TB, bin string) []byte {
	tb.Helper()
	state := filepath.Join(tb.TempDir(), "floed")
	_, _, err := firstIDTime(tb, "binary", func(binAddr, webAddr string) (*exec.Cmd, error) {
		cmd := exec.Command(bin, "--listen", binAddr, "--http", webAddr, "--state", state)
		cmd.Env = floedEnv(nil)
		return cmd, nil
	}, true)
	if err != nil {
		tb.Fatalf("a state file to restart over: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(state, "floed.state"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// startBins are the programs BenchmarkStart starts, built as
// scripts/release builds floed: static (CGO_ENABLED=0), -trimpath, without
// symbols, with the tag grpcnotrace.
type startBins struct{ floed, floor, floorHTTP, linked string }

var buildStartBins = func() func(testing.TB) startBins {
	var (
		once sync.Once
		bins startBins
		err  error
	)
	return func(tb testing.TB) startBins {
		tb.Helper()
		once.Do(func() {
			dir := filepath.Dir(floedBin)
			bins = startBins{
				floed:     filepath.Join(dir, "floed-release"),
				floor:     filepath.Join(dir, "startfloor"),
				floorHTTP: filepath.Join(dir, "startfloor-http"),
				linked:    filepath.Join(dir, "startfloor-linked"),
			}
			for _, build := range [][]string{
				{"-tags", "grpcnotrace", "-o", bins.floed, "."},
				{"-tags", "grpcnotrace", "-o", bins.floor, "./testdata/startfloor"},
				{"-tags", "grpcnotrace,http", "-o", bins.floorHTTP, "./testdata/startfloor"},
				{"-tags", "grpcnotrace,http,linked", "-o", bins.linked, "./testdata/startfloor"},
			} {
				cmd := exec.Command("go", append([]string{"build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w"}, build...)...)
				cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
				if out, e := cmd.CombinedOutput(); e != nil {
					err = fmt.Errorf("go build %v: %v\n%s", build, e, out)
					return
				}
			}
		})
		if err != nil {
			tb.Fatal(err)
		}
		return bins
	}
}()

// idPattern matches an ID in floed's JSON reply, and the floor's.
var idPattern = regexp.MustCompile(`"ids":\["[0-9]+"\]`)

// firstIDTime starts the command of start on fresh loopback ports and
// returns the time from its exec to the first ID received over proto
// ("binary" or "http"), and the CPU time the process used (user and
// system) from its exec to its exit. Then it kills the process, or if
// graceful, stops it with SIGTERM and wants exit status 0.
func firstIDTime(tb testing.TB, proto string, start func(binAddr, webAddr string) (*exec.Cmd, error), graceful bool) (time.Duration, time.Duration, error) {
	tb.Helper()
	const attempts = 5
	for range attempts {
		addrs := floetest.FreeAddrs(tb, 2)
		cmd, err := start(addrs[0], addrs[1])
		if err != nil {
			return 0, 0, err
		}
		stderr := &floetest.Buffer{}
		cmd.Stderr = stderr
		t0 := time.Now()
		if err := cmd.Start(); err != nil {
			return 0, 0, err
		}
		done := make(chan struct{})
		var waitErr error
		go func() {
			waitErr = cmd.Wait()
			close(done)
		}()
		addr := addrs[0]
		if proto == "http" {
			addr = addrs[1]
		}
		d, err := firstID(proto, addr, t0, done)
		if err == nil && graceful {
			cmd.Process.Signal(syscall.SIGTERM)
			<-done
			if waitErr != nil {
				err = fmt.Errorf("stopping: %v", waitErr)
			}
		}
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
		if errors.Is(err, errExited) && strings.Contains(stderr.String(), "address already in use") {
			continue // a port was taken in the meantime
		}
		if err != nil {
			return 0, 0, fmt.Errorf("%w\n%s", err, stderr.String())
		}
		return d, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
	}
	return 0, 0, fmt.Errorf("its ports were taken in %d attempts", attempts)
}

var errExited = errors.New("exited before its first ID")

// firstID connects to addr as soon as it accepts connections, asks for one
// ID over proto and returns the time from t0 to its arrival. A connection
// succeeds once the port is bound, before the server accepts it, so only
// the time before the bind is polled, every 100 µs; the request then
// waits in the socket until the server reads it.
func firstID(proto, addr string, t0 time.Time, exited <-chan struct{}) (time.Duration, error) {
	deadline := t0.Add(startDeadline)
	var c net.Conn
	for {
		var err error
		if c, err = net.Dial("tcp", addr); err == nil {
			break
		}
		select {
		case <-exited:
			return 0, errExited
		default:
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("no connection to %s after %v: %v", addr, startDeadline, err)
		}
		time.Sleep(100 * time.Microsecond)
	}
	defer c.Close()
	c.SetDeadline(deadline)
	if proto == "binary" {
		if _, err := c.Write([]byte{1}); err != nil {
			return 0, err
		}
		var id [8]byte
		if _, err := io.ReadFull(c, id[:]); err != nil {
			return 0, fmt.Errorf("reading the first ID: %w", err)
		}
		d := time.Since(t0)
		if id == [8]byte{} {
			return 0, errors.New("the first ID is 0")
		}
		return d, nil
	}
	if _, err := io.WriteString(c, "GET /v1/ids?n=1 HTTP/1.1\r\nHost: "+addr+"\r\nConnection: close\r\n\r\n"); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, fmt.Errorf("reading the reply: %w", err)
	}
	body, err := io.ReadAll(resp.Body)
	d := time.Since(t0)
	if err != nil {
		return 0, fmt.Errorf("reading the reply: %w", err)
	}
	if resp.StatusCode != http.StatusOK || !idPattern.Match(body) {
		return 0, fmt.Errorf("reply %s %q, want 200 and one ID", resp.Status, body)
	}
	return d, nil
}
