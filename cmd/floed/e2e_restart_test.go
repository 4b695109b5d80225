//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// restartClient fetches batches from addr over the binary protocol until
// ctx ends, reconnecting after errors, and logs every full reply. IDs on one
// connection must be strictly increasing; it returns how many were not.
func restartClient(ctx context.Context, addr string, seed uint64, log *idLog) (violations int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for ctx.Err() == nil {
		c, err := net.DialTimeout("tcp", addr, dialTimeout)
		if err != nil {
			time.Sleep(5 * time.Millisecond)
			continue
		}
		stop := context.AfterFunc(ctx, func() { c.Close() })
		var last uint64
		for ctx.Err() == nil {
			counts := make([]int, 1+rng.IntN(2))
			for i := range counts {
				counts[i] = 1 + rng.IntN(255)
			}
			ids, err := fetch(c, counts...)
			if err != nil {
				break // killed, or closed: reconnect
			}
			for _, id := range ids {
				if id <= last {
					violations++
				}
				last = id
			}
			log.add(ids)
			// A short pause keeps the count of IDs, which the test
			// sorts under -race, to a few million.
			time.Sleep(200 * time.Microsecond)
		}
		stop()
		c.Close()
	}
	return violations
}

// killWindow is the reservation window of TestE2E_KillRestart: short, so
// that 20 rounds are quick; -kill.window 2s measures the default's bound.
var killWindow = flag.Duration("kill.window", 200*time.Millisecond, "reservation window of TestE2E_KillRestart")

// TestE2E_KillRestart kills floed (SIGKILL) under load 20 times per clock
// policy and checks that no ID repeats, that each run starts above the last,
// that the state file never reserves more than the documented bound ahead
// of the kill (a window; Borrow adds --max-ahead), and that the claim's log
// line says how the previous run ended. It logs the restart waits: kill to
// ready, against the window.
func TestE2E_KillRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("20 kill -9 rounds; skipped with -short")
	}
	window := *killWindow
	for _, tc := range []struct {
		name  string
		ahead time.Duration // what the policy may run ahead of the clock
		args  []string
	}{
		{"borrow", 2 * time.Second, []string{"--clock-policy", "borrow", "--max-ahead", "2s"}},
		{"wait", 0, []string{"--clock-policy", "wait"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const rounds, clients = 20, 3
			state := t.TempDir()
			rng := rand.New(rand.NewPCG(uint64(len(tc.name)), 2))
			var (
				all        []uint64
				prevMax    uint64
				violations int
				perRound   []int
				waits      []time.Duration // kill to ready
				ahead      []time.Duration // reservation past the kill
				killed     time.Time
			)
			for round := range rounds {
				f := startFloed(t, append([]string{"--state", state, "--reserve-window", window.String()}, tc.args...)...)
				// Kill only a serving daemon: a restart reserves a window
				// above the previous reservation even before it issues
				// anything, so killing daemons that still wait for the
				// clock would push the reservation ever further ahead.
				if !waitFor(startDeadline, func() bool { code, _, err := f.get("/readyz"); return err == nil && code == http.StatusOK }) {
					t.Fatalf("round %d: not ready after %v", round, startDeadline)
				}
				if round > 0 {
					waits = append(waits, time.Since(killed))
				}
				checkClaimLog(t, round, f.stderr.String())
				ctx, cancel := context.WithCancel(context.Background())
				var (
					log idLog
					wg  sync.WaitGroup
					mu  sync.Mutex
				)
				for i := range clients {
					wg.Go(func() {
						v := restartClient(ctx, f.Bin, uint64(round*clients+i), &log)
						mu.Lock()
						violations += v
						mu.Unlock()
					})
				}
				time.Sleep(time.Duration(50+rng.IntN(251)) * time.Millisecond)
				killed = time.Now()
				f.kill() // returns once the daemon is dead
				dead := time.Now()
				cancel()
				wg.Wait()

				// The crash costs what the state file reserved past the
				// kill: at most a window, plus what Borrow runs ahead.
				// Past the daemon's death, which f.kill waits for: it
				// may write until the signal takes it, and on a loaded
				// machine that is later than the signal's sending.
				r := readState(t, state).Sequences["default"].Reserved
				end := time.UnixMilli(int64(r) + 1 + twitterEpoch)
				past := end.Sub(dead)
				ahead = append(ahead, past)
				if bound := window + tc.ahead; past > bound {
					t.Errorf("round %d: the state file reserved %v past the kill, more than the bound %v", round, past, bound)
				}
				ids := log.all()
				perRound = append(perRound, len(ids))
				if len(ids) > 0 {
					lo, hi := slices.Min(ids), slices.Max(ids)
					if lo <= prevMax {
						t.Errorf("round %d: lowest ID %d not above the previous rounds' highest %d", round, lo, prevMax)
					}
					prevMax = max(prevMax, hi)
				}
				all = append(all, ids...)
			}
			if violations > 0 {
				t.Errorf("%d IDs not above the previous one on their connection", violations)
			}
			checkUnique(t, all)
			if len(all) < 10000 {
				t.Errorf("only %d IDs over %d rounds; want a busy test", len(all), rounds)
			}
			t.Logf("%d rounds of kill -9, %d IDs, all unique; IDs per round %v", rounds, len(all), perRound)
			t.Logf("window %v: kill to ready %s; reservation past the kill %s", window, spread(waits), spread(ahead))
		})
	}
}

