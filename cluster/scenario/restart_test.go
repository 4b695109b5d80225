//go:build unix

package scenario_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
)

// One node is restarted over and over as fast as it starts, alternately
// killed (SIGKILL) and stopped (SIGTERM), as the same owner, under full
// load. Each incarnation's clock is set 200 ms further back than the one
// before, longer than a restart takes, so that without its floor an
// incarnation would issue the ticks of its predecessor's last
// milliseconds; with policy borrow it issues at once, from the floor. No
// ID repeats across incarnations, and on each worker ID every incarnation
// starts above every earlier one.
func TestScenario_RapidRestarts(t *testing.T) {
	const (
		incarnations = 12
		step         = 200 * time.Millisecond
		serve        = 250 * time.Millisecond
	)
	ec := etcdtest.Start(t, 1)
	led := floedproc.NewLedger()
	args := etcdNode(ec.Endpoints(), "restarts", "a", "--clock-policy", "borrow", "--max-ahead", "5s")
	p := floedproc.Start(t, bin, "a", args...)
	mustReady(t, p, 5*time.Second)
	// Every incarnation after the first runs with its clock behind: only
	// the first one's IDs are checked against their requests (at the end).
	f := startFeed(t, led, p, "a#0", feedOpts{conns: 3, count: 255, pause: -1, clockBehind: true})

	type life struct {
		who     string
		stopped time.Time
		how     string
	}
	var lives []life
	for i := 1; i < incarnations; i++ {
		who := fmt.Sprintf("a#%d", i-1)
		if _, ok := f.waitServed(who, time.Time{}, 5*time.Second); !ok {
			t.Fatalf("%s issued nothing within 5 s", who)
		}
		time.Sleep(serve)
		how := "kill"
		if i%2 == 0 {
			how = "stop"
			if err := p.Stop(); err != nil {
				t.Fatal(err)
			}
		}
		lives = append(lives, life{who: who, stopped: time.Now(), how: how})
		// Restart kills first: a SIGKILL for the odd ones.
		p = p.Restart("--clock-offset=" + (-time.Duration(i) * step).String())
		f.point(p, fmt.Sprintf("a#%d", i))
	}
	if _, ok := f.waitServed(fmt.Sprintf("a#%d", incarnations-1), time.Time{}, 5*time.Second); !ok {
		t.Fatalf("the last incarnation issued nothing within 5 s")
	}
	time.Sleep(serve)
	f.halt()

	// On each worker ID, each incarnation starts above all the earlier
	// ones.
	highest := make(map[int]uint64) // worker ID → highest tick so far
	for i := range incarnations {
		who := fmt.Sprintf("a#%d", i)
		bs := f.all(who)
		lo, hi, n := tickRange(bs)
		ids := nodes(bs)
		if n == 0 {
			t.Errorf("%s issued nothing", who)
			continue
		}
		if len(ids) != 1 {
			t.Errorf("%s issued IDs of several worker IDs: %v", who, ids)
		}
		for node := range ids {
			how := ""
			if i > 0 {
				how = "after a " + lives[i-1].how
			}
			prev, seen := highest[node]
			t.Logf("%s: %d IDs on worker ID %d, ticks %d..%d %s", who, n, node, lo, hi, how)
			if seen && lo <= prev {
				t.Errorf("%s on worker ID %d started at tick %d, not above an earlier incarnation's %d", who, node, lo, prev)
			}
			highest[node] = max(prev, hi)
		}
	}
	checkStamps(t, f.all("a#0"))
	checkLedger(t, led)
}
