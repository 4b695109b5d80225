package id96_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id96"
)

// An ID written by guid on node 0xdeadbeef with the default drift.
const text = "Njc7pjKhxrcJu..e"

func ExampleID() {
	id := id96.MustParse(text)
	fmt.Println(id)
	fmt.Println(id.Time().Format(time.RFC3339Nano))
	fmt.Printf("node %#x, sequence %d, drift %d\n", id.Node(), id.Sequence(), id.Drift())
	// Output:
	// Njc7pjKhxrcJu..e
	// 2024-05-17T12:30:45.123383296Z
	// node 0xdeadbeef, sequence 42, drift 3
}

func ExampleParse() {
	id, err := id96.Parse(text)
	fmt.Println(id, err)

	_, err = id96.Parse("Njc7pjKhxrcJu.-e")
	fmt.Println(err)
	fmt.Println(errors.Is(err, floe.ErrInvalidCharacter))
	// Output:
	// Njc7pjKhxrcJu..e <nil>
	// floe: cannot parse "Njc7pjKhxrcJu.-e" as id96: invalid character '-' at offset 14, want . 0-9 A-Z _ a-z
	// true
}

func ExampleMustParse() {
	var id = id96.MustParse(text)
	fmt.Println(id.Sequence())
	// Output: 42
}

func ExampleFromBytes() {
	id, err := id96.FromBytes([]byte{0x62, 0xfa, 0x08, 0xd6, 0xf5, 0x6d, 0xf7, 0x7a, 0x14, 0xe8, 0x00, 0x2a})
	fmt.Println(id, err)

	_, err = id96.FromBytes(make([]byte, 8))
	fmt.Println(err)
	// Output:
	// Njc7pjKhxrcJu..e <nil>
	// floe: cannot parse "\x00\x00\x00\x00\x00\x00\x00\x00" as id96: invalid length 8, want 12 bytes
}

func ExampleCompose() {
	id, err := id96.Compose(id96.Parts{
		Time:     time.Date(2024, 5, 17, 12, 30, 45, 123456789, time.UTC),
		Drift:    id96.DefaultDrift,
		Node:     0xdeadbeef,
		Sequence: 42,
	})
	fmt.Println(id, err)

	_, err = id96.Compose(id96.Parts{Sequence: id96.MaxSequence + 1})
	fmt.Println(err)
	// Output:
	// Njc7pjKhxrcJu..e <nil>
	// floe: cannot parse "sequence 16384" as id96: value out of range, want at most 16383
}

func ExampleID_Parts() {
	p := id96.MustParse(text).Parts()
	fmt.Println(p.Time.Format(time.RFC3339Nano))
	fmt.Println(p.Tick, p.Drift)
	fmt.Printf("%#x %d\n", p.Node, p.Sequence)
	// Output:
	// 2024-05-17T12:30:45.123383296Z
	// 13091652260768 3
	// 0xdeadbeef 42
}

func ExampleID_Time() {
	fmt.Println(id96.MustParse(text).Time())
	// Output: 2024-05-17 12:30:45.123383296 +0000 UTC
}

func ExampleID_Tick() {
	id := id96.MustParse(text)
	fmt.Println(id.Tick())
	fmt.Println(time.Duration(id.Tick()) * id96.TickUnit)
	// Output:
	// 13091652260768
	// 476652h30m45.123383296s
}

func ExampleID_Node() {
	fmt.Printf("%#x\n", id96.MustParse(text).Node())
	// Output: 0xdeadbeef
}

func ExampleID_Sequence() {
	fmt.Println(id96.MustParse(text).Sequence())
	// Output: 42
}

func ExampleID_Drift() {
	d := id96.MustParse(text).Drift()
	fmt.Println(d, d.Window())
	// Output: 3 4m34.877906944s
}

func ExampleDriftFor() {
	for _, tolerance := range []time.Duration{time.Minute, 5 * time.Minute, time.Hour} {
		d := id96.DriftFor(tolerance)
		fmt.Println(tolerance, d, d.Window())
	}
	// Output:
	// 1m0s 1 1m8.719476736s
	// 5m0s 4 9m9.755813888s
	// 1h0m0s 7 1h13m18.046511104s
}

func ExampleDrift_Window() {
	fmt.Println(id96.DefaultDrift.Window())
	// Output: 4m34.877906944s
}

func ExampleID_Bytes() {
	fmt.Printf("%x\n", id96.MustParse(text).Bytes())
	// Output: 62fa08d6f56df77a14e8002a
}

