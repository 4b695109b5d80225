package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/server"
	"github.com/floeid/floe/internal/server/servertest"
	"github.com/floeid/floe/internal/statefile"
	"github.com/floeid/floe/workerid"
)

// newIDs runs "floe new" with args and returns its IDs, failing the test
// on an error.
func newIDs(t *testing.T, args ...string) []id64.ID {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(append([]string{"new"}, args...), &out, &errOut); code != 0 {
		t.Fatalf("floe new %v: exit %d: %s", args, code, errOut.String())
	}
	var ids []id64.ID
	for _, f := range strings.Fields(out.String()) {
		id, err := id64.Parse(f)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// newFails runs "floe new" with args, which must exit 1, and returns its
// stderr.
func newFails(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(append([]string{"new"}, args...), &out, &errOut); code != 1 || out.Len() != 0 {
		t.Fatalf("floe new %v: exit %d, stdout %q; want exit 1 and no ID", args, code, out.String())
	}
	return errOut.String()
}

func TestStateDir(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory:", err)
	}
	tests := []struct {
		name    string
		flag    string
		given   bool
		env     map[string]string
		want    string
		wantErr string
	}{
		{name: "flag", flag: "/s", given: true, env: map[string]string{"FLOE_STATE": "/e"}, want: "/s"},
		{name: "empty flag", flag: "", given: true, wantErr: `-state "": want a state directory`},
		{name: "variable", env: map[string]string{"FLOE_STATE": "/e", "XDG_STATE_HOME": "/x"}, want: "/e"},
		{name: "empty variable", env: map[string]string{"FLOE_STATE": ""}, wantErr: "$FLOE_STATE is set but empty"},
		{name: "systemd", env: map[string]string{"STATE_DIRECTORY": "/var/lib/floed:/other"}, want: "/var/lib/floed"},
		{name: "xdg", env: map[string]string{"XDG_STATE_HOME": "/x"}, want: "/x/floed"},
		{name: "floed's default", want: filepath.Join(home, ".local", "state", "floed")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			got, err := stateDir(tc.flag, tc.given, lookup)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("stateDir = %q, %v; want an error saying %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("stateDir = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestLocalDefinition checks that floe new records what floed's server
// records for its default sequence, for the same layout and node: else
// the two would refuse each other's state rather than share it.
func TestLocalDefinition(t *testing.T) {
	tests := []struct {
		layout             string
		datacenter, worker uint64
	}{
		{"twitter", 0, 0},
		{"twitter", 3, 17},
		{"icicle2", 0, 1000},
		{"41t/10w/12s 1ms since 1455788600316", 0, 7},
	}
	for _, tc := range tests {
		l, err := id64.ParseLayout(tc.layout)
		if err != nil {
			t.Fatal(err)
		}
		store := &servertest.Store{}
		srv, err := server.New(server.Config{
			Sequences: []server.SequenceConfig{{Name: "default", Layout: l, Datacenter: tc.datacenter, Worker: tc.worker}},
			Store:     store,
			Logger:    slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		srv.Close()
		rec, _, _ := store.Load("default")
		if got, want := localDefinition(l, tc.datacenter, tc.worker), rec.Definition; got != want {
			t.Errorf("%s -d %d -w %d: floe new records %q, floed %q", tc.layout, tc.datacenter, tc.worker, got, want)
		}
	}
}

// TestNew_Continues checks that a run starts above the last one: right
// above its last ID after a clean end, recorded in the state file, and
// above the reservation after a run that was killed (nothing recorded
// but the reservation).
func TestNew_Continues(t *testing.T) {
	dir := t.TempDir()
	first := newIDs(t, "-state", dir, "-n", "5")
	f, err := statefile.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	seq, ok := f.Sequence("default")
	f.Close()
	lastTick := id64.Twitter.Parts(first[len(first)-1]).Tick
	if !ok || seq.Last != lastTick || seq.Reserved < seq.Last {
		t.Fatalf("state after a clean run: %+v, %v; want last %d, at most the reservation", seq, ok, lastTick)
	}
	if want := localDefinition(id64.Twitter, 0, 0); seq.Definition != want {
		t.Errorf("definition %q, want floed's %q", seq.Definition, want)
	}
	second := newIDs(t, "-state", dir, "-n", "5")
	if second[0] <= first[len(first)-1] {
		t.Errorf("second run's first ID %d not above the first run's last %d", second[0], first[len(first)-1])
	}

	// A killed run leaves its reservation, a little ahead of the clock.
	store, err := workerid.OpenFile(workerid.FileConfig{Dir: dir, Definition: localDefinition(id64.Twitter, 0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	reserved, err := id64.Twitter.Tick(time.Now().Add(newWindow))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Save(workerid.Record{Reserved: reserved}); err != nil {
		t.Fatal(err)
	}
	store.Close()
	third := newIDs(t, "-state", dir)
	if got := id64.Twitter.Parts(third[0]).Tick; got <= reserved {
		t.Errorf("run after a killed one issued tick %d, not above its reservation %d", got, reserved)
	}
}

// TestNew_Held checks what a run does with a state directory another
// process holds: floed is refused at once, naming it and floe get; another
// floe new is waited for, up to -wait; a holder that has not named itself
// too.
func TestNew_Held(t *testing.T) {
	pid := strconv.Itoa(os.Getpid())
	tests := []struct {
		name   string
		holder string // "": an empty lock file
		wait   string
		want   []string
	}{
		{"floed", "floed", "10m", []string{"is in use by floed (pid " + pid + "): ", `ask floed with "floe get"`}},
		{"another program", "orders-api", "10m", []string{"is in use by orders-api (pid " + pid + "), which keeps its reservation there"}},
		{"another floe new", "floe new", "100ms", []string{"still in use after 100ms: its lock file ", "held by floe new (pid " + pid + "); floe new runs take turns", "-wait"}},
		{"an unnamed holder", "", "100ms", []string{"still in use after 100ms", "has not recorded its name"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			f, err := statefile.OpenAs(dir, tc.holder)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			lock := filepath.Join(dir, statefile.LockName)
			if tc.holder == "" {
				if err := os.Truncate(lock, 0); err != nil {
					t.Fatal(err)
				}
			}
			// A refusal is at once, a timeout after -wait: a run that
			// hangs fails here, not at the test's own timeout.
			errc := make(chan string, 1)
			go func() {
				var out, errOut bytes.Buffer
				code := run([]string{"new", "-state", dir, "-wait", tc.wait}, &out, &errOut)
				errc <- fmt.Sprintf("exit %d: %s%s", code, out.String(), errOut.String())
			}()
			var got string
			select {
			case got = <-errc:
			case <-time.After(time.Minute):
				t.Fatalf("floe new -wait %s still waiting after a minute", tc.wait)
			}
			want := append([]string{"exit 1: floe new: state directory " + dir}, tc.want...)
			if tc.holder == "floe new" || tc.holder == "" {
				want = append(want, lock)
			}
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("got %q, want it to contain %q", got, w)
				}
			}
		})
	}
}

// TestNew_TakesTurns holds the directory as another floe new would and
// lets go while a run waits: the run then issues.
func TestNew_TakesTurns(t *testing.T) {
	dir := t.TempDir()
	before := newIDs(t, "-state", dir)
	f, err := statefile.OpenAs(dir, newHolder)
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(50 * time.Millisecond)
		f.Close()
		close(released)
	}()
	ids := newIDs(t, "-state", dir, "-wait", "10m")
	<-released
	if ids[0] <= before[0] {
		t.Errorf("run after waiting issued %d, not above the run before %d", ids[0], before[0])
	}
}

func TestNew_OtherDefinition(t *testing.T) {
	dir := t.TempDir()
	newIDs(t, "-state", dir)
	got := newFails(t, "-state", dir, "-w", "3")
	for _, w := range []string{
		"floe new: state directory " + dir + ": ",
		`was written for "id64 layout=\"41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z\" datacenter=0 worker=0"`,
		`is opened for "id64 layout=\"41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z\" datacenter=0 worker=3"`,
		"give this one its own with -state",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("got %q, want it to contain %q", got, w)
		}
	}
	// The other definition in its own directory, and id80 and id96, which
	// keep no state, are fine.
	newIDs(t, "-state", t.TempDir(), "-w", "3")
	var out, errOut bytes.Buffer
	for _, format := range []string{"id80", "id96"} {
		if code := run([]string{"new", "-format", format}, &out, &errOut); code != 0 {
			t.Errorf("floe new -format %s: exit %d: %s", format, code, errOut.String())
		}
	}
}

func TestNew_NoneLeavesState(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if ids := newIDs(t, "-state", dir, "-n", "0"); len(ids) != 0 {
		t.Errorf("-n 0 issued %d IDs", len(ids))
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("-n 0 made the state directory (%v)", err)
	}
}

// TestNew_ReservationAhead checks a run on a reservation far ahead of the
// clock, as a floed with a long --reserve-window leaves when killed: the
// run waits for the clock up to -wait, then says why it stopped.
func TestNew_ReservationAhead(t *testing.T) {
	dir := t.TempDir()
	store, err := workerid.OpenFile(workerid.FileConfig{Dir: dir, Definition: localDefinition(id64.Twitter, 0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	reserved, err := id64.Twitter.Tick(time.Now().Add(time.Hour))
	if err == nil {
		err = store.Save(workerid.Record{Reserved: reserved})
	}
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	got := newFails(t, "-state", dir, "-wait", "100ms")
	for _, w := range []string{
		"floe new: state directory " + dir + ": ",
		"behind the reservation of the worker ID's previous holder",
		"wait longer with -wait",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("got %q, want it to contain %q", got, w)
		}
	}
	f, err := statefile.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The next run's floor stays the reservation: no last tick, or the
	// reservation itself.
	if seq, _ := f.Sequence("default"); seq.Reserved != reserved || seq.Last != 0 && seq.Last != reserved {
		t.Errorf("state after the refused run: %+v; want the reservation %d unchanged, and no last tick below it", seq, reserved)
	}
}
