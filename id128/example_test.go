package id128_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id128"
)

func ExampleNewGenerator() {
	// A fake clock makes the output repeatable; leave Clock nil in real use.
	clock := floetest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	g, err := id128.NewGenerator(id128.Config{Worker: 0xcafe, Clock: clock})
	if err != nil {
		panic(err)
	}
	for range 2 {
		id, _ := g.Next()
		p := id.Parts()
		// The last 10 hexadecimal digits are random.
		fmt.Printf("%s… %s worker=%#x counter=%d\n", id.String()[:26], p.Time.Format(time.RFC3339Nano), p.Worker, p.Counter)
	}
	// Output:
	// 01a20320-a200-7000-80ca-fe… 2026-11-22T12:00:00Z worker=0xcafe counter=0
	// 01a20320-a200-7000-81ca-fe… 2026-11-22T12:00:00Z worker=0xcafe counter=1
}

func ExampleGenerator_AppendNext() {
	clock := floetest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	g, _ := id128.NewGenerator(id128.Config{Worker: 1, Clock: clock})
	ids, err := g.AppendNext(make([]id128.ID, 0, 3), 3)
	fmt.Println(len(ids), err, ids[0].Compare(ids[1]), ids[1].Compare(ids[2]))
	// Output: 3 <nil> -1 -1
}

func ExampleParse() {
	for _, s := range []string{
		"017F22E2-79B0-7CC3-98C4-DC0C0C07398F",
		"urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
		"{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}",
	} {
		id, err := id128.Parse(s)
		fmt.Println(id, err)
	}
	_, err := id128.Parse("c232ab00-9414-11ec-b3c8-9f6bdeced846")
	fmt.Println(err)
	fmt.Println(errors.Is(err, id128.ErrVersion))
	// Output:
	// 017f22e2-79b0-7cc3-98c4-dc0c0c07398f <nil>
	// 017f22e2-79b0-7cc3-98c4-dc0c0c07398f <nil>
	// 017f22e2-79b0-7cc3-98c4-dc0c0c07398f <nil>
	// floe: cannot parse "c232ab00-9414-11ec-b3c8-9f6bdeced846" as id128: UUID version 1, want version 7, variant 10 (RFC 9562)
	// true
}

func ExampleID_Parts() {
	p := id128.MustParse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f").Parts()
	fmt.Println(p.Time.Format(time.RFC3339Nano), p.Tick)
	fmt.Printf("counter=%d worker=%#x random=%#x\n", p.Counter, p.Worker, p.Random)
	// Output:
	// 2022-02-22T19:22:22Z 1645557742000
	// counter=209112 worker=0xc4dc random=0xc0c07398f
}

func ExampleID_Value() {
	id := id128.MustParse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f")
	v, _ := id.Value() // what database/sql hands the driver for a uuid column
	fmt.Println(v)

	var back id128.ID
	err := back.Scan(id.Bytes()) // or the text a uuid column returns
	fmt.Println(back == id, err)
	// Output:
	// 017f22e2-79b0-7cc3-98c4-dc0c0c07398f
	// true <nil>
}

func ExampleID_AppendText() {
	id := id128.MustParse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f")
	buf := make([]byte, 0, 64)
	buf, _ = id.AppendText(buf)
	fmt.Println(string(buf))
	// Output: 017f22e2-79b0-7cc3-98c4-dc0c0c07398f
}

func ExampleParseUUID() {
	for _, s := range []string{
		"C232AB00-9414-11EC-B3C8-9F6BDECED846", // RFC 9562's examples
		"1EC9414C-232A-6B00-B3C8-9F6BDECED846",
		"017F22E2-79B0-7CC3-98C4-DC0C0C07398F",
		"919108f7-52d1-4320-9bac-f847db4148a8",
		"00000000-0000-0000-0000-000000000000",
	} {
		u, _ := id128.ParseUUID(s)
		if t, ok := u.Time(); ok {
			fmt.Printf("version %d, %s: %s to %v\n", u.Version(), u.Kind(), t.Format(time.RFC3339Nano), u.TimeUnit())
			continue
		}
		fmt.Printf("version %d, %s\n", u.Version(), u.Kind())
	}
	// Output:
	// version 1, Gregorian time and node: 2022-02-22T19:22:22Z to 100ns
	// version 6, reordered Gregorian time and node: 2022-02-22T19:22:22Z to 100ns
	// version 7, Unix time in milliseconds: 2022-02-22T19:22:22Z to 1ms
	// version 4, random, no time
	// version 0, the nil UUID
}
