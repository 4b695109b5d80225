package id96_test

import (
	"fmt"
	"time"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id96"
)

func ExampleNewGenerator() {
	// A fake clock makes the output repeatable; leave Clock nil in real use.
	clock := floetest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	g, err := id96.NewGenerator(id96.Config{Node: 0xcafe, Clock: clock})
	if err != nil {
		panic(err)
	}
	id, _ := g.Next()
	p := id.Parts()
	fmt.Printf("%s node=%#x drift=%d seq=%d\n", id, p.Node, p.Drift, p.Sequence)
	// Output: NlpAV..5KzRKzN.. node=0xcafe drift=3 seq=0
}

func ExampleNew() {
	a, b := id96.New(), id96.New()
	fmt.Println(a.Compare(b) < 0, a.Node() == b.Node())
	// Output: true true
}
