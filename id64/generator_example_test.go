package id64_test

import (
	"fmt"
	"time"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
)

func ExampleNewGenerator() {
	// A fake clock makes the output repeatable; leave Clock nil in real use.
	clock := floetest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	g, err := id64.NewGenerator(id64.Config{Layout: id64.Twitter, Datacenter: 1, Worker: 2, Clock: clock})
	if err != nil {
		panic(err)
	}
	id, _ := g.Next()
	p := id64.Twitter.Parts(id)
	fmt.Println(id, p.Datacenter, p.Worker, p.Sequence, p.Time.UTC())
	// Output: 2124472963691585536 1 2 0 2026-11-22 12:00:00 +0000 UTC
}

func ExampleGenerator_NextN() {
	clock := floetest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	g, _ := id64.NewGenerator(id64.Config{Worker: 7, Clock: clock})
	ids := make([]id64.ID, 3)
	n, _ := g.NextN(ids)
	for _, id := range ids[:n] {
		fmt.Println(id, id64.Twitter.Parts(id).Sequence)
	}
	// Output:
	// 2124472963691474944 0
	// 2124472963691474945 1
	// 2124472963691474946 2
}
