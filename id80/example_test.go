package id80_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id80"
)

func ExampleParse() {
	id, err := id80.Parse("6ncg4s4c27a24223")
	if err != nil {
		panic(err)
	}
	fmt.Println(id.Time())
	fmt.Printf("% x\n", id.Bytes())

	_, err = id80.Parse("6NCG4S4C27A24223")
	fmt.Println(err)
	fmt.Println(errors.Is(err, floe.ErrInvalidCharacter))
	var pe *floe.ParseError
	if errors.As(err, &pe) {
		fmt.Printf("offset %d, character %q, want %s\n", pe.Offset, pe.Char, pe.Want)
	}
	// Output:
	// 2020-02-29 12:34:56.788 +0000 UTC
	// 25 54 e1 68 4a 01 50 01 00 01
	// floe: cannot parse "6NCG4S4C27A24223" as id80: invalid character 'N' at offset 1, want 2-9 a-x
	// true
	// offset 1, character "N", want 2-9 a-x
}

func ExampleMustParse() {
	var first = id80.MustParse("2222222222222222")
	fmt.Println(first.IsZero())
	// Output:
	// true
}

func ExampleFromBytes() {
	id, err := id80.FromBytes([]byte{0x25, 0x54, 0xe1, 0x68, 0x4a, 0x01, 0x50, 0x01, 0x00, 0x01})
	if err != nil {
		panic(err)
	}
	fmt.Println(id)
	// Output:
	// 6ncg4s4c27a24223
}

func ExampleID_String() {
	id := id80.ID{0x25, 0x54, 0xe1, 0x68, 0x4a, 0x01, 0x50, 0x01, 0x00, 0x01}
	fmt.Println(id.String())
	// Output:
	// 6ncg4s4c27a24223
}

func ExampleID_AppendText() {
	id := id80.MustParse("6ncg4s4c27a24223")
	buf := make([]byte, 0, 64)
	buf = append(buf, "user:"...)
	buf, _ = id.AppendText(buf)
	fmt.Println(string(buf))
	// Output:
	// user:6ncg4s4c27a24223
}

func ExampleID_Parts() {
	p := id80.MustParse("6ncg4s4c27a24223").Parts()
	fmt.Println("time:", p.Time)
	fmt.Println("timestamp:", p.Timestamp)
	fmt.Println("tick-tock:", p.TickTock)
	fmt.Println("meta:", p.Meta)
	fmt.Printf("partition: %q (%d)\n", p.Partition[:], p.Partition.Uint16())
	fmt.Println("sequence:", p.Sequence)
	// Output:
	// time: 2020-02-29 12:34:56.788 +0000 UTC
	// timestamp: 80168924197
	// tick-tock: false
	// meta: 1
	// partition: "P\x01" (20481)
	// sequence: 1
}

func ExampleID_Compare() {
	a := id80.MustParse("6ncg4s4c27a24223")
	b := id80.MustParse("6ncg4s4d27a24223") // same time, tick-tock bit set
	fmt.Println(a.Compare(b), a.Time().Equal(b.Time()), b.TickTock())
	// Output:
	// -1 true true
}

func ExampleCompose() {
	id, err := id80.Compose(id80.Parts{
		Time:      time.Date(2020, 2, 29, 12, 34, 56, 789_000_000, time.UTC),
		Meta:      1,
		Partition: id80.PartitionFromUint16(0x5001),
		Sequence:  1,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(id)

	_, err = id80.Compose(id80.Parts{Time: time.Date(2009, 12, 31, 0, 0, 0, 0, time.UTC)})
	fmt.Println(err)
	// Output:
	// 6ncg4s4c27a24223
	// floe: cannot parse "2009-12-31T00:00:00Z" as id80: value out of range, want 2010-01-01T00:00:00Z to 2079-09-07T15:47:35.551999999Z
}

func ExamplePartitionFromUint16() {
	p := id80.PartitionFromUint16(0x5001)
	fmt.Println(p == id80.Partition{'P', 1}, p.Uint16())
	// Output:
	// true 20481
}

func ExampleID_MarshalJSON() {
	type user struct {
		ID     id80.ID `json:"id"`
		Parent id80.ID `json:"parent"`
	}
	b, err := json.Marshal(user{ID: id80.MustParse("6ncg4s4c27a24223")})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
	// Output:
	// {"id":"6ncg4s4c27a24223","parent":null}
}

func ExampleID_UnmarshalJSON() {
	var u struct {
		ID     id80.ID `json:"id"`
		Parent id80.ID `json:"parent"`
	}
	err := json.Unmarshal([]byte(`{"id":"6ncg4s4c27a24223","parent":null}`), &u)
	fmt.Println(u.ID, u.Parent.IsZero(), err)
	// Output:
	// 6ncg4s4c27a24223 true <nil>
}

func ExampleID_MarshalText() {
	b, _ := id80.MustParse("6ncg4s4c27a24223").MarshalText()
	fmt.Println(string(b))
	// Output:
	// 6ncg4s4c27a24223
}

func ExampleID_UnmarshalText() {
	var id id80.ID
	err := id.UnmarshalText([]byte("6ncg4s4c27a24223"))
	fmt.Println(id.Sequence(), err)
	// Output:
	// 1 <nil>
}

func ExampleID_MarshalBinary() {
	b, _ := id80.MustParse("6ncg4s4c27a24223").MarshalBinary()
	var id id80.ID
	err := id.UnmarshalBinary(b)
	fmt.Printf("% x %v %v\n", b, id, err)
	// Output:
	// 25 54 e1 68 4a 01 50 01 00 01 6ncg4s4c27a24223 <nil>
}

func ExampleID_Value() {
	v, _ := id80.MustParse("6ncg4s4c27a24223").Value()
	fmt.Printf("%T %v\n", v, v)
	// Output:
	// []uint8 [37 84 225 104 74 1 80 1 0 1]
}

func ExampleID_Scan() {
	var fromText, fromSno, fromNull id80.ID
	_ = fromText.Scan([]byte("6ncg4s4c27a24223"))                                        // a text column
	_ = fromSno.Scan([]byte{0x25, 0x54, 0xe1, 0x68, 0x4a, 0x01, 0x50, 0x01, 0x00, 0x01}) // written by sno
	_ = fromNull.Scan(nil)
	fmt.Println(fromText, fromSno, fromNull.IsZero())

	err := fromText.Scan(42)
	fmt.Println(errors.Is(err, floe.ErrUnsupportedType))
	// Output:
	// 6ncg4s4c27a24223 6ncg4s4c27a24223 true
	// true
}

func ExampleID_Time() {
	id := id80.MustParse("xxxxxxxwxxxxxxxx")
	fmt.Println(id.Time(), id.Timestamp() == id80.MaxTimestamp)
	// Output:
	// 2079-09-07 15:47:35.548 +0000 UTC true
}
