package sequencer_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid/workeridtest"
)

func TestSequencer_Formats(t *testing.T) {
	t.Run("id80", func(t *testing.T) {
		sq := open(t, sequencer.Config{Definition: sequencer.Definition{Format: sequencer.Format80}, Source: workeridtest.NewMemSource(3)})
		a, err := sq.Next80(7)
		if err != nil {
			t.Fatal(err)
		}
		b, err := sq.Next80(7)
		if err != nil {
			t.Fatal(err)
		}
		if a.Compare(b) >= 0 || a.Parts().Partition.Uint16() != 0 || a.Parts().Meta != 7 {
			t.Errorf("IDs %v then %v: want increasing, partition 0 and meta 7", a.Parts(), b.Parts())
		}
		if _, err := sq.Next64(); !errors.Is(err, sequencer.ErrFormat) {
			t.Errorf("Next64 of id80 = %v, want ErrFormat", err)
		}
	})
	t.Run("id96", func(t *testing.T) {
		sq := open(t, sequencer.Config{Definition: sequencer.Definition{Format: sequencer.Format96}, Source: workeridtest.NewMemSource(3)})
		a, err := sq.Next96()
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Parts().Node; got != 1 {
			t.Errorf("worker ID 0 issued as node %d, want 1", got)
		}
		if _, err := sq.NextN64(make([]id64.ID, 3)); !errors.Is(err, sequencer.ErrFormat) {
			t.Errorf("NextN64 of id96 = %v, want ErrFormat", err)
		}
		if _, err := sq.Next80(0); !errors.Is(err, sequencer.ErrFormat) {
			t.Errorf("Next80 of id96 = %v, want ErrFormat", err)
		}
	})
	t.Run("id128", func(t *testing.T) {
		sq := open(t, sequencer.Config{Definition: sequencer.Definition{Format: sequencer.Format128}, Source: workeridtest.NewMemSource(3)})
		a, err := sq.Next128()
		if err != nil {
			t.Fatal(err)
		}
		b, err := sq.Next128()
		if err != nil {
			t.Fatal(err)
		}
		if a.Compare(b) >= 0 || a.Worker() != 0 || b.Worker() != 0 {
			t.Errorf("IDs %v then %v: want increasing, worker 0", a.Parts(), b.Parts())
		}
		if _, err := sq.Next96(); !errors.Is(err, sequencer.ErrFormat) {
			t.Errorf("Next96 of id128 = %v, want ErrFormat", err)
		}
		if _, err := sq.Next64(); !errors.Is(err, sequencer.ErrFormat) {
			t.Errorf("Next64 of id128 = %v, want ErrFormat", err)
		}
		seq96 := open(t, sequencer.Config{Definition: sequencer.Definition{Format: sequencer.Format96}, Source: workeridtest.NewMemSource(3)})
		if _, err := seq96.Next128(); !errors.Is(err, sequencer.ErrFormat) {
			t.Errorf("Next128 of id96 = %v, want ErrFormat", err)
		}
		text, err := sq.AppendNext(nil)
		if err != nil {
			t.Fatal(err)
		}
		id, err := id128.Parse(string(text))
		if err != nil {
			t.Fatalf("AppendNext = %q: %v", text, err)
		}
		if string(text) != id.String() || id.Compare(b) <= 0 {
			t.Errorf("AppendNext = %q, want the canonical text of an ID after %v", text, b)
		}
	})
	t.Run("text", func(t *testing.T) {
		for _, f := range []sequencer.Format{sequencer.Format64, sequencer.Format80, sequencer.Format96, sequencer.Format128} {
			sq := open(t, sequencer.Config{Definition: sequencer.Definition{Format: f}})
			text, err := sq.AppendNext(nil)
			if err != nil || len(text) == 0 {
				t.Errorf("%s: AppendNext = %q, %v", f, text, err)
			}
		}
	})
}