// twitterEpoch is the Twitter layout's epoch in Unix milliseconds.
const twitterEpoch = 1288834974657

// checkClaimLog checks the claim's log line of a start in a kill loop: the
// first round's is the worker ID's first use, every later one follows a
// crash.
func checkClaimLog(t *testing.T, round int, stderr string) {
	t.Helper()
	want := "clean_stop=false first_use=false"
	if round == 0 {
		want = "clean_stop=false first_use=true"
	}
	for line := range strings.Lines(stderr) {
		if strings.Contains(line, `msg="worker ID claimed"`) {
			if !strings.Contains(line, want) {
				t.Errorf("round %d: the claim's log line lacks %q: %s", round, want, line)
			}
			return
		}
	}
	t.Errorf("round %d: no claim in the log:\n%s", round, stderr)
}

// spread formats the minimum, median and maximum of ds.
func spread(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return fmt.Sprintf("min %v, median %v, max %v over %d", r(s[0]), r(s[len(s)/2]), r(s[len(s)-1]), len(s))
}

func TestE2E_ClockBackAcrossRestart(t *testing.T) {
	for _, stop := range []string{"kill", "graceful"} {
		for _, policy := range []string{"fail", "wait", "borrow"} {
			t.Run(stop+"/"+policy, func(t *testing.T) {
				// A short window: after the kill the last restart waits
				// it out.
				state := t.TempDir()
				f := startFloed(t, "--state", state, "--reserve-window", "200ms")
				before, err := fetchOnce(f.Bin, 255, 255, 255, 255)
				if err != nil {
					t.Fatal(err)
				}
				if stop == "kill" {
					f.kill()
				} else {
					f.stop()
				}

				args := []string{"--state", state, "--reserve-window", "200ms", "--clock-offset", "-1h", "--clock-policy", policy}
				if policy == "borrow" {
					args = append(args, "--max-ahead", "2h")
				}
				f = startFloed(t, args...)
				ready, _ := f.mustGet("/readyz")
				var after []uint64
				if policy == "borrow" {
					if ready != http.StatusOK {
						t.Errorf("/readyz with borrow 2h ahead: %d, want 200", ready)
					}
					if after, err = fetchOnce(f.Bin, 255, 255, 255, 255); err != nil {
						t.Fatalf("borrow an hour ahead: %v", err)
					}
				} else {
					// An hour behind the reservation, beyond any wait:
					// not ready, and connections are closed without IDs.
					if ready != http.StatusServiceUnavailable {
						t.Errorf("/readyz: %d, want 503", ready)
					}
					for range 3 {
						if err := sendClosed(f.Bin, "", requests(1), 30*time.Second); err != nil {
							t.Errorf("request with the clock an hour behind: %v", err)
						}
					}
					if code, body := f.mustGet("/v1/ids?n=1"); code != http.StatusServiceUnavailable {
						t.Errorf("GET /v1/ids with the clock an hour behind: %d %s, want 503", code, body)
					}
					// floed counts a close once the connection is closed, so
					// the client may see the third close before the count.
					var got float64
					waitFor(stopDeadline, func() bool {
						got = f.metrics()[`floe_connections_closed_total{reason="clock"}`]
						return got >= 3
					})
					if got != 3 {
						// Name every reason counted: a close counted
						// under another is a defect to tell apart from a
						// count that came late.
						var closes []string
						for k, v := range f.metrics() {
							if strings.HasPrefix(k, "floe_connections_closed_total") {
								closes = append(closes, fmt.Sprintf("%s = %v", k, v))
							}
						}
						slices.Sort(closes)
						t.Errorf(`floe_connections_closed_total{reason="clock"} = %v, want 3 (closes counted: %v)`, got, closes)
					}
				}
				f.stop()

				// And with the clock right again, on above everything.
				f = startFloed(t, "--state", state, "--reserve-window", "200ms")
				again, err := fetchOnce(f.Bin, 255, 255)
				if err != nil {
					t.Fatalf("with the clock right again: %v", err)
				}
				f.stop()
				checkIncreasing(t, "after the restart", after)
				for _, later := range [][]uint64{after, again} {
					if len(later) > 0 && slices.Min(later) <= slices.Max(before) {
						t.Errorf("lowest ID %d after a restart not above the highest before %d", slices.Min(later), slices.Max(before))
					}
				}
				if len(after) > 0 && slices.Min(again) <= slices.Max(after) {
					t.Errorf("lowest ID %d after the last restart not above the highest of the borrowing run %d", slices.Min(again), slices.Max(after))
				}
				all := slices.Concat(before, after, again)
				checkUnique(t, all)
				t.Logf("%d IDs before, %d with the clock an hour back (readyz %d), %d after; all unique", len(before), len(after), ready, len(again))
			})
		}
	}
}

