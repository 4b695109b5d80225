package sequencer_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
)

var start = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// open opens a sequencer on cfg, named "orders" on a fake clock at start
// and one worker ID in memory unless cfg says otherwise, and closes it at
// the end of the test.
func open(t *testing.T, cfg sequencer.Config) *sequencer.Sequencer {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "orders"
	}
	if cfg.Clock == nil {
		cfg.Clock = floetest.NewClock(start)
	}
	if cfg.Source == nil && cfg.Catalog == nil {
		cfg.Source = workeridtest.NewMemSource(1)
	}
	sq, err := sequencer.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sq.Close(context.Background()) })
	return sq
}

// waitState waits up to 10 s for sq to reach want.
func waitState(t *testing.T, sq *sequencer.Sequencer, want sequencer.State) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := sq.Wait(ctx, want); err != nil {
		st, why := sq.State()
		t.Fatalf("state %s (%s), want %s: %v", st, why, want, err)
	}
}

func tick(id id64.ID) uint64 { return id64.Twitter.Parts(id).Tick }

// next64 returns n IDs of sq, failing the test on an error.
func next64(t *testing.T, sq *sequencer.Sequencer, n int) []id64.ID {
	t.Helper()
	ids := make([]id64.ID, n)
	if got, err := sq.NextN64(ids); err != nil || got != n {
		t.Fatalf("NextN64 = %d, %v; want %d IDs", got, err, n)
	}
	return ids
}

// failingCatalog is a catalog out of reach.
type failingCatalog struct{ err error }

func (c failingCatalog) Create(context.Context, string, string) (workerid.Sequence, error) {
	return workerid.Sequence{}, c.err
}
func (c failingCatalog) Get(context.Context, string) (workerid.Sequence, error) {
	return workerid.Sequence{}, c.err
}
func (c failingCatalog) List(context.Context) ([]workerid.Sequence, error) { return nil, c.err }
func (c failingCatalog) Destroy(context.Context, string) error             { return c.err }

// failingSource is a coordinator out of reach.
type failingSource struct{ err error }

func (s failingSource) Claim(context.Context) (workerid.Lease, error) { return nil, s.err }

func TestOpen_Refuses(t *testing.T) {
	cat := workeridtest.NewMemCatalog(1)
	tests := []struct {
		name string
		cfg  sequencer.Config
		want error
	}{
		{"empty name", sequencer.Config{Name: ""}, sequencer.ErrName},
		{"name with a slash", sequencer.Config{Name: "a/b"}, sequencer.ErrName},
		{"name dot dot", sequencer.Config{Name: ".."}, sequencer.ErrName},
		{"name of 65 bytes", sequencer.Config{Name: strings.Repeat("a", 65)}, sequencer.ErrName},
		{"unknown format", sequencer.Config{Definition: sequencer.Definition{Format: "id65"}}, sequencer.ErrDefinition},
		{"layout for id96", sequencer.Config{Definition: sequencer.Definition{Format: sequencer.Format96, Layout: id64.Twitter}}, sequencer.ErrDefinition},
		{"invalid layout", sequencer.Config{Definition: sequencer.Definition{Layout: id64.Layout{Unit: time.Millisecond, TimeBits: 41, SequenceBits: 12}}}, sequencer.ErrDefinition},
		{"no source", sequencer.Config{}, sequencer.ErrConfig},
		{"catalog without sources", sequencer.Config{Catalog: cat}, sequencer.ErrConfig},
		{"source and catalog without generation", sequencer.Config{Catalog: cat, Source: workeridtest.NewMemSource(1)}, sequencer.ErrConfig},
		{"generation without catalog", sequencer.Config{Generation: 3, Source: workeridtest.NewMemSource(1)}, sequencer.ErrConfig},
		{"policy ticktock", sequencer.Config{Policy: floe.TickTock}, sequencer.ErrConfig},
		{"window below the minimum", sequencer.Config{Window: time.Millisecond}, sequencer.ErrConfig},
		{"negative max wait", sequencer.Config{MaxWait: -time.Second}, sequencer.ErrConfig},
		{"negative claim timeout", sequencer.Config{ClaimTimeout: -time.Second}, sequencer.ErrConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := workeridtest.NewMemSource(1)
			cfg := tt.cfg
			if cfg.Name == "" && tt.want != sequencer.ErrName {
				cfg.Name = "orders"
			}
			if cfg.Source == nil && cfg.Catalog == nil && tt.name != "no source" {
				cfg.Source = ns
			}
			sq, err := sequencer.Open(context.Background(), cfg)
			if !errors.Is(err, tt.want) {
				if sq != nil {
					sq.Close(context.Background())
				}
				t.Fatalf("Open = %v, want %v", err, tt.want)
			}
			if ns.Holder(0) != nil {
				t.Error("a refused configuration claimed a worker ID")
			}
		})
	}
}