func ExampleID_Compare() {
	// Two nodes, the second one's clock 10 seconds behind: within a drift
	// window the node decides, across windows the time does.
	a := id96.MustParse(text)
	at := a.Time()
	b, _ := id96.Compose(id96.Parts{Time: at.Add(-10 * time.Second), Drift: 3, Node: 0xdeadbef0})
	c, _ := id96.Compose(id96.Parts{Time: at.Add(10 * time.Minute), Drift: 3, Node: 0x00000001})
	fmt.Println(a.Compare(b), a.Compare(c), a.Compare(a))
	// Output: -1 -1 0
}

func ExampleID_IsZero() {
	var id id96.ID
	fmt.Println(id.IsZero(), id96.MustParse(text).IsZero())
	// Output: true false
}

func ExampleID_String() {
	fmt.Println(id96.MustParse(text).String())
	// Output: Njc7pjKhxrcJu..e
}

func ExampleID_AppendText() {
	buf := make([]byte, 0, 64)
	buf = append(buf, "id="...)
	buf, _ = id96.MustParse(text).AppendText(buf)
	fmt.Println(string(buf))
	// Output: id=Njc7pjKhxrcJu..e
}

func ExampleID_MarshalText() {
	b, _ := id96.MustParse(text).MarshalText()
	fmt.Println(string(b))
	// Output: Njc7pjKhxrcJu..e
}

func ExampleID_UnmarshalText() {
	var id id96.ID
	err := id.UnmarshalText([]byte(text))
	fmt.Println(id, err)
	// Output: Njc7pjKhxrcJu..e <nil>
}

func ExampleID_AppendBinary() {
	b, _ := id96.MustParse(text).AppendBinary([]byte{0xff})
	fmt.Printf("%x\n", b)
	// Output: ff62fa08d6f56df77a14e8002a
}

func ExampleID_MarshalBinary() {
	b, _ := id96.MustParse(text).MarshalBinary()
	fmt.Printf("%x\n", b)
	// Output: 62fa08d6f56df77a14e8002a
}

func ExampleID_UnmarshalBinary() {
	var id id96.ID
	err := id.UnmarshalBinary([]byte{0x62, 0xfa, 0x08, 0xd6, 0xf5, 0x6d, 0xf7, 0x7a, 0x14, 0xe8, 0x00, 0x2a})
	fmt.Println(id, err)
	// Output: Njc7pjKhxrcJu..e <nil>
}

func ExampleID_MarshalJSON() {
	b, _ := json.Marshal(struct {
		ID id96.ID `json:"id"`
	}{id96.MustParse(text)})
	fmt.Println(string(b))
	// Output: {"id":"Njc7pjKhxrcJu..e"}
}

func ExampleID_UnmarshalJSON() {
	var ids []id96.ID
	// The second is guid's 64-bit form: its node is dropped.
	err := json.Unmarshal([]byte(`["Njc7pjKhxrcJu..e", "*Njc7o85Xgw7Ju..e"]`), &ids)
	fmt.Println(err)
	for _, id := range ids {
		fmt.Printf("%v node %#x cast %#x\n", id, id.Node(), id.Uint64())
	}
	// Output:
	// <nil>
	// Njc7pjKhxrcJu..e node 0xdeadbeef cast 0x62fa08d214e8002a
	// Njc7o.....7Ju..e node 0x0 cast 0x62fa08d214e8002a
}

func ExampleID_Value() {
	v, _ := id96.MustParse(text).Value()
	fmt.Printf("%T %v\n", v, v)
	// Output: string Njc7pjKhxrcJu..e
}

func ExampleID_Scan() {
	for _, src := range []any{
		"Njc7pjKhxrcJu..e",
		[]byte{0x62, 0xfa, 0x08, 0xd6, 0xf5, 0x6d, 0xf7, 0x7a, 0x14, 0xe8, 0x00, 0x2a},
		nil,
		int64(42),
	} {
		var id id96.ID
		err := id.Scan(src)
		fmt.Println(id, err)
	}
	// Output:
	// Njc7pjKhxrcJu..e <nil>
	// Njc7pjKhxrcJu..e <nil>
	// ................ <nil>
	// ................ floe: cannot parse "int64" as id96: unsupported type, want string, []byte or nil
}

func ExampleID_Uint64() {
	id := id96.MustParse(text)
	v := id.Uint64()
	fmt.Printf("%#x\n", v)
	// The cast keeps the time and sequence, not the node.
	fmt.Println(id96.FromUint64(v, 0).Time().Equal(id.Time()))
	// Output:
	// 0x62fa08d214e8002a
	// true
}

func ExampleFromUint64() {
	id := id96.FromUint64(0x62fa08d214e8002a, 0xdeadbeef)
	fmt.Println(id)
	// Output: Njc7pjKhxrcJu..e
}
