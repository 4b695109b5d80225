//go:build unix

package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
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
	"github.com/floeid/floe/internal/statefile"
)

// floeBin is the CLI, built by floeBinary next to floedBin.
var (
	floeBin      string
	floeBinOnce  sync.Once
	floeBuildErr error
)

// floeBinary builds the floe CLI once, into floedBin's directory (which
// TestMain removes).
func floeBinary(t *testing.T) string {
	t.Helper()
	floeBinOnce.Do(func() {
		floeBin = filepath.Join(filepath.Dir(floedBin), "floe")
		out, err := exec.Command("go", "build", "-o", floeBin, "../floe").CombinedOutput()
		if err != nil {
			floeBuildErr = fmt.Errorf("building floe: %v\n%s", err, out)
		}
	})
	if floeBuildErr != nil {
		t.Fatal(floeBuildErr)
	}
	return floeBin
}

// newRun is the result of one "floe new".
type newRun struct {
	args   []string
	ids    []uint64
	stderr string
	err    error // cmd.Run's
}

// runFloeNew runs "floe new" with args and the variables env (FLOE_* of the
// test's environment left out).
func runFloeNew(bin string, env []string, args ...string) newRun {
	cmd := exec.Command(bin, append([]string{"new", "-o", "decimal"}, args...)...)
	cmd.Env = floedEnv(env)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r := newRun{args: args, err: cmd.Run(), stderr: stderr.String()}
	for _, f := range strings.Fields(stdout.String()) {
		id, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			r.err = errors.Join(r.err, fmt.Errorf("output %q: %v", f, err))
			continue
		}
		r.ids = append(r.ids, id)
	}
	return r
}

// floeNewsWait is the -wait of runFloeNews' runs: how long each waits for
// the state directory's lock while other runs hold it. The runs take turns
// on that lock, one at a time, so the last of 200 waits for all the others;
// on a loaded machine that is longer than floe new's default 30 s. The
// wait is not what these tests check (newstate_test.go checks the message
// of a run that waited it out): a run that waits longer than this is held
// up by a run that never lets go, which the go test timeout reports.
const floeNewsWait = "10m"

// runFloeNews runs count "floe new" at once, every tenth with -n 2000, and
// returns their results as they end: the channel holds them all, so len of
// it is how many have ended and not been received.
func runFloeNews(bin string, env []string, count int) chan newRun {
	results := make(chan newRun, count)
	for i := range count {
		n := "1"
		if i%10 == 0 {
			n = "2000"
		}
		go func() { results <- runFloeNew(bin, env, "-wait", floeNewsWait, "-n", n) }()
	}
	return results
}

// exitCode is the exit status in a cmd.Run error, 0 for none, -1 for
// another error.
func exitCode(err error) int {
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	return -1
}

// startFloedOnState starts a zero-config floed (worker 0, datacenter 0)
// on the state directory that "floe new" runs may hold: while one does,
// floed stops at start, refused the directory, and is started again.
// running, if not nil, reports whether runs are still going: floed, one
// start at a time, races the waiting runs for the lock, and may lose every
// race until they have ended (nothing makes the lock fair), so its
// deadline, 2*startDeadline, counts from when running last reported true.
func startFloedOnState(t *testing.T, env []string, state string, running func() bool) *floed {
	t.Helper()
	deadline := time.Now().Add(2 * startDeadline)
	for attempt := 1; ; attempt++ {
		if running != nil && running() {
			deadline = time.Now().Add(2 * startDeadline)
		} else if !time.Now().Before(deadline) {
			break
		}
		addrs := floetest.FreeAddrs(t, 2)
		cmd := exec.Command(floedBin, "--listen", addrs[0], "--http", addrs[1], "--state", state)
		cmd.Env = floedEnv(env)
		f := &floed{t: t, cmd: cmd, Bin: addrs[0], HTTP: addrs[1], State: state, stderr: &floetest.Buffer{}, done: make(chan struct{})}
		cmd.Stderr = f.stderr
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting floed: %v", err)
		}
		go func() {
			f.err = cmd.Wait()
			close(f.done)
		}()
		t.Cleanup(f.kill)
		for !f.exited() {
			if resp, err := httpClient.Get("http://" + f.HTTP + "/healthz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK && !f.exited() {
					t.Logf("floed started at attempt %d", attempt)
					return f
				}
			}
			time.Sleep(pollEvery)
		}
		if s := f.stderr.String(); !strings.Contains(s, "state directory in use") && !strings.Contains(s, "address already in use") {
			t.Fatalf("floed exited at start (%v):\n%s", f.err, s)
		}
	}
	t.Fatalf("floed could not take the state directory %s in %v after the floe new runs ended", state, 2*startDeadline)
	return nil
}