// fetchOnce opens a connection without a token, fetches, and closes it.
func fetchOnce(addr string, counts ...int) ([]uint64, error) {
	c, err := dialNoeq(addr, "")
	if err != nil {
		return nil, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	return fetch(c, counts...)
}

// stateFile is the part of floed's state file the tests read.
type stateFile struct {
	Sequences map[string]struct {
		Reserved uint64 `json:"reserved"`
		Last     uint64 `json:"last"`
	} `json:"sequences"`
}

func readState(t testing.TB, dir string) stateFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "floed.state"))
	if err != nil {
		t.Fatal(err)
	}
	var sf stateFile
	if err := json.Unmarshal(b, &sf); err != nil {
		t.Fatalf("state file: %v\n%s", err, b)
	}
	return sf
}

func TestE2E_GracefulShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short")
	}
	for _, tc := range []struct {
		name string
		slow bool // the client reads its replies slower than it asks for them
	}{
		{"fast reader", false},
		{"slow reader", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const rounds = 3
			state := t.TempDir()
			var all []uint64
			for round := range rounds {
				all = append(all, gracefulRound(t, state, round, tc.slow)...)
			}

			// A restart after the clean stop is ready at once.
			f := startFloed(t, "--state", state)
			if code, body := f.mustGet("/readyz"); code != http.StatusOK {
				t.Errorf("/readyz right after a restart from a clean stop: %d %s", code, body)
			}
			ids, err := fetchOnce(f.Bin, 255)
			if err != nil {
				t.Fatal(err)
			}
			if len(all) > 0 && ids[0] <= slices.Max(all) {
				t.Errorf("after the restart ID %d is not above the highest before %d", ids[0], slices.Max(all))
			}
			all = append(all, ids...)
			checkUnique(t, all)
			f.stop()
			t.Logf("%d IDs over %d graceful stops, all unique", len(all), rounds)
		})
	}
}

