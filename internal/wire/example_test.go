package wire_test

import (
	"bufio"
	"bytes"
	"fmt"

	"github.com/floeid/floe/internal/wire"
)

func Example() {
	// A client authenticates and asks for 2 IDs, then 1.
	req, _ := wire.AppendAuth(nil, "secret")
	req, _ = wire.AppendRequest(req, 2)
	req, _ = wire.AppendRequest(req, 1)
	fmt.Printf("% x\n", req)

	// The server reads the frames.
	r := bufio.NewReader(bytes.NewReader(req))
	token, present, _ := wire.ReadAuth(r, nil)
	n1, _ := wire.ReadRequest(r)
	n2, _ := wire.ReadRequest(r)
	fmt.Println(string(token), present, n1, n2)

	// The reply: 8 bytes per ID, big-endian.
	reply := wire.AppendID(nil, 1541815603606036480)
	ids := make([]uint64, 1)
	wire.DecodeIDs(ids, reply)
	fmt.Printf("% x = %d\n", reply, ids[0])
	// Output:
	// 00 06 73 65 63 72 65 74 02 01
	// secret true 2 1
	// 15 65 a1 1f 62 17 a0 00 = 1541815603606036480
}
