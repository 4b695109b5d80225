package id80_test

import (
	"fmt"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id80"
)

func ExampleNewGenerator() {
	// A fake clock makes the output repeatable; leave Clock nil in real use.
	clock := floetest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	g, err := id80.NewGenerator(id80.Config{
		Partition:   id80.Partition{'A', 10},
		SequenceMax: 32767, // the lower half of the pool; a peer takes the upper
		Clock:       clock,
		Policy:      floe.TickTock,
	})
	if err != nil {
		panic(err)
	}
	id, _ := g.New(1)
	p := id.Parts()
	fmt.Println(id, p.Meta, p.Partition, p.Sequence, p.Time.UTC())
	// The clock steps back: the generator switches timelines and goes on.
	clock.Rewind(time.Second)
	id, _ = g.New(1)
	fmt.Println(id, id.TickTock(), id.Time().UTC())
	// Output:
	// 9q8xk7a2272im222 1 [65 10] 0 2026-11-22 12:00:00 +0000 UTC
	// 9q8xk6qf272im222 true 2026-11-22 11:59:59 +0000 UTC
}

func ExampleNew() {
	id := id80.New(3)
	fmt.Println(len(id.String()), id.Meta())
	// Output: 16 3
}

func ExampleGenerator_Snapshot() {
	clock := floetest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	g, _ := id80.NewGenerator(id80.Config{Partition: id80.Partition{0, 1}, Clock: clock})
	last, _ := g.New(0)
	snap := g.Snapshot() // persist this when the generator goes offline

	clock.Rewind(time.Minute) // the restart happens "in the past"
	r, _ := id80.NewGenerator(id80.Config{Clock: clock, Snapshot: &snap, Policy: floe.Borrow, MaxAhead: 2 * time.Minute})
	id, _ := r.New(0)
	fmt.Println(id.Compare(last) > 0, id.Partition())
	// Output: true [0 1]
}
