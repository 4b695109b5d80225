// Command startfloor is the floor of floed's start benchmark
// (BenchmarkStart): about the least a Go program serving noeqd's binary
// protocol does between its exec and its first ID. It keeps no state and
// checks no setting. Built with -tags http, it also answers any GET on
// -http with one ID in floed's JSON; with -tags linked (and http), it also
// links the packages floed links.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

var (
	listen   = flag.String("l", "127.0.0.1:4444", "the binary protocol's `address`")
	httpAddr = flag.String("http", "", "the HTTP `address` (with -tags http)")
)

// serveHTTP serves HTTP on l; nil without -tags http.
var serveHTTP func(l net.Listener)

func main() {
	flag.Parse()
	bin, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "startfloor:", err)
		os.Exit(1)
	}
	if *httpAddr != "" {
		if serveHTTP == nil {
			fmt.Fprintln(os.Stderr, "startfloor: -http needs a build with -tags http")
			os.Exit(2)
		}
		web, err := net.Listen("tcp", *httpAddr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "startfloor:", err)
			os.Exit(1)
		}
		go serveHTTP(web)
	}
	for {
		c, err := bin.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "startfloor:", err)
			os.Exit(1)
		}
		go serve(c)
	}
}

// serve answers each request byte n with n IDs, as noeqd does.
func serve(c net.Conn) {
	defer c.Close()
	req := make([]byte, 1)
	for {
		if _, err := io.ReadFull(c, req); err != nil || req[0] == 0 {
			return
		}
		out := make([]byte, 0, 8*int(req[0]))
		for range req[0] {
			out = binary.BigEndian.AppendUint64(out, next())
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// The Twitter layout of worker 0: milliseconds since its epoch, then a
// 12-bit sequence.
const (
	epochMilli = 1288834974657
	seqBits    = 12
)

var (
	mu       sync.Mutex
	lastMs   int64
	sequence int64
)

// next returns the next ID, waiting for the next millisecond when one runs
// out of sequence numbers.
func next() uint64 {
	mu.Lock()
	defer mu.Unlock()
	ms := time.Now().UnixMilli() - epochMilli
	for ms < lastMs || (ms == lastMs && sequence == 1<<seqBits-1) {
		ms = time.Now().UnixMilli() - epochMilli
	}
	if ms == lastMs {
		sequence++
	} else {
		lastMs, sequence = ms, 0
	}
	return uint64(ms<<(10+seqBits) | sequence)
}
