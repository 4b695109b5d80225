package sequencer_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
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
	t.Run("text", func(t *testing.T) {
		for _, f := range []sequencer.Format{sequencer.Format64, sequencer.Format80, sequencer.Format96} {
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
	dst := make([]id64.ID, 16)
	buf := make([]byte, 0, 32)
	tests := []struct {
		name string
		f    func() error
	}{
		{"Next64", func() error { _, err := seq64.Next64(); return err }},
		{"NextN64", func() error { _, err := seq64.NextN64(dst); return err }},
		{"Next80", func() error { _, err := seq80.Next80(0); return err }},
		{"Next96", func() error { _, err := seq96.Next96(); return err }},
		{"AppendNext", func() error { _, err := seq64.AppendNext(buf[:0]); return err }},
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