// floedIDs fetches n IDs from floed's HTTP API, 1000 a request.
func floedIDs(t *testing.T, f *floed, n int) []uint64 {
	t.Helper()
	var ids []uint64
	for len(ids) < n {
		code, body := f.mustGet("/v1/ids?n=" + strconv.Itoa(min(1000, n-len(ids))))
		var reply struct{ IDs []string }
		if err := json.Unmarshal([]byte(body), &reply); code != http.StatusOK || err != nil {
			t.Fatalf("GET /v1/ids: %d %s (%v)", code, body, err)
		}
		for _, s := range reply.IDs {
			id, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				t.Fatalf("floed's ID %q: %v", s, err)
			}
			ids = append(ids, id)
		}
	}
	return ids
}

// recordFailed reports whether r issued all its IDs and then failed, with
// exit 1, to record its last one: the message of floe new's close.
func recordFailed(r newRun) bool {
	want := 1
	for i, a := range r.args {
		if a == "-n" && i+1 < len(r.args) {
			want, _ = strconv.Atoi(r.args[i+1])
		}
	}
	return exitCode(r.err) == 1 && len(r.ids) == want && strings.HasPrefix(r.stderr, "floe new: recording the last ID in ")
}

// refusedByFloed checks the message of a "floe new" run that a running
// floed refused: exit 1, naming the state directory, floed and floe get.
func refusedByFloed(t *testing.T, r newRun, state string, pid int) {
	t.Helper()
	want := fmt.Sprintf("floe new: state directory %s is in use by floed (pid %d): ", state, pid)
	if exitCode(r.err) != 1 || !strings.HasPrefix(r.stderr, want) || !strings.Contains(r.stderr, `"floe get"`) || len(r.ids) != 0 {
		t.Errorf("floe new %v beside floed: exit %v, %d IDs, stderr %q; want exit 1, no ID, and a message starting %q and naming \"floe get\"",
			r.args, r.err, len(r.ids), r.stderr, want)
	}
}

