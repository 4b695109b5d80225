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

func (c failingCatalog) Create(context.Context, string, string, ...workerid.TokenHash) (workerid.Sequence, error) {
	return workerid.Sequence{}, c.err
}
func (c failingCatalog) Get(context.Context, string) (workerid.Sequence, error) {
	return workerid.Sequence{}, c.err
}
func (c failingCatalog) List(context.Context) ([]workerid.Sequence, error) { return nil, c.err }
func (c failingCatalog) Destroy(context.Context, string) error             { return c.err }
func (c failingCatalog) WaitGone(ctx context.Context, _ string, _ int64) error {
	<-ctx.Done()
	return ctx.Err()
}

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
		{"catalog out of reach is ErrCatalog", context.Background(), sequencer.Config{Catalog: failingCatalog{boom}, Sources: workeridtest.NewMemCatalog(1).Source}, sequencer.ErrCatalog},
		{"catalog out of reach with a generation", context.Background(), sequencer.Config{Catalog: failingCatalog{boom}, Source: workerid.NewStatic(0, &memStore{}), Generation: 3}, sequencer.ErrCatalog},
		{"generation gone", context.Background(), sequencer.Config{Catalog: workeridtest.NewMemCatalog(1), Source: workerid.NewStatic(0, &memStore{}), Generation: 3}, sequencer.ErrDestroyed},
		{"source out of reach", context.Background(), sequencer.Config{Source: failingSource{boom}}, boom},
		{"source out of reach is ErrClaim", context.Background(), sequencer.Config{Source: failingSource{boom}}, sequencer.ErrClaim},
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

// A sequence destroyed while a member still serves it, as a partitioned
// member can until its lease's deadline, and created again: the new
// generation issues only above every tick the old one could issue, in the
// same definition or, by time, in another. Members that were serving or
// detached see the destroy from the catalog.
func TestSequencer_RecreatedFollowsRetired(t *testing.T) {
	cat := workeridtest.NewMemCatalog(2)
	ctx := context.Background()
	clock := floetest.NewClock(start)
	cfg := sequencer.Config{Catalog: cat, Sources: cat.Source, Clock: clock}
	old := open(t, cfg)
	idle := open(t, sequencer.Config{Catalog: cat, Sources: cat.Source, Clock: clock, Detached: true})
	next64(t, old, 100)
	reserved := old.Stats().Reserved

	if err := cat.Destroy(ctx, "orders"); err != nil { // by another member
		t.Fatal(err)
	}
	waitState(t, old, sequencer.Destroyed)
	waitState(t, idle, sequencer.Destroyed)
	if _, err := old.Next64(); !errors.Is(err, sequencer.ErrDestroyed) {
		t.Fatalf("Next64 after the destroy = %v, want ErrDestroyed", err)
	}

	tests := []struct {
		name string
		def  sequencer.Definition
	}{
		{"same definition", sequencer.Definition{}},
		{"another layout", sequencer.Definition{Layout: id64.Discord}},
	}
	prev := old.Definition()
	after := prev.TickTime(reserved + 1) // the end of the old generation's reservation
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fail := cfg
			fail.Definition, fail.Policy = tt.def, floe.Fail
			sq := open(t, fail)
			if sq.Generation() == old.Generation() {
				t.Fatalf("generation %d again", sq.Generation())
			}
			if err := sq.Ready(); !errors.Is(err, sequencer.ErrNotReady) {
				t.Fatalf("Ready before the retired reservation ran out = %v, want ErrNotReady", err)
			}
			if _, err := sq.Next64(); err == nil {
				t.Fatal("issued an ID inside the retired generation's reservation")
			}
			clock.Set(after)
			ids := next64(t, sq, 10)
			d := sq.Definition()
			for _, id := range ids {
				if got := d.TickTime(d.Layout.Parts(id).Tick); got.Before(after) {
					t.Fatalf("ID %d names %v, before the retired generation's end %v", id, got, after)
				}
			}
			r := sq.Stats().Reserved
			if err := sq.Destroy(ctx); err != nil {
				t.Fatal(err)
			}
			after = d.TickTime(r + 1)
		})
	}
}