// gracefulRound starts floed on state, pipelines requests on one connection
// and sends SIGTERM in the middle; it checks that the replies end at a
// request boundary and that the state file records the clean stop, and
// returns the IDs received.
func gracefulRound(t *testing.T, state string, round int, slow bool) []uint64 {
	t.Helper()
	f := startFloed(t, "--state", state)
	c, err := dialNoeq(f.Bin, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))

	// A writer pipelines requests nonstop while a reader takes the
	// replies; SIGTERM arrives in the middle.
	var (
		mu      sync.Mutex
		written []int // counts of the requests whose Write returned
		got     []byte
		readErr error
		wg      sync.WaitGroup
	)
	stopWriting := make(chan struct{})
	wg.Go(func() {
		rng := rand.New(rand.NewPCG(uint64(round), 3))
		for {
			select {
			case <-stopWriting:
				return
			default:
			}
			counts := make([]int, 16)
			for i := range counts {
				counts[i] = 1 + rng.IntN(255)
			}
			if _, err := c.Write(requests(counts...)); err != nil {
				return
			}
			mu.Lock()
			written = append(written, counts...)
			mu.Unlock()
			time.Sleep(time.Millisecond)
		}
	})
	wg.Go(func() {
		// Like a real client, stop sending and close once the replies
		// end.
		defer c.Close()
		defer close(stopWriting)
		buf := make([]byte, 16<<10)
		if slow {
			// 2 kB a millisecond, an eighth of what the writer asks for.
			buf = buf[:2<<10]
		}
		for {
			n, err := c.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				if !errors.Is(err, io.EOF) {
					readErr = err
				}
				return
			}
			if slow {
				// Slower than the daemon writes: its replies back up in
				// the socket buffers and its writes block.
				time.Sleep(time.Millisecond)
			}
		}
	})
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	before := len(written)
	mu.Unlock()
	f.stop()
	wg.Wait()
	if readErr != nil && !errors.Is(readErr, syscall.ECONNRESET) {
		t.Fatalf("round %d: reading replies: %v", round, readErr)
	}

	// The replies must end at a request boundary.
	if len(got)%8 != 0 {
		t.Errorf("round %d: %d bytes of replies: half an ID", round, len(got))
	}
	served, sum := 0, 0
	for served < len(written) && 8*(sum+written[served]) <= len(got) {
		sum += written[served]
		served++
	}
	if 8*sum != len(got) {
		t.Errorf("round %d: %d bytes of replies end inside the reply to request %d of %d", round, len(got), served, len(written))
	}
	ids := decodeIDs(got[:8*sum])
	checkIncreasing(t, "one connection", ids)

	sf := readState(t, state)
	seq, ok := sf.Sequences["default"]
	if !ok || seq.Last == 0 {
		t.Fatalf("round %d: state file without a last tick after a clean stop: %+v", round, sf)
	}
	if len(ids) > 0 {
		if tick := ids[len(ids)-1] >> 22; tick > seq.Last {
			t.Errorf("round %d: last ID's tick %d above the recorded last tick %d", round, tick, seq.Last)
		}
	}
	t.Logf("round %d: %d requests written before SIGTERM, %d served (%d IDs), %d written in all; reply error %v; last tick %d, reserved %d",
		round, before, served, sum, len(written), readErr, seq.Last, seq.Reserved)
	return ids
}

func TestE2E_CrashLoop(t *testing.T) {
	const restarts = 10
	const window = time.Second
	state := t.TempDir()
	for range restarts {
		f := startFloed(t, "--state", state, "--reserve-window", window.String())
		f.kill()
	}
	// A slow machine only lowers the lead: the clock moves on while
	// nothing is reserved.
	lead := time.Duration(int64(readState(t, state).Sequences["default"].Reserved)+twitterEpochMS-time.Now().UnixMilli()) * time.Millisecond
	t.Logf("after %d restarts killed before serving, the reservation is %v ahead of the clock", restarts, lead)
	if lead > 2*window {
		t.Errorf("the reservation is %v ahead of the clock after %d restarts with a window of %v; a restart should not need to wait more than a window or so", lead, restarts, window)
	}
}
