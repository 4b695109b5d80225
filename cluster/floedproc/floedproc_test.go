//go:build unix

package floedproc_test

import (
	"os"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/floedproc"
)

var bin string

func TestMain(m *testing.M) { os.Exit(floedproc.Main(m, &bin)) }

func TestProc_FetchPauseKill(t *testing.T) {
	p := floedproc.Start(t, bin, "solo", "--state", t.TempDir(), "--worker", "3")
	if !p.WaitReady(10*time.Second, true) {
		t.Fatal("not ready")
	}
	c, err := floedproc.Dial(p.Bin, "", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	led := floedproc.NewLedger()
	for range 3 {
		ids, err := c.Fetch(255)
		if err != nil {
			t.Fatal(err)
		}
		led.Add("solo", ids...)
		if got, want := floedproc.Node(ids[0]), 3; got != want {
			t.Fatalf("node %d, want %d", got, want)
		}
	}
	led.Add("again", 1, 1)
	if n, _ := led.Dups(); n != 1 {
		t.Fatalf("ledger counted %d duplicates, want 1", n)
	}
	p.Pause()
	if p.Ready() {
		t.Fatal("a paused daemon answered /readyz")
	}
	p.Resume()
	if !p.WaitReady(10*time.Second, true) {
		t.Fatal("not ready after resume")
	}
	p.Kill()
	if _, err := c.Fetch(1); err == nil {
		t.Fatal("fetch from a killed daemon succeeded")
	}
}
