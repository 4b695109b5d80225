//go:build unix

package floedproc_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
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

// floed gets the variables a test gives it, and none of the FLOE_* ones of
// the test's own environment, whether it starts or is refused.
func TestStartEnv(t *testing.T) {
	t.Setenv("FLOE_LOG_FORMAT", "bogus")
	t.Run("started", func(t *testing.T) {
		p := floedproc.StartEnv(t, bin, "env", []string{"FLOE_WORKER=5"}, "--state", t.TempDir())
		if !p.WaitReady(10*time.Second, true) {
			t.Fatalf("not ready:\n%s", p.Stderr())
		}
		c, err := floedproc.Dial(p.Bin, "", 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ids, err := c.Fetch(1)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := floedproc.Node(ids[0]), 5; got != want {
			t.Errorf("node %d, want %d (from FLOE_WORKER)", got, want)
		}
		if err := p.StopWithin(10 * time.Second); err != nil {
			t.Error(err)
		}
	})
	tests := []struct {
		name string
		env  []string
		want string
	}{
		{"refused without variables", nil, `for flag -worker`},
		{"refused with a variable", []string{"FLOE_DATACENTER=x"}, `$FLOE_DATACENTER="x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stderr, err := floedproc.StartErrEnv(t, bin, tt.env, "--state", t.TempDir(), "--worker", "w")
			if err == nil || !strings.Contains(stderr, tt.want) || strings.Contains(stderr, "bogus") {
				t.Errorf("floed exited with %v, stderr:\n%s\nwant a refusal naming %q and not the test's FLOE_LOG_FORMAT", err, stderr, tt.want)
			}
		})
	}
}

func TestLedger_Dups(t *testing.T) {
	tests := []struct {
		name string
		led  *floedproc.Ledger
		want string
	}{
		{"Twitter IDs", floedproc.NewLedger(),
			"1 duplicate IDs among 2; first: [ID 4198401 (tick 1, node 1) from b, first from a]"},
		{"described", floedproc.NewLedgerOf(func(id uint64) string { return fmt.Sprintf("key %x", id) }),
			"1 duplicate IDs among 2; first: [key 401001 from b, first from a]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const id = 1<<22 | 1<<12 | 1 // tick 1, node 1, sequence 1
			tt.led.Add("a", id, id+1)
			if err := tt.led.Err(); err != nil {
				t.Fatalf("no duplicate yet: %v", err)
			}
			tt.led.Add("b", id)
			err := tt.led.Err()
			if err == nil || err.Error() != tt.want {
				t.Errorf("Err() = %v, want %s", err, tt.want)
			}
		})
	}
}

// TestProc_DialReachesTheProcess dials a daemon's address once another
// process listens there: the daemon's own connection is one, any other
// process's connection is refused with ErrNotOurs, so that no ID is ever
// credited to a daemon that did not issue it. A port the OS gave again
// after the daemon exited, as it did to a restarted node's next
// incarnation, is the case that matters.
func TestProc_DialReachesTheProcess(t *testing.T) {
	p := floedproc.Start(t, bin, "solo", "--state", t.TempDir())
	if !p.WaitReady(10*time.Second, true) {
		t.Fatal("not ready")
	}
	c, err := p.Dial("", 5*time.Second)
	if err != nil {
		t.Fatalf("Dial of the daemon's own address: %v", err)
	}
	if _, err := c.Fetch(1); err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	c.Close()

	// Another process listens: this test's own listener, whose
	// connections are accepted here, not by the daemon.
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	go func() {
		for {
			c, err := other.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	if _, err := p.DialContext(t.Context(), "tcp", other.Addr().String()); !errors.Is(err, floedproc.ErrNotOurs) {
		t.Errorf("DialContext of another process's listener: %v, want ErrNotOurs", err)
	}

	// The daemon exits, and its port is another's.
	p.Kill()
	again, err := net.Listen("tcp", p.Bin)
	if err != nil {
		t.Skipf("the daemon's port was taken before the test could: %v", err)
	}
	defer again.Close()
	go func() {
		for {
			c, err := again.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	if c, err := floedproc.Dial(p.Bin, "", 5*time.Second); err != nil {
		t.Fatalf("Dial by address (the check below needs it to connect): %v", err)
	} else {
		c.Close()
	}
	if _, err := p.Dial("", 5*time.Second); !errors.Is(err, floedproc.ErrNotOurs) {
		t.Errorf("Dial of the exited daemon, whose port another process took: %v, want ErrNotOurs", err)
	}
}
