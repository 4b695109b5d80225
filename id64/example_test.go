package id64_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id64"
)

func ExampleLayout_Compose() {
	id, err := id64.Twitter.Compose(id64.Parts{
		Time:       time.Date(2024, 1, 2, 3, 4, 5, 6e6, time.UTC),
		Datacenter: 1,
		Worker:     2,
		Sequence:   3,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(id)

	_, err = id64.Twitter.Compose(id64.Parts{Worker: 32})
	fmt.Println(errors.Is(err, id64.ErrWorkerRange))
	// Output:
	// 1742018897663631363
	// true
}

func ExampleLayout_Parts() {
	// An ID from Discord's documentation.
	p := id64.Discord.Parts(175928847299117063)
	fmt.Println(p.Time.Format(time.RFC3339Nano))
	fmt.Println("worker", p.Datacenter, "process", p.Worker, "increment", p.Sequence)
	// Output:
	// 2016-04-30T11:18:25.796Z
	// worker 1 process 0 increment 7
}

func ExampleLayout_CheckID() {
	// 2^63 parses as an id64.ID, but no signed layout makes it.
	id := id64.MustParse("9223372036854775808")
	fmt.Println(errors.Is(id64.Twitter.CheckID(id), id64.ErrIDRange))
	fmt.Println(id64.Discord.CheckID(id))
	// Output:
	// true
	// <nil>
}

func ExampleParse() {
	id, err := id64.Parse("1742018897663631363")
	fmt.Println(id, err)
	fmt.Println(id.Time(id64.Twitter).Format(time.RFC3339Nano))

	_, err = id64.Parse("17420188976636313630000")
	fmt.Println(err)
	fmt.Println(errors.Is(err, floe.ErrInvalidLength))
	// Output:
	// 1742018897663631363 <nil>
	// 2024-01-02T03:04:05.006Z
	// floe: cannot parse "17420188976636313630000" as id64: invalid length 23, want 1 to 20 digits
	// true
}

func ExampleMustParse() {
	var launch = id64.MustParse("1742018897663631363")
	fmt.Println(launch.Parts(id64.Twitter).Worker)
	// Output: 2
}

func ExampleFromBytes() {
	id, err := id64.FromBytes([]byte{0x18, 0x2c, 0xe4, 0xf5, 0x33, 0x42, 0x20, 0x03})
	fmt.Println(id, err)
	fmt.Printf("%x\n", id.Bytes())
	// Output:
	// 1742018897663631363 <nil>
	// 182ce4f533422003
}

func ExampleID_MarshalJSON() {
	b, _ := json.Marshal(struct {
		ID id64.ID `json:"id"`
	}{1742018897663631363})
	fmt.Println(string(b))
	// Output: {"id":"1742018897663631363"}
}

func ExampleID_UnmarshalJSON() {
	var v struct {
		A, B id64.ID
	}
	err := json.Unmarshal([]byte(`{"A": "1742018897663631363", "B": 1742018897663631363}`), &v)
	fmt.Println(v.A, v.B, err)

	err = json.Unmarshal([]byte(`{"A": 1.5}`), &v)
	fmt.Println(errors.Is(err, floe.ErrInvalidCharacter))
	// Output:
	// 1742018897663631363 1742018897663631363 <nil>
	// true
}

func ExampleID_AppendText() {
	buf := make([]byte, 0, 64)
	buf = append(buf, "id="...)
	buf, _ = id64.ID(1742018897663631363).AppendText(buf)
	fmt.Println(string(buf))
	// Output: id=1742018897663631363
}

func ExampleID_PaddedString() {
	small, large := id64.ID(999), id64.ID(1000)
	fmt.Println(small.String() < large.String())
	fmt.Println(small.PaddedString() < large.PaddedString())
	fmt.Println(large.PaddedString())
	// Output:
	// false
	// true
	// 00000000000000001000
}

func ExampleID_Value() {
	v, _ := id64.ID(1742018897663631363).Value()
	fmt.Printf("%T %v\n", v, v)
	v, _ = id64.ID(1 << 63).Value() // only Unsigned layouts make these
	fmt.Printf("%T %v\n", v, v)

	// A signed BIGINT holds an Unsigned layout's IDs past the top bit as
	// negative numbers, as Instagram's next_id returns them after 2046.
	var id id64.ID
	err := id.Scan(int64(-2000000000000000000))
	fmt.Println(id, err, id64.Instagram.Time(id).UTC())
	fmt.Println(id64.Twitter.CheckID(id) != nil) // a signed layout never sets the top bit
	// Output:
	// int64 1742018897663631363
	// string 9223372036854775808
	// 16446744073709551616 <nil> 2073-10-10 01:31:38.171 +0000 UTC
	// true
}

func ExampleLayout_First() {
	// IDs made on 2024-01-02 (UTC), for
	// WHERE id BETWEEN first AND last.
	day := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	first := id64.Twitter.First(day)
	last := id64.Twitter.Last(day.Add(24*time.Hour - time.Nanosecond))
	fmt.Println(first, last)

	id := id64.MustParse("1742018897663631363") // 2024-01-02T03:04:05.006Z
	fmt.Println(first <= id && id <= last)
	// Output:
	// 1741972571550646272 1742334959416246271
	// true
}

func ExampleLayout_Range() {
	// Sonyflake's IDs of one minute, for WHERE id BETWEEN first AND last.
	// Its sequence lies above its machine ID: the largest ID of a tick
	// still has every bit below the time set.
	from := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	first, last, err := id64.Sonyflake.Range(from, from.Add(time.Minute-time.Nanosecond))
	if err != nil {
		panic(err)
	}
	fmt.Println(first, last)
	fmt.Println(id64.Sonyflake.Parts(last).Sequence, id64.Sonyflake.Parts(last).Worker)

	_, _, err = id64.Sonyflake.Range(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), from)
	fmt.Println(err)
	// Output:
	// 647297205534720000 647297306198015999
	// 255 65535
	// floe: time is before the layout epoch: 2000-01-01T00:00:00Z (the epoch is 2014-09-01T00:00:00Z, the end 2188-11-16T03:28:58.88Z)
}

func ExampleOrder() {
	// sony/sonyflake v1: time, then sequence, then machine ID.
	l, err := id64.ParseLayout("39t/8s/16w 10ms since 2014-09-01")
	if err != nil {
		panic(err)
	}
	fmt.Println(l.Order, l.Equal(id64.Sonyflake))
	id, err := l.Compose(id64.Parts{Tick: 1, Worker: 513, Sequence: 2})
	if err != nil {
		panic(err)
	}
	fmt.Println(uint64(id) == 1<<24|2<<16|513)
	// Output:
	// time-sequence-node true
	// true
}

func ExampleLayout_End() {
	fmt.Println(id64.Twitter.End().Format(time.RFC3339Nano))
	fmt.Println(id64.Discord.End().Format(time.RFC3339Nano))
	_, err := id64.Twitter.Tick(id64.Twitter.End())
	fmt.Println(err)
	// Output:
	// 2080-07-10T17:30:30.209Z
	// 2154-05-15T07:35:11.104Z
	// floe: layout time exhausted
}

func ExampleLayout_Tick() {
	tick, err := id64.Twitter.Tick(id64.Twitter.Epoch.Add(1500 * time.Microsecond))
	fmt.Println(tick, err)
	fmt.Println(id64.Twitter.TickTime(tick).Format(time.RFC3339Nano))
	// Output:
	// 1 <nil>
	// 2010-11-04T01:42:54.658Z
}

func ExampleLayout_Node() {
	node, err := id64.Twitter.Node(3, 7)
	fmt.Println(node, err)
	_, err = id64.Twitter.Node(32, 0)
	fmt.Println(err)
	// Output:
	// 103 <nil>
	// floe: datacenter id out of range: 32 above 31
}

func ExampleLayout_Validate() {
	l := id64.Twitter
	l.TimeBits = 42 // 64 bits in total, but the layout is signed
	err := l.Validate()
	fmt.Println(err)
	fmt.Println(errors.Is(err, id64.ErrLayoutBits))

	l.Unsigned = true
	fmt.Println(l.Validate())
	// Output:
	// floe: layout uses too many bits: 64 bits, at most 63
	// true
	// <nil>
}

func ExampleLayout_String() {
	fmt.Println(id64.Twitter)
	fmt.Println(id64.Icicle)
	fmt.Println(id64.Instagram)
	fmt.Println(id64.Discord)
	// Output:
	// 41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z
	// 41t/10w/12s 1ms since 1970-01-17T05:14:37.473Z
	// 41t/13w/10s 1ms since 2011-08-24T21:07:01.721Z unsigned
	// 42t/5d/5w/12s 1ms since 2015-01-01T00:00:00Z unsigned
}

func ExampleParseLayout() {
	// A preset by name, or any layout written out as String writes it.
	l, err := id64.ParseLayout("icicle2")
	fmt.Println(l, err)
	l, err = id64.ParseLayout("41t/10w/12s 1ms since 1455788600316")
	fmt.Println(l.Equal(id64.Icicle2), err)
	l, err = id64.ParseLayout("42t/5d/5w/12s 1ms since 2015-01-01 unsigned")
	fmt.Println(l.Equal(id64.Discord), err)

	id := id64.ID(143322835047240136) // from icicle 2.x's test suite
	fmt.Println(id.Time(id64.Icicle2))

	_, err = id64.ParseLayout("41t/10w/12s 1ms")
	fmt.Println(err)
	// Output:
	// 41t/10w/12s 1ms since 2016-02-18T09:43:20.316Z <nil>
	// true <nil>
	// true <nil>
	// 2017-03-19 21:37:07 +0000 UTC
	// floe: malformed layout "41t/10w/12s 1ms": want "since EPOCH" after the tick unit (want "FIELDS UNIT since EPOCH [unsigned]", such as "41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z")
}

func ExampleLayout_Equal() {
	l := id64.Twitter
	l.Epoch = l.Epoch.Local()
	fmt.Println(l.Equal(id64.Twitter))
	// Output: true
}

func ExampleSnowcast() {
	l, err := id64.Snowcast(128)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The sequencer's epoch, as in snowcast's README.
	l.Epoch = time.Date(2014, 1, 1, 0, 0, 0, 0, time.UTC)
	fmt.Println(l)
	fmt.Println(l.MaxNode()+1, "nodes,", l.MaxSequence()+1, "IDs per ms each")

	id, _ := l.Compose(id64.Parts{Time: time.Date(2014, 3, 3, 5, 12, 12, 0, time.UTC), Worker: 100})
	fmt.Println(id)

	_, err = id64.Snowcast(100)
	fmt.Println(err)
	// Output:
	// 41t/7w/16s 1ms since 2014-01-01T00:00:00Z unsigned
	// 128 nodes, 65536 IDs per ms each
	// 44368455014809600
	// floe: snowcast node count not in 128..8192: 100
}

func ExampleID_Parts() {
	id := id64.ID(5980618838099710408) // from icicle's test suite
	p := id.Parts(id64.Icicle)
	fmt.Println(p.Time.UnixMilli(), p.Worker, p.Sequence)
	// Output: 1427291923000 789 456
}
