package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/internal/statefile"
	"github.com/floeid/floe/workerid"
)

// newIDs128 runs "floe new -format id128" with args and returns its IDs,
// failing the test on an error.
func newIDs128(t *testing.T, args ...string) []id128.ID {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(append([]string{"new", "-format", "id128"}, args...), &out, &errOut); code != 0 {
		t.Fatalf("floe new -format id128 %v: exit %d: %s", args, code, errOut.String())
	}
	var ids []id128.ID
	for _, f := range strings.Fields(out.String()) {
		id, err := id128.Parse(f)
		if err != nil {
			t.Fatal(err)
		}
		if id.String() != f {
			t.Errorf("%q is not the canonical text %q", f, id.String())
		}
		ids = append(ids, id)
	}
	return ids
}

// TestNew_ID128Continues: id128 IDs are issued on the state directory, in
// a record of their own beside floed's default sequence, so runs never
// repeat one: each starts above the last, and above a killed run's
// reservation.
func TestNew_ID128Continues(t *testing.T) {
	dir := t.TempDir()
	first := newIDs128(t, "-state", dir, "-worker", "3", "-n", "100")
	id64s := newIDs(t, "-state", dir, "-n", "3") // the id64 record, beside it
	second := newIDs128(t, "-state", dir, "-worker", "3", "-n", "100")
	if len(first) != 100 || len(second) != 100 || len(id64s) != 3 {
		t.Fatalf("got %d, %d and %d IDs, want 100, 100 and 3", len(first), len(second), len(id64s))
	}
	all := append(first, second...)
	for i, id := range all {
		if id.Worker() != 3 {
			t.Errorf("ID %s: worker %d, want 3", id, id.Worker())
		}
		if d := time.Since(id.Time()); d < -5*time.Second || d > time.Minute {
			t.Errorf("ID %s: time %v, %v from now", id, id.Time(), -d)
		}
		if i > 0 && all[i-1].Compare(id) >= 0 {
			t.Fatalf("ID %d, %s, does not follow %s: runs must increase", i, id, all[i-1])
		}
	}
	f, err := statefile.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec, ok := f.Sequence(newSequence128)
	_, ok64 := f.Sequence(newSequence)
	f.Close()
	if !ok || !ok64 || rec.Definition != "id128 worker=3" || rec.Last != second[len(second)-1].Tick() {
		t.Fatalf("state: id128 record %+v (%v), id64 record %v; want both, the id128 one of worker 3 ending at tick %d", rec, ok, ok64, second[len(second)-1].Tick())
	}

	// A killed run leaves its reservation ahead of the clock.
	store, err := workerid.OpenFile(workerid.FileConfig{Dir: dir, Name: newSequence128, Definition: localDefinition128(3)})
	if err != nil {
		t.Fatal(err)
	}
	reserved := uint64(time.Now().Add(newWindow).UnixMilli())
	if err := store.Save(workerid.Record{Reserved: reserved}); err != nil {
		t.Fatal(err)
	}
	store.Close()
	third := newIDs128(t, "-state", dir, "-worker", "3")
	if got := third[0].Tick(); got <= reserved {
		t.Errorf("run after a killed one issued tick %d, not above its reservation %d", got, reserved)
	}

	// The record keeps one worker: another one needs its own directory.
	got := newFails(t, "-format", "id128", "-state", dir, "-worker", "4")
	if !strings.Contains(got, `"id128 worker=4"`) || !strings.Contains(got, "give this one its own with -state") {
		t.Errorf("another worker on the record: %q", got)
	}
	if ids := newIDs128(t, "-state", t.TempDir(), "-worker", "4"); ids[0].Worker() != 4 {
		t.Errorf("worker %d, want 4", ids[0].Worker())
	}
}

func TestNew_ID128Flags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"worker above 65535", []string{"-format", "id128", "-worker", "65536"}, "-worker 65536: out of range: want 0..65535"},
		{"ticktock", []string{"-format", "id128", "-policy", "ticktock"}, "-policy ticktock: want wait, fail or borrow for id128"},
		{"worker with id64", []string{"-worker", "1"}, "-worker is for -format id128, not id64"},
		{"-w with id128", []string{"-format", "id128", "-w", "1"}, "-w is for -format id64, not id128"},
		{"-state with id80", []string{"-format", "id80", "-state", "x"}, "-state is for -format id64 or id128, not id80"},
		{"-wait with id96", []string{"-format", "id96", "-wait", "1s"}, "-wait is for -format id64 or id128, not id96"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(append([]string{"new"}, tt.args...), &out, &errOut)
			if code == 0 || !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want an error with %q", code, errOut.String(), tt.want)
			}
		})
	}
}
