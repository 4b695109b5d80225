package sequencer_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
)

// A sequence of snowcast's layout for 128 nodes, created in a cluster's
// catalog (in memory here; etcd.Catalog or redis.Catalog in production).
// The fake clock makes the output the same at every run.
func ExampleOpen() {
	ctx := context.Background()
	catalog := workeridtest.NewMemCatalog(128)
	def, err := sequencer.Snowcast(time.Date(2014, 1, 1, 0, 0, 0, 0, time.UTC), 128)
	if err != nil {
		fmt.Println(err)
		return
	}
	sq, err := sequencer.Open(ctx, sequencer.Config{
		Name:       "orders",
		Definition: def,
		Catalog:    catalog,
		Sources:    catalog.Source,
		Clock:      floetest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sq.Close(ctx)

	id, err := sq.Next64()
	if err != nil {
		fmt.Println(err)
		return
	}
	p := def.Layout.Parts(id)
	st, _ := sq.State()
	fmt.Println(st, "as worker", sq.Stats().WorkerID)
	fmt.Println(id, p.Time, "node", p.Node, "sequence", p.Sequence)
	// Output:
	// serving as worker 0
	// 3177509457756160000 2026-01-02 03:04:05 +0000 UTC node 0 sequence 0
}

// Opening a sequence the catalog defines otherwise is an error, as in
// snowcast.
func ExampleDefinitionError() {
	ctx := context.Background()
	catalog := workeridtest.NewMemCatalog(8)
	a, err := sequencer.Open(ctx, sequencer.Config{Name: "orders", Catalog: catalog, Sources: catalog.Source})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close(ctx)

	_, err = sequencer.Open(ctx, sequencer.Config{
		Name:       "orders",
		Definition: sequencer.Definition{Format: sequencer.Format96},
		Catalog:    catalog,
		Sources:    catalog.Source,
	})
	var de *sequencer.DefinitionError
	fmt.Println(errors.As(err, &de), errors.Is(err, sequencer.ErrDefinition))
	fmt.Println(de.Given)
	// Output:
	// true true
	// {"format":"id96"}
}

// Detach gives the worker ID back with the last tick issued; Attach claims
// one again, in the background.
func ExampleSequencer_Detach() {
	ctx := context.Background()
	source := workeridtest.NewMemSource(16)
	sq, err := sequencer.Open(ctx, sequencer.Config{Name: "orders", Source: source})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sq.Close(ctx)
	before, _ := sq.Next64()

	if err := sq.Detach(ctx); err != nil {
		fmt.Println(err)
		return
	}
	st, why := sq.State()
	fmt.Println(st, "-", why)
	_, err = sq.Next64()
	fmt.Println(errors.Is(err, sequencer.ErrDetached))

	if err := sq.Attach(ctx); err != nil {
		fmt.Println(err)
		return
	}
	st, err = sq.Wait(ctx, sequencer.Serving)
	fmt.Println(st, err)
	after, _ := sq.Next64()
	fmt.Println(after > before)
	// Output:
	// detached - detached
	// true
	// serving <nil>
	// true
}

// Destroy removes the sequence cluster-wide: every member stops issuing
// it.
func ExampleSequencer_Destroy() {
	ctx := context.Background()
	catalog := workeridtest.NewMemCatalog(8)
	cfg := sequencer.Config{Name: "orders", Catalog: catalog, Sources: catalog.Source}
	a, err := sequencer.Open(ctx, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close(ctx)
	b, err := sequencer.Open(ctx, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close(ctx)

	if err := a.Destroy(ctx); err != nil {
		fmt.Println(err)
		return
	}
	// b finds its lease lost and the generation gone from the catalog.
	st, err := b.Wait(ctx, sequencer.Destroyed)
	fmt.Println(st, err)
	_, err = b.Next64()
	fmt.Println(errors.Is(err, sequencer.ErrDestroyed))
	// Output:
	// destroyed <nil>
	// true
}

// A single node with a fixed worker ID keeps its reservation in a local
// state file, crash-safe and locked, through workerid.Static and
// workerid.FileStore (floed's own file). A clean Close records the last
// tick, and the next start continues right above it; after a crash it
// would start above the reservation.
func ExampleOpen_static() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "ids")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	clock := floetest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

	for range 2 {
		store, err := workerid.OpenFile(workerid.FileConfig{Dir: dir})
		if err != nil {
			fmt.Println(err)
			return
		}
		sq, err := sequencer.Open(ctx, sequencer.Config{
			Name:   "default",
			Source: workerid.NewStatic(33, store),
			Clock:  clock,
		})
		if err != nil {
			store.Close()
			fmt.Println(err)
			return
		}
		id, err := sq.Next64()
		if err != nil {
			fmt.Println(err)
		}
		p := id64.Twitter.Parts(id)
		fmt.Println(id, p.Time.Format(time.StampMilli), "datacenter", p.Datacenter, "worker", p.Worker)
		if err := sq.Close(ctx); err != nil {
			fmt.Println(err)
		}
		store.Close()
		clock.Step(time.Millisecond)
	}
	// Output:
	// 2006924427392061440 Jan  2 03:04:05.000 datacenter 1 worker 1
	// 2006924427396255744 Jan  2 03:04:05.001 datacenter 1 worker 1
}

// A server bounds each request's wait at the reservation ceiling by the
// request's context: its deadline, and its end when the client goes away.
// A context already done never waits.
func ExampleSequencer_NextN64Context() {
	ctx := context.Background()
	clock := floetest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	sq, err := sequencer.Open(ctx, sequencer.Config{Name: "orders", Source: workeridtest.NewMemSource(1), Clock: clock, Window: time.Hour})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sq.Close(ctx)
	clock.Step(2 * time.Hour) // past the reservation: the keeper must extend it first

	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err = sq.NextN64Context(done, make([]id64.ID, 3))
	var ce *floe.CeilingError
	fmt.Println("at the ceiling:", errors.As(err, &ce))

	request, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n, err := sq.NextN64Context(request, make([]id64.ID, 3))
	fmt.Println(n, err)
	// Output:
	// at the ceiling: true
	// 3 <nil>
}

// An id128 sequence issues RFC 9562 version-7 UUIDs whose worker field
// holds the worker ID the sequencer leased.
func ExampleSequencer_Next128() {
	ctx := context.Background()
	catalog := workeridtest.NewMemCatalog(16)
	sq, err := sequencer.Open(ctx, sequencer.Config{
		Name:       "events",
		Definition: sequencer.Definition{Format: sequencer.Format128},
		Catalog:    catalog,
		Sources:    catalog.Source,
		Clock:      floetest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sq.Close(ctx)
	a, _ := sq.Next128()
	b, err := sq.Next128()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Time(), b.Worker(), b.Counter(), a.Compare(b))
	fmt.Println(b.String()[14:15], len(b.String()))
	// Output:
	// 2026-01-02 03:04:05 +0000 UTC 0 1 -1
	// 7 36
}
