//go:build unix

package main

import (
	"net/http"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/floeid/floe/internal/schedtest"
)

// TestE2E_MaxWaitDuringFault removes floed's state directory while it
// serves, so that the reservation cannot be extended (as with a full or
// read-only disk, whatever the user): concurrent requests each fail within
// --max-wait of their own arrival, and a SIGTERM while requests wait stops
// floed at once with exit status 0.
func TestE2E_MaxWaitDuringFault(t *testing.T) {
	const (
		// maxWait is well above the slack: a stop that waited out the
		// requests' max-wait would take it (less the 300 ms they waited
		// before the signal), which the stretched slack of the stop, at
		// most 3/4 of it, stays below.
		maxWait = 6 * time.Second
		// slack is what an idle machine may add (the requests' round
		// trips, the daemon's goroutines); it is stretched by the
		// slowdown schedtest measured, up to a limit below the defect
		// each check guards.
		slack = 2 * time.Second
	)
	m := schedtest.Now()
	stretchSlack := func(limit time.Duration) time.Duration { return min(m.Scale(slack), max(limit, slack)) }
	f := startFloed(t, "--reserve-window", "200ms", "--max-wait", maxWait.String())
	c, err := dialNoeq(f.Bin, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fetch(c, 1); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := os.RemoveAll(f.State); err != nil {
		t.Fatal(err)
	}
	if !waitFor(startDeadline, func() bool { code, _, _ := f.get("/readyz"); return code == http.StatusServiceUnavailable }) {
		t.Fatal("still ready with its state directory gone")
	}
	// The reservation reaches at most one window (200 ms) ahead of the
	// clock; past it, every request waits.
	time.Sleep(time.Second)

	// try sends one request (HTTP on even i, binary on odd) and says
	// whether it failed, and when it was sent and ended.
	type result struct {
		failed      bool
		sent, ended time.Time
	}
	try := func(i int) result {
		r := result{sent: time.Now()}
		if i%2 == 0 {
			code, _, err := f.get("/v1/ids")
			r.failed, r.ended = err == nil && code == http.StatusServiceUnavailable, time.Now()
			return r
		}
		c, err := dialNoeq(f.Bin, "")
		if err != nil {
			r.ended = time.Now()
			return r
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(stopDeadline))
		_, err = fetch(c, 1)
		r.failed, r.ended = err != nil, time.Now()
		return r
	}
	concurrent := func(n int, check func(i int, r result)) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { check(i, try(i)) })
		}
		wg.Wait()
	}
	// The defect, waits one after the other, ends the last of the 8
	// requests 8 max-waits after it was sent: the slack stays under 5.
	concurrent(8, func(i int, r result) {
		if !r.failed {
			t.Errorf("request %d served with the state directory gone", i)
		}
		if d, sl := r.ended.Sub(r.sent), stretchSlack(5*maxWait); d > maxWait+sl {
			t.Errorf("request %d failed after %v, want within --max-wait %v (+%v)", i, d.Round(time.Millisecond), maxWait, sl)
		}
	})

	// SIGTERM while eight requests wait.
	var signalled time.Time
	go func() {
		time.Sleep(300 * time.Millisecond) // the requests arrive and wait; nothing is timed on it
		signalled = time.Now()
		if err := f.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Errorf("SIGTERM: %v", err)
		}
	}()
	concurrent(8, func(i int, r result) {
		if !r.failed {
			t.Errorf("request %d served with the state directory gone", i)
		}
	})
	select {
	case <-f.done:
	case <-time.After(stopDeadline):
		t.Fatalf("floed still running %v after SIGTERM", stopDeadline)
	}
	if d, sl := time.Since(signalled), stretchSlack(maxWait*3/4); d > sl {
		t.Errorf("floed took %v to stop after SIGTERM during the fault, want within %v", d.Round(time.Millisecond), sl)
	}
	if f.err != nil {
		t.Errorf("floed exited with %v after SIGTERM during the fault, want 0:\n%s", f.err, f.stderr.String())
	}
}