func TestOpen_Unreachable(t *testing.T) {
	boom := errors.New("connection refused")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		cfg  sequencer.Config
		want error
	}{
		{"catalog out of reach", context.Background(), sequencer.Config{Catalog: failingCatalog{boom}, Sources: workeridtest.NewMemCatalog(1).Source}, boom},
		{"source out of reach", context.Background(), sequencer.Config{Source: failingSource{boom}}, boom},
		{"context ended", cancelled, sequencer.Config{Source: workerid.NewStatic(0, &memStore{})}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Name = "orders"
			tt.cfg.Clock = floetest.NewClock(start)
			sq, err := sequencer.Open(tt.ctx, tt.cfg)
			if !errors.Is(err, tt.want) {
				if sq != nil {
					sq.Close(context.Background())
				}
				t.Fatalf("Open = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestOpen_CatalogDefinesOtherwise(t *testing.T) {
	cat := workeridtest.NewMemCatalog(4)
	open(t, sequencer.Config{Catalog: cat, Sources: cat.Source})
	_, err := sequencer.Open(context.Background(), sequencer.Config{
		Name: "orders", Definition: sequencer.Definition{Format: sequencer.Format80},
		Catalog: cat, Sources: cat.Source, Clock: floetest.NewClock(start),
	})
	var de *sequencer.DefinitionError
	if !errors.As(err, &de) {
		t.Fatalf("Open with another definition = %v, want a *DefinitionError", err)
	}
	if !errors.Is(err, sequencer.ErrDefinition) || !errors.Is(err, workerid.ErrConflict) {
		t.Errorf("%v: want ErrDefinition and workerid.ErrConflict", err)
	}
	if de.Name != "orders" || de.Given != `{"format":"id80"}` || !strings.Contains(de.Catalog, `"format":"id64"`) {
		t.Errorf("DefinitionError %+v", de)
	}
}

func TestSequencer_StartsAboveFloor(t *testing.T) {
	base, _ := id64.Twitter.Tick(start)
	tests := []struct {
		name string
		// prepare leaves the worker ID as a previous holder did and
		// returns the floor the next holder must start above.
		prepare func(t *testing.T, ns *workeridtest.MemSource) uint64
		floor   time.Time
	}{
		{"above the recorded reservation", func(t *testing.T, ns *workeridtest.MemSource) uint64 {
			l, _ := ns.Claim(context.Background())
			if err := l.Reserve(context.Background(), base+2000); err != nil {
				t.Fatal(err)
			}
			ns.Lose(l.ID()) // a crash: nothing recorded but R
			return base + 2000
		}, time.Time{}},
		{"above the last tick of a clean release", func(t *testing.T, ns *workeridtest.MemSource) uint64 {
			l, _ := ns.Claim(context.Background())
			if err := l.Reserve(context.Background(), base+2000); err != nil {
				t.Fatal(err)
			}
			l.Release(context.Background(), base+100)
			return base + 100
		}, time.Time{}},
		{"above the time of death", func(t *testing.T, ns *workeridtest.MemSource) uint64 {
			return base + 1500
		}, id64.Twitter.TickTime(base + 1500)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := workeridtest.NewMemSource(1)
			floor := tt.prepare(t, ns)
			clock := floetest.NewClock(start)
			sq := open(t, sequencer.Config{Source: ns, Clock: clock, Floor: tt.floor})
			err := sq.Ready()
			if !errors.Is(err, sequencer.ErrNotReady) || !strings.Contains(err.Error(), "behind the reservation") {
				t.Errorf("Ready() with the clock behind the floor = %v, want ErrNotReady naming it", err)
			}
			// Policy Wait waits on the clock, which the fake one skips.
			id, err := sq.Next64()
			if err != nil {
				t.Fatal(err)
			}
			if got := tick(id); got != floor+1 {
				t.Errorf("first ID at tick %d, want right above the floor %d", got, floor)
			}
			if err := sq.Ready(); err != nil {
				t.Errorf("Ready() once past the floor = %v", err)
			}
		})
	}
}

func TestSequencer_NeverAboveReservation(t *testing.T) {
	const window = time.Second
	clock := floetest.NewClock(start)
	ns := workeridtest.NewMemSource(1)
	sq := open(t, sequencer.Config{Source: ns, Clock: clock, Window: window, MaxWait: 20 * time.Millisecond})
	checker := floetest.NewChecker[id64.ID](0)
	// Two minutes of the clock in 50 ms steps: the keeper follows, and no
	// ID passes the durable reservation.
	for range 2400 {
		clock.Step(50 * time.Millisecond)
		ids := next64(t, sq, 20)
		checker.Add(ids...)
		r := ns.Holder(0).Reserved()
		for _, id := range ids {
			if tick(id) > r {
				t.Fatalf("ID at tick %d above the durable reservation %d", tick(id), r)
			}
		}
		if h := sq.Stats().Headroom; h > window {
			t.Fatalf("reservation %v ahead of the clock, more than the %v window", h, window)
		}
	}
	if err := checker.Err(); err != nil {
		t.Fatal(err)
	}
	// The coordinator refuses every write: issuing stops at the last R.
	ns.Refuse(errors.New("coordinator out of reach"))
	r := ns.Holder(0).Reserved()
	clock.Step(3 * window)
	var ce *floe.CeilingError
	if _, err := sq.Next64(); !errors.As(err, &ce) {
		t.Fatalf("Next64 past a reservation that cannot be extended = %v, want a *floe.CeilingError", err)
	}
	if got := ns.Holder(0).Reserved(); got != r {
		t.Fatalf("reservation moved from %d to %d while refused", r, got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for sq.Ready() == nil || sq.Stats().WriteErrors == 0 {
		if time.Now().After(deadline) {
			t.Fatal("ready while the reservation cannot be extended")
		}
		time.Sleep(time.Millisecond)
	}
	if err := sq.Ready(); !strings.Contains(err.Error(), "cannot be extended") {
		t.Errorf("Ready() = %v, want the reservation named", err)
	}
	// The coordinator is back: the keeper's next try extends R.
	ns.Refuse(nil)
	sq2 := sq
	if _, err := sq2.Next64(); err != nil {
		deadline := time.Now().Add(10 * time.Second)
		for err != nil && time.Now().Before(deadline) {
			_, err = sq2.Next64()
		}
		if err != nil {
			t.Fatalf("Next64 after the coordinator came back: %v", err)
		}
	}
}

func TestSequencer_LossStopsIssuing(t *testing.T) {
	tests := []struct {
		name string
		// lose ends the sequencer's lease and returns a function that
		// lets it claim the worker ID again.
		lose func(t *testing.T, ns *workeridtest.MemSource, clock *floetest.Clock) (again func())
	}{
		{"taken over", func(t *testing.T, ns *workeridtest.MemSource, clock *floetest.Clock) func() {
			thief := ns.Steal(0)
			return func() { thief.Release(context.Background(), 0) }
		}},
		{"a reservation of unknown result", func(t *testing.T, ns *workeridtest.MemSource, clock *floetest.Clock) func() {
			ns.Refuse(&workerid.LeaseLostError{ID: 0, Fence: 1, Err: errors.New("timeout")})
			clock.Step(time.Second) // the keeper must write
			return func() {
				ns.Refuse(nil)
				ns.Lose(0) // the coordinator frees the ID
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := floetest.NewClock(start)
			ns := workeridtest.NewMemSource(1)
			sq := open(t, sequencer.Config{Source: ns, Clock: clock, Window: time.Second})
			checker := floetest.NewChecker[id64.ID](0)
			checker.Add(next64(t, sq, 100)...)
			again := tt.lose(t, ns, clock)
			r := ns.Holder(0).Reserved()
			waitState(t, sq, sequencer.Claiming)
			_, err := sq.Next64()
			var nr *sequencer.NotReadyError
			if !errors.As(err, &nr) || nr.State != sequencer.Claiming || !errors.Is(err, sequencer.ErrNotReady) {
				t.Fatalf("Next64 after the loss = %v, want a *NotReadyError while claiming", err)
			}
			if got := sq.Stats().Losses; got != 1 {
				t.Errorf("Losses = %d, want 1", got)
			}
			// Claimed again in the background, it starts above R.
			again()
			waitState(t, sq, sequencer.Serving)
			ids := next64(t, sq, 100)
			if tick(ids[0]) <= r {
				t.Errorf("first ID after the new claim at tick %d, not above R %d", tick(ids[0]), r)
			}
			checker.Add(ids...)
			if err := checker.Err(); err != nil {
				t.Fatal(err)
			}
			if st := sq.Stats(); st.Claims != 2 || st.WorkerID != 0 {
				t.Errorf("stats %+v, want 2 claims and worker ID 0", st)
			}
		})
	}
}

func TestSequencer_DetachAttach(t *testing.T) {
	clock := floetest.NewClock(start)
	ns := workeridtest.NewMemSource(1)
	sq := open(t, sequencer.Config{Source: ns, Clock: clock})
	ctx := context.Background()
	checker := floetest.NewChecker[id64.ID](0)
	var prev id64.ID
	for round := range 5 {
		ids := next64(t, sq, 10)
		if ids[0] <= prev {
			t.Fatalf("round %d: %d after %d", round, ids[0], prev)
		}
		prev = ids[9]
		checker.Add(ids...)
		for range 2 { // a second Detach changes nothing
			if err := sq.Detach(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if st, why := sq.State(); st != sequencer.Detached || why != "detached" {
			t.Fatalf("round %d: state %s (%s), want detached", round, st, why)
		}
		if _, err := sq.Next64(); !errors.Is(err, sequencer.ErrDetached) {
			t.Fatalf("round %d: Next64 while detached = %v, want ErrDetached", round, err)
		}
		if ns.Holder(0) != nil {
			t.Fatalf("round %d: the worker ID is still held after Detach", round)
		}
		if got := ns.Released(); len(got) != round+1 || got[round] != tick(ids[9]) {
			t.Fatalf("round %d: releases recorded last ticks %v, want %d last", round, got, tick(ids[9]))
		}
		for range 2 { // a second Attach changes nothing
			if err := sq.Attach(ctx); err != nil {
				t.Fatal(err)
			}
		}
		waitState(t, sq, sequencer.Serving)
		// The release recorded the last tick: serving resumes one tick
		// later, without waiting out the reservation.
		clock.Step(time.Millisecond)
		if err := sq.Ready(); err != nil {
			t.Fatalf("round %d: not ready a tick after the last one: %v", round, err)
		}
	}
	if err := checker.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestSequencer_CloseReleasesLastTick(t *testing.T) {
	ns := workeridtest.NewMemSource(1)
	sq := open(t, sequencer.Config{Source: ns})
	ids := next64(t, sq, 5)
	if err := sq.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	last := tick(ids[4])
	if got := ns.Released(); len(got) != 1 || got[0] != last {
		t.Fatalf("Close released with last ticks %v, want [%d]", got, last)
	}
	if st, _ := sq.State(); st != sequencer.Closed {
		t.Errorf("state %s after Close", st)
	}
	if _, err := sq.Next64(); !errors.Is(err, sequencer.ErrClosed) {
		t.Errorf("Next64 after Close = %v, want ErrClosed", err)
	}
	if err := sq.Attach(context.Background()); !errors.Is(err, sequencer.ErrClosed) {
		t.Errorf("Attach after Close = %v, want ErrClosed", err)
	}
	if err := sq.Close(context.Background()); err != nil {
		t.Errorf("second Close = %v", err)
	}
	// The next holder starts right above the last tick.
	l, err := ns.Claim(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Floor(); got != last {
		t.Fatalf("next floor %d, want %d", got, last)
	}
}

func TestSequencer_OrphanReleasesNothing(t *testing.T) {
	ns := workeridtest.NewMemSource(1)
	sq := open(t, sequencer.Config{Source: ns})
	next64(t, sq, 5)
	sq.Orphan()
	if _, err := sq.Next64(); !errors.Is(err, sequencer.ErrClosed) {
		t.Errorf("Next64 after Orphan = %v, want ErrClosed", err)
	}
	if got := ns.Released(); len(got) != 0 {
		t.Errorf("Orphan released with last ticks %v", got)
	}
	r := ns.Holder(0).Reserved()
	ns.Lose(0) // its lease runs out
	l, err := ns.Claim(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Floor(); got != r {
		t.Errorf("next floor %d, want the reservation %d", got, r)
	}
}

// TestSequencer_ReleaseCoversCallsInProgress issues from several
// goroutines while the sequencer loses its lease, detaches, attaches and
// finally closes: no ID repeats, and the last tick of the final release is
// at or above every ID returned, so the next holder repeats none.
func TestSequencer_ReleaseCoversCallsInProgress(t *testing.T) {
	clock := floetest.NewClock(start)
	ns := workeridtest.NewMemSource(1)
	sq := open(t, sequencer.Config{Source: ns, Clock: clock, Policy: floe.Borrow, MaxAhead: time.Hour})
	ctx := context.Background()
	var wg sync.WaitGroup
	got := make([][]id64.ID, 4)
	stop := make(chan struct{})
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if id, err := sq.Next64(); err == nil {
					got[g] = append(got[g], id)
				} else if errors.Is(err, sequencer.ErrClosed) {
					return
				}
			}
		}()
	}
	for i := range 20 {
		clock.Step(time.Millisecond)
		if i%2 == 0 {
			ns.Lose(0)
		} else {
			sq.Detach(ctx)
			sq.Attach(ctx)
		}
		waitState(t, sq, sequencer.Serving)
	}
	if err := sq.Close(ctx); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	l, err := ns.Claim(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var all []id64.ID
	for _, ids := range got {
		all = append(all, ids...)
	}
	if len(all) == 0 {
		t.Fatal("no IDs issued")
	}
	if err := floetest.Unique(all); err != nil {
		t.Fatal(err)
	}
	for _, id := range all {
		if tick(id) > l.Floor() {
			t.Fatalf("ID at tick %d returned, above the last tick %d the release recorded", tick(id), l.Floor())
		}
	}
}

func TestSequencer_Static(t *testing.T) {
	store := &memStore{}
	clock := floetest.NewClock(start)
	cfg := sequencer.Config{Source: workerid.NewStatic(37, store), Clock: clock, Window: 10 * time.Second}
	sq := open(t, cfg)
	ids := next64(t, sq, 5)
	if p := id64.Twitter.Parts(ids[0]); p.Datacenter != 1 || p.Worker != 5 {
		t.Errorf("worker ID 37 issued as datacenter %d worker %d, want 1 and 5", p.Datacenter, p.Worker)
	}
	if err := sq.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec := store.get()
	if rec.Last != tick(ids[4]) || rec.Reserved < tick(ids[4])+10000-1 {
		t.Fatalf("record %+v: want Last %d and the reservation kept", rec, tick(ids[4]))
	}
	// The next run starts right above Last, not after the window.
	clock.Step(time.Millisecond)
	cfg.Source = workerid.NewStatic(37, store)
	sq = open(t, cfg)
	if err := sq.Ready(); err != nil {
		t.Fatalf("not ready right after a clean stop: %v", err)
	}
	if more := next64(t, sq, 1); more[0] <= ids[4] {
		t.Errorf("after the restart %d, not above %d", more[0], ids[4])
	}
	// A Close whose context ended records nothing: the next run starts
	// above the reservation.
	r := store.get().Reserved
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sq.Close(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("Close with an ended context = %v, want context.Canceled", err)
	}
	if got := store.get(); got.Last != 0 || got.Reserved != r {
		t.Errorf("record %+v after a cut-short Close, want R %d and no last tick", got, r)
	}
}

func TestSequencer_CatalogDestroy(t *testing.T) {
	cat := workeridtest.NewMemCatalog(2)
	ctx := context.Background()
	cfg := sequencer.Config{Catalog: cat, Sources: cat.Source}
	a, b := open(t, cfg), open(t, cfg)
	if a.Generation() == 0 || a.Generation() != b.Generation() {
		t.Fatalf("generations %d and %d", a.Generation(), b.Generation())
	}
	if wa, wb := a.Stats().WorkerID, b.Stats().WorkerID; wa == wb {
		t.Fatalf("both hold worker ID %d", wa)
	}
	// A third member finds every worker ID held: a standby.
	c := open(t, cfg)
	if st, why := c.State(); st != sequencer.Claiming || !strings.Contains(why, "every worker ID is held") {
		t.Fatalf("standby state %s (%s)", st, why)
	}
	if err := a.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := a.State(); st != sequencer.Destroyed {
		t.Errorf("state %s after Destroy", st)
	}
	// The others lose their leases or fail their claims, and find the
	// generation gone from the catalog.
	for _, sq := range []*sequencer.Sequencer{a, b, c} {
		waitState(t, sq, sequencer.Destroyed)
		if _, err := sq.Next64(); !errors.Is(err, sequencer.ErrDestroyed) {
			t.Errorf("Next64 of a destroyed sequence = %v, want ErrDestroyed", err)
		}
		if err := sq.Attach(ctx); !errors.Is(err, sequencer.ErrDestroyed) {
			t.Errorf("Attach of a destroyed sequence = %v, want ErrDestroyed", err)
		}
	}
	if _, err := cat.Get(ctx, "orders"); !errors.Is(err, workerid.ErrNotFound) {
		t.Errorf("the catalog still has the destroyed sequence: %v", err)
	}
	// Created again, it is a new generation with its own worker IDs.
	d := open(t, cfg)
	if d.Generation() == a.Generation() {
		t.Errorf("generation %d again", d.Generation())
	}
	next64(t, d, 1)
}

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

func TestSequencer_Wait(t *testing.T) {
	sq := open(t, sequencer.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if st, err := sq.Wait(ctx, sequencer.Detached); !errors.Is(err, context.Canceled) || st != sequencer.Serving {
		t.Errorf("Wait with an ended context = %s, %v", st, err)
	}
	changed := sq.Changes()
	if err := sq.Detach(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	default:
		t.Error("Changes not closed by Detach")
	}
	sq.Close(context.Background())
	if st, err := sq.Wait(context.Background(), sequencer.Serving); !errors.Is(err, sequencer.ErrClosed) || st != sequencer.Closed {
		t.Errorf("Wait for serving on a closed sequencer = %s, %v; want closed and ErrClosed", st, err)
	}
}

// memStore is a workerid.Store in memory.
type memStore struct {
	mu  sync.Mutex
	rec workerid.Record
	ok  bool
}

func (m *memStore) Load() (workerid.Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rec, m.ok, nil
}

func (m *memStore) Save(rec workerid.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if rec.Reserved < m.rec.Reserved {
		return workerid.ErrBackwards
	}
	m.rec, m.ok = rec, true
	return nil
}

func (m *memStore) get() workerid.Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rec
}
