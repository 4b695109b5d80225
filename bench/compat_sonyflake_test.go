package bench

import (
	"fmt"
	"testing"
	"time"

	sonyflake1 "github.com/sony/sonyflake"
	"github.com/sony/sonyflake/v2"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
)

// sonyflakeMachine is the machine ID (floe's worker) of the tests.
const sonyflakeMachine = 513

// floeIDs makes n IDs of l on worker, from a fake clock at start stepped by
// one tick whenever a tick's sequence is spent, so that they span ticks.
func floeIDs(t *testing.T, l id64.Layout, worker uint64, start time.Time, n int) []id64.ID {
	t.Helper()
	clk := floetest.NewClock(start)
	g, err := id64.NewGenerator(id64.Config{Layout: l, Worker: worker, Clock: clk, Policy: floe.Fail})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]id64.ID, 0, n)
	for len(ids) < n {
		batch := make([]id64.ID, min(n-len(ids), int(l.MaxSequence()+1)))
		k, err := g.NextN(batch)
		if err != nil && k == 0 {
			t.Fatal(err)
		}
		ids = append(ids, batch[:k]...)
		clk.Step(l.Unit)
	}
	return ids
}

// sonyflakeParts are the fields of a sonyflake ID as sonyflake's Decompose
// returns them: time (ticks since the start time), sequence and machine.
type sonyflakeParts struct{ tick, sequence, machine uint64 }

// compareSonyflake reports a field on which floe's reading of id in l and
// sonyflake's differ.
func compareSonyflake(t *testing.T, l id64.Layout, id id64.ID, sf sonyflakeParts) {
	t.Helper()
	if err := l.CheckID(id); err != nil {
		t.Fatalf("%d: %v", id, err)
	}
	p := l.Parts(id)
	got := sonyflakeParts{p.Tick, p.Sequence, p.Worker}
	if got != sf {
		t.Fatalf("%d: floe reads time %d, sequence %d, machine %d; sonyflake's Decompose %d, %d, %d",
			id, got.tick, got.sequence, got.machine, sf.tick, sf.sequence, sf.machine)
	}
}

func decompose1(id uint64) sonyflakeParts {
	d := sonyflake1.Decompose(id)
	return sonyflakeParts{d["time"], d["sequence"], d["machine-id"]}
}

// TestSonyflake_V1 checks id64.Sonyflake against sony/sonyflake v1 both
// ways: IDs sonyflake makes read the same in floe, and IDs floe makes read
// the same in sonyflake's Decompose.
func TestSonyflake_V1(t *testing.T) {
	t.Run("sonyflake's IDs read by floe", func(t *testing.T) {
		sf, err := sonyflake1.New(sonyflake1.Settings{MachineID: func() (uint16, error) { return sonyflakeMachine, nil }})
		if err != nil {
			t.Fatal(err)
		}
		before := time.Now()
		for range 1000 {
			id, err := sf.NextID()
			if err != nil {
				t.Fatal(err)
			}
			compareSonyflake(t, id64.Sonyflake, id64.ID(id), decompose1(id))
			if at := id64.Sonyflake.Time(id64.ID(id)); at.Before(before.Add(-10*time.Millisecond)) || at.After(time.Now()) {
				t.Fatalf("%d: time %v, not between %v and now", id, at, before)
			}
		}
	})
	t.Run("floe's IDs read by sonyflake", func(t *testing.T) {
		start := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
		for _, id := range floeIDs(t, id64.Sonyflake, sonyflakeMachine, start, 1000) {
			compareSonyflake(t, id64.Sonyflake, id, decompose1(uint64(id)))
			if got, want := sonyflake1.ElapsedTime(uint64(id)), id64.Sonyflake.Time(id).Sub(id64.Sonyflake.Epoch); got != want {
				t.Fatalf("%d: sonyflake's ElapsedTime %v, floe's %v", id, got, want)
			}
		}
	})
}

// TestSonyflake_V2 checks floe against sony/sonyflake v2 with its default
// settings and with other widths and units, both ways: each v2 Settings
// is a layout written out, "Tt/Ss/Mw UNIT since START".
func TestSonyflake_V2(t *testing.T) {
	start := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		settings sonyflake.Settings
		layout   string // the layout floe reads the IDs with
	}{
		{"default", sonyflake.Settings{}, "39t/8s/16w 10ms since 2025-01-01"},
		{"1 ms, 12 sequence, 10 machine", sonyflake.Settings{BitsSequence: 12, BitsMachineID: 10, TimeUnit: time.Millisecond, StartTime: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
			"41t/12s/10w 1ms since 2024-01-01"},
		{"100 ms, 4 sequence, 20 machine", sonyflake.Settings{BitsSequence: 4, BitsMachineID: 20, TimeUnit: 100 * time.Millisecond, StartTime: time.Date(2020, 6, 1, 0, 0, 0, 0, time.UTC)},
			"39t/4s/20w 100ms since 2020-06-01"},
		{"2 ms, 20 sequence, 8 machine", sonyflake.Settings{BitsSequence: 20, BitsMachineID: 8, TimeUnit: 2 * time.Millisecond, StartTime: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)},
			"35t/20s/8w 2ms since 2025-01-01"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.settings
			machine := sonyflakeMachine % (1 << cmpOr(st.BitsMachineID, 16))
			st.MachineID = func() (int, error) { return machine, nil }
			sf, err := sonyflake.New(st)
			if err != nil {
				t.Fatal(err)
			}
			l, err := id64.ParseLayout(tc.layout)
			if err != nil {
				t.Fatal(err)
			}
			// The layout as the settings describe it, built from them.
			bs, bm, unit := cmpOr(st.BitsSequence, 8), cmpOr(st.BitsMachineID, 16), cmpOr(st.TimeUnit, 10*time.Millisecond)
			startTime := st.StartTime
			if startTime.IsZero() {
				startTime = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			}
			built, err := id64.ParseLayout(fmt.Sprintf("%dt/%ds/%dw %v since %s", 63-bs-bm, bs, bm, unit, startTime.Format(time.RFC3339Nano)))
			if err != nil || !built.Equal(l) {
				t.Fatalf("layout of the settings = %v, %v; want %v", built, err, l)
			}
			decompose := func(id id64.ID) sonyflakeParts {
				d := sf.Decompose(int64(id))
				return sonyflakeParts{uint64(d["time"]), uint64(d["sequence"]), uint64(d["machine"])}
			}
			// Two ticks' worth, at most 500: sonyflake sleeps out the rest
			// of a tick whose sequence is spent.
			for range min(500, 2*(l.MaxSequence()+1)) {
				id, err := sf.NextID()
				if err != nil {
					t.Fatal(err)
				}
				compareSonyflake(t, l, id64.ID(id), decompose(id64.ID(id)))
			}
			for _, id := range floeIDs(t, l, uint64(machine), start, 1000) {
				compareSonyflake(t, l, id, decompose(id))
				if got, want := sf.ToTime(int64(id)), l.Time(id); !got.Equal(want) {
					t.Fatalf("%d: sonyflake's ToTime %v, floe's %v", id, got, want)
				}
				p := l.Parts(id)
				if got, err := sf.Compose(p.Time, int(p.Sequence), int(p.Worker)); err != nil || got != int64(id) {
					t.Fatalf("sonyflake's Compose(%v, %d, %d) = %d, %v; floe made %d", p.Time, p.Sequence, p.Worker, got, err, id)
				}
			}
		})
	}
}

// cmpOr returns v, or def when v is zero (sonyflake's defaults).
func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