// TestE2E_FloeNewBesideFloed runs 200 "floe new" at once, some of 2000
// IDs, on floed's default state directory (a temporary HOME), and starts a
// zero-config floed there while they run: no ID may be issued twice. Runs
// take turns on the directory's lock; once floed holds it, runs are
// refused at once, naming it; after floed stops, runs continue above its
// IDs, and floed, started again, above theirs.
func TestE2E_FloeNewBesideFloed(t *testing.T) {
	bin := floeBinary(t)
	home := t.TempDir()
	// floed's and floe new's default state directory is then
	// $HOME/.local/state/floed.
	env := []string{"HOME=" + home, "XDG_STATE_HOME=", "STATE_DIRECTORY="}
	state := filepath.Join(home, ".local", "state", "floed")
	var all []uint64
	const runs = 200

	// 200 runs; floed starts once half of them have ended.
	results := runFloeNews(bin, env, runs)
	var first []newRun
	for range runs / 2 {
		first = append(first, <-results)
	}
	// The runs still going are those of the rest not yet in results.
	f := startFloedOnState(t, env, state, func() bool { return len(results) < runs-runs/2 })
	for range runs - runs/2 {
		first = append(first, <-results)
	}
	fromFloed := floedIDs(t, f, 5000)
	done, refused := 0, 0
	blocks := [][]uint64{fromFloed}
	unrecorded := 0
	for _, r := range first {
		if r.err == nil {
			done++
			all = append(all, r.ids...)
			blocks = append(blocks, r.ids)
			continue
		}
		if recordFailed(r) {
			// It issued its IDs, then failed to record the last one in
			// floe new's releaseTimeout (5 s), as a loaded machine may
			// make it: its IDs count, and the next run starts above
			// its reservation.
			unrecorded++
			t.Logf("floe new %v issued %d IDs but did not record the last: %s", r.args, len(r.ids), r.stderr)
			all = append(all, r.ids...)
			blocks = append(blocks, r.ids)
			continue
		}
		refused++
		refusedByFloed(t, r, state, f.Pid())
	}
	if unrecorded > 0 {
		t.Logf("%d runs did not record their last ID", unrecorded)
	}
	all = append(all, fromFloed...)
	t.Logf("%d runs: %d issued %d IDs, %d refused while floed ran; floed issued %d", runs, done, len(all)-len(fromFloed), refused, len(fromFloed))
	checkUnique(t, all)
	checkTurns(t, blocks)

	// While floed runs, every run is refused at once.
	results = runFloeNews(bin, env, 10)
	for range 10 {
		r := <-results
		refusedByFloed(t, r, state, f.Pid())
		all = append(all, r.ids...)
	}
	f.stop()
	maxFloed := slices.Max(fromFloed)

	// After floed stopped: runs succeed, above its IDs.
	var after []uint64
	results = runFloeNews(bin, env, 20)
	for range 20 {
		r := <-results
		if r.err != nil {
			t.Errorf("floe new %v after floed stopped: %v\n%s", r.args, r.err, r.stderr)
			continue
		}
		after = append(after, r.ids...)
	}
	if len(after) > 0 && slices.Min(after) <= maxFloed {
		t.Errorf("floe new after floed stopped issued %d, not above floed's last ID %d", slices.Min(after), maxFloed)
	}
	all = append(all, after...)

	// floed started again: above the runs' IDs.
	f = startFloedOnState(t, env, state, nil)
	again := floedIDs(t, f, 1000)
	if len(after) > 0 && slices.Min(again) <= slices.Max(after) {
		t.Errorf("floed restarted after floe new issued %d, not above floe new's last ID %d", slices.Min(again), slices.Max(after))
	}
	all = append(all, again...)
	f.stop()
	checkUnique(t, all)
}

// checkTurns checks that the IDs of each run, and of floed, are a block of
// their own: in ID order, no run's IDs fall between another's first and
// last, as runs that take turns on a reservation issue.
func checkTurns(t *testing.T, blocks [][]uint64) {
	t.Helper()
	type span struct{ lo, hi uint64 }
	var spans []span
	for _, b := range blocks {
		if len(b) > 0 {
			spans = append(spans, span{slices.Min(b), slices.Max(b)})
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	overlaps := 0
	for i := 1; i < len(spans); i++ {
		if spans[i].lo <= spans[i-1].hi {
			overlaps++
		}
	}
	if overlaps > 0 {
		t.Errorf("%d of %d runs issued IDs among another run's: runs did not take turns", overlaps, len(spans))
	}
}

// TestE2E_FloeNewKilled kills a "floe new" run in the middle of its IDs:
// the next run starts above the reservation the killed one left, without
// waiting more than its short window.
func TestE2E_FloeNewKilled(t *testing.T) {
	bin := floeBinary(t)
	state := t.TempDir()
	cmd := exec.Command(bin, "new", "-state", state, "-o", "decimal", "-n", "1000000000")
	cmd.Env = floedEnv(nil)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	var last uint64
	sc := bufio.NewScanner(out)
	for i := 0; i < 100000 && sc.Scan(); i++ {
		if last, err = strconv.ParseUint(sc.Text(), 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	f, err := statefile.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	seq, ok := f.Sequence("default")
	f.Close()
	if !ok || seq.Last != 0 || seq.Reserved <= twitterTick(last) {
		t.Fatalf("state after the kill: %+v, %v; want a reservation above the last ID read (tick %d), no last tick", seq, ok, twitterTick(last))
	}
	r := runFloeNew(bin, nil, "-state", state)
	if r.err != nil || len(r.ids) != 1 {
		t.Fatalf("floe new after the kill: %v, %d IDs:\n%s", r.err, len(r.ids), r.stderr)
	}
	if got := twitterTick(r.ids[0]); got <= seq.Reserved {
		t.Errorf("floe new after the kill issued tick %d, not above the killed run's reservation %d", got, seq.Reserved)
	}
}

// twitterTick is the tick (ms since the Twitter epoch) of a Twitter-layout
// ID: the bits above its 22 node and sequence bits.
func twitterTick(id uint64) uint64 { return id >> 22 }
