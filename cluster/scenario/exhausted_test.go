//go:build unix

package scenario_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/schedtest"
)

// More nodes than free worker IDs: the test holds all but two of the
// default sequence's 1,024 IDs, and three nodes contend for the two. The
// third waits as a standby (not ready, refusing binary connections) and
// serves the moment another ID frees, never falling back to a random ID.
func TestScenario_AllIDsTaken(t *testing.T) {
	ec := etcdtest.Start(t, 1)
	ns := defineDefault(t, ec.Client(t), "exhausted")
	ns.holdAllBut(t, 5, 9)

	led := floedproc.NewLedger()
	names := []string{"a", "b", "c"}
	procs := make(map[string]*floedproc.Proc)
	feeds := make(map[string]*feed)
	for _, name := range names {
		p := floedproc.Start(t, bin, name, etcdNode(ec.Endpoints(), "exhausted", name)...)
		procs[name] = p
		feeds[name] = startFeed(t, led, p, name, feedOpts{})
	}
	readyOnes := func() []string {
		var ready []string
		for _, name := range names {
			if procs[name].Ready() {
				ready = append(ready, name)
			}
		}
		return ready
	}
	if !floedproc.WaitFor(5*time.Second, func() bool { return len(readyOnes()) == 2 }) {
		t.Fatalf("ready: %v, want two of three nodes", readyOnes())
	}
	// The standby stays one: it does not take a third ID.
	time.Sleep(time.Second)
	ready := readyOnes()
	if len(ready) != 2 {
		t.Fatalf("ready after a second: %v, want two of three nodes", ready)
	}
	standby := names[0]
	for _, name := range names {
		if !slices.Contains(ready, name) {
			standby = name
		}
	}
	held := []int{sequence(t, procs[ready[0]], "default").WorkerID, sequence(t, procs[ready[1]], "default").WorkerID}
	slices.Sort(held)
	if !slices.Equal(held, []int{5, 9}) {
		t.Errorf("the ready nodes hold worker IDs %v, want [5 9]", held)
	}
	info := sequence(t, procs[standby], "default")
	if info.WorkerID != -1 || !strings.Contains(info.Reason, "every worker ID is held") {
		t.Errorf("standby %s: worker ID %d, reason %q; want none, every worker ID held", standby, info.WorkerID, info.Reason)
	}
	if n := len(feeds[standby].all("")); n != 0 {
		t.Errorf("standby %s answered %d requests", standby, n)
	}

	freed := time.Now()
	claim := boundFrom(schedtest.Now(), time.Second, standbyRetry)
	ns.free(t, 7)
	b, ok := feeds[standby].waitServed(standby, freed, 10*time.Second)
	if !ok {
		t.Fatalf("standby %s issued nothing within 10 s of worker ID 7 freeing", standby)
	}
	t.Logf("standby %s served worker ID 7 %v after it freed", standby, b.at.Sub(freed).Round(time.Millisecond))
	// A standby claims again at least every 250 ms.
	if ok, want := claim.check(b.at.Sub(freed)); !ok {
		t.Errorf("standby %s served %v after worker ID 7 freed, want within %s", standby, b.at.Sub(freed), want)
	}
	time.Sleep(500 * time.Millisecond)
	for _, f := range feeds {
		f.halt()
	}
	for _, name := range names {
		for id, n := range nodes(feeds[name].all(name)) {
			if name == standby && id != 7 || name != standby && !slices.Contains([]int{5, 9}, id) {
				t.Errorf("%s issued %d IDs of worker ID %d", name, n, id)
			}
		}
	}
	checkLedger(t, led)
}
