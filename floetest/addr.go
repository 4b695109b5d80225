package floetest

import (
	"net"
	"testing"
)

// FreeAddrs returns n distinct loopback addresses (127.0.0.1:port) whose
// ports were free a moment ago, for a server the test starts. Another
// process may take a port before the server binds it; a test that starts
// many servers retries on "address already in use".
func FreeAddrs(tb testing.TB, n int) []string {
	tb.Helper()
	addrs := make([]string, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatalf("floetest: a free loopback port: %v", err)
		}
		defer l.Close() // held until all n are chosen, so they differ
		addrs = append(addrs, l.Addr().String())
	}
	return addrs
}