func TestSequencer_NextAllocs(t *testing.T) {
	seq64 := open(t, sequencer.Config{Window: time.Hour})
	seq80 := open(t, sequencer.Config{Definition: sequencer.Definition{Format: sequencer.Format80}, Window: time.Hour})
	seq96 := open(t, sequencer.Config{Definition: sequencer.Definition{Format: sequencer.Format96}, Window: time.Hour})
	seq128 := open(t, sequencer.Config{Definition: sequencer.Definition{Format: sequencer.Format128}, Window: time.Hour})
	dst := make([]id64.ID, 16)
	buf := make([]byte, 0, 64)
	tests := []struct {
		name string
		f    func() error
	}{
		{"Next64", func() error { _, err := seq64.Next64(); return err }},
		{"NextN64", func() error { _, err := seq64.NextN64(dst); return err }},
		{"Next80", func() error { _, err := seq80.Next80(0); return err }},
		{"Next96", func() error { _, err := seq96.Next96(); return err }},
		{"Next128", func() error { _, err := seq128.Next128(); return err }},
		{"AppendNext", func() error { _, err := seq64.AppendNext(buf[:0]); return err }},
		{"AppendNext of id128", func() error { _, err := seq128.AppendNext(buf[:0]); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if got := testing.AllocsPerRun(100, func() { err = tt.f() }); got != 0 {
				t.Errorf("%v allocations per call, want 0", got)
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSequencer_NextContextBoundsTheWait checks that a context ends the
// wait at a reservation that cannot be extended before MaxWait does: at
// its deadline, or when it is cancelled.
func TestSequencer_NextContextBoundsTheWait(t *testing.T) {
	const maxWait = time.Minute
	tests := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}},
		{"cancelled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := floetest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
			src := workeridtest.NewMemSource(1)
			sq := open(t, sequencer.Config{Source: src, Clock: clock, Window: time.Second, MaxWait: maxWait})
			src.Refuse(errors.New("no space left on device"))
			clock.Step(time.Hour)
			ctx, cancel := tt.ctx()
			defer cancel()
			start := time.Now()
			n, err := sq.NextN64Context(ctx, make([]id64.ID, 2))
			var ce *floe.CeilingError
			if n != 0 || !errors.As(err, &ce) {
				t.Fatalf("NextN64Context = %d, %v; want 0 and a *floe.CeilingError", n, err)
			}
			// Generous for a loaded machine, far below MaxWait.
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("waited %v, want about 100 ms (the context's end), not MaxWait %v", d, maxWait)
			}
			if _, err := sq.AppendNextContext(ctx, nil); !errors.As(err, &ce) {
				t.Errorf("AppendNextContext with the context ended = %v, want a *floe.CeilingError at once", err)
			}
		})
	}
}

// TestSequencer_ReservationOfID128: an id128 sequence keeps its floor and
// reservation in Unix milliseconds, the time field of its IDs, and puts
// the worker ID it holds in their worker field.
func TestSequencer_ReservationOfID128(t *testing.T) {
	ms := uint64(start.UnixMilli())
	ns := workeridtest.NewMemSource(2)
	// Worker ID 0's last holder crashed with a reservation 2 s ahead.
	l, err := ns.Claim(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Reserve(context.Background(), ms+2000); err != nil {
		t.Fatal(err)
	}
	ns.Lose(l.ID())
	def := sequencer.Definition{Format: sequencer.Format128}
	a := open(t, sequencer.Config{Definition: def, Source: ns, Window: 5 * time.Second, Policy: floe.Borrow, MaxAhead: 10 * time.Second})
	b := open(t, sequencer.Config{Definition: def, Source: ns, Window: 5 * time.Second})
	idA, err := a.Next128()
	if err != nil {
		t.Fatal(err)
	}
	idB, err := b.Next128()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := idA.Tick(), ms+2001; got != want {
		t.Errorf("first tick of worker ID 0 = %d, want %d (just above its reservation)", got, want)
	}
	if got, want := idB.Tick(), ms; got != want {
		t.Errorf("first tick of worker ID 1 = %d, want %d (the clock's millisecond)", got, want)
	}
	if idA.Worker() != 0 || idB.Worker() != 1 {
		t.Errorf("workers %d and %d, want 0 and 1", idA.Worker(), idB.Worker())
	}
	st := b.Stats()
	if st.WorkerID != 1 || st.Floor != 0 || st.LastTick != ms {
		t.Errorf("Stats of worker ID 1: worker %d, floor %d, last tick %d; want 1, 0, %d", st.WorkerID, st.Floor, st.LastTick, ms)
	}
	if got, want := st.Reserved, ms+5000-1; got != want {
		t.Errorf("Reserved = %d, want %d (a 5 s window of milliseconds)", got, want)
	}
	if st.Headroom != 5*time.Second {
		t.Errorf("Headroom = %v, want 5s", st.Headroom)
	}
	if st.Generator.Issued != 1 {
		t.Errorf("Generator.Issued = %d, want 1", st.Generator.Issued)
	}
}
