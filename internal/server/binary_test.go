package server

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/wire"
	"github.com/floeid/floe/workerid/workeridtest"
)

// slowRead reads nc to its end in reads of at most chunk bytes with a pause
// after each, as a client busy elsewhere does, calling each (when not nil)
// with the bytes read so far. It returns them and the error that ended the
// stream: nil for the end of the stream.
func slowRead(nc net.Conn, chunk int, pause time.Duration, each func(got []byte)) ([]byte, error) {
	var got []byte
	buf := make([]byte, chunk)
	for {
		n, err := nc.Read(buf)
		got = append(got, buf[:n]...)
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		if each != nil {
			each(got)
		}
		time.Sleep(pause) // the client's own pace, not a wait for the server
	}
}

// servedNoeq returns floe_requests_total{proto="noeq",code="ok"} from reg.
func servedNoeq(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != "floe_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := make(map[string]string)
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["proto"] == "noeq" && labels["code"] == "ok" {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// TestServer_CloseKeepsRepliesOwed closes connections on errors while
// replies are still on their way to a client that reads slowly and has
// sent more requests than the daemon read: every reply owed must arrive,
// then the end of the stream, not a reset.
func TestServer_CloseKeepsRepliesOwed(t *testing.T) {
	// full is one reply to a request for 255; failAfter lets the daemon
	// run ahead of the reader, so that much is in flight when it fails.
	const (
		full      = wire.MaxCount * wire.IDSize
		failAfter = 256 << 10
	)
	tests := []struct {
		name   string
		send   []byte
		rewind bool // rewind the clock an hour after failAfter bytes: the requests left fail
		lose   bool // lose the worker ID's lease after failAfter bytes
		want   int  // IDs owed; 0 when it depends on when the failure lands
	}{
		{
			name: "request byte 0",
			send: slices.Concat(bytes.Repeat([]byte{0xff}, 2000), []byte{0}, bytes.Repeat([]byte{1}, 4096)),
			want: 2000 * wire.MaxCount,
		},
		{
			name:   "clock behind after replies",
			send:   bytes.Repeat([]byte{0xff}, 8000),
			rewind: true,
		},
		{
			name: "lease lost after replies",
			send: bytes.Repeat([]byte{0xff}, 8000),
			lose: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := floetest.NewClock(start)
			ns := workeridtest.NewMemSource(1)
			reg := prometheus.NewRegistry()
			cfg := Config{Clock: clock, Policy: floe.Fail, Registry: reg}
			if tc.lose {
				cfg.Sequences = []SequenceConfig{{Name: "default", Source: ns}}
			}
			_, addr := newTestServer(t, cfg)
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(60 * time.Second))
			if _, err := nc.Write(tc.send); err != nil {
				t.Fatal(err)
			}
			failed := false
			each := func(got []byte) {
				switch {
				case failed || len(got) < failAfter:
					return
				case tc.rewind:
					clock.Rewind(time.Hour)
				case tc.lose:
					ns.Lose(0)
				}
				failed = true
			}
			got, err := slowRead(nc, 16<<10, time.Millisecond, each)
			owed := tc.want * wire.IDSize
			if tc.want == 0 {
				// Every request the daemon served before the failure.
				owed = int(servedNoeq(t, reg)) * full
			}
			t.Logf("received %d of %d bytes owed; the stream ended with %v", len(got), owed, err)
			if err != nil {
				t.Errorf("the stream ended with %v after %d of %d bytes, want the end of the stream", err, len(got), owed)
			}
			if len(got) != owed {
				t.Errorf("received %d bytes, want %d", len(got), owed)
			}
			if tc.want == 0 && len(got) >= len(tc.send)*full {
				t.Errorf("received all %d replies: no request failed", len(tc.send))
			}
			ids := make([]uint64, len(got)/wire.IDSize)
			wire.DecodeIDs(ids, got)
			if err := floetest.Increasing(ids, cmp.Compare[uint64]); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestServer_RefusalLogsBounded refuses many connections in a row, for each
// reason a connection logs, and checks that the log holds one line per
// reason, then one more carrying the count left out once the interval has
// passed.
func TestServer_RefusalLogsBounded(t *testing.T) {
	const conns = 50
	auth := func(token string) []byte {
		frame, err := wire.AppendAuth(nil, token)
		if err != nil {
			t.Fatal(err)
		}
		return frame
	}
	tests := []struct {
		name  string
		cfg   Config
		setup func(t *testing.T, addr string, clock *floetest.Clock) // before the connections
		send  []byte
		msg   string
	}{
		{
			name: "missing token",
			cfg:  Config{Sequences: []SequenceConfig{{Name: "default", Tokens: []string{"tok"}}}},
			send: []byte{1},
			msg:  "binary connection without the required token",
		},
		{
			name: "wrong token",
			cfg:  Config{Sequences: []SequenceConfig{{Name: "default", Tokens: []string{"tok"}}}},
			send: append(auth("nope"), 1),
			msg:  "binary connection with a wrong token",
		},
		{
			name: "request for 0 IDs",
			send: []byte{1, 0},
			msg:  "binary connection sent a request for 0 IDs",
		},
		{
			name: "sequence not id64",
			cfg:  Config{Sequences: []SequenceConfig{{Name: "default"}, {Name: "sno", Format: Format80, Tokens: []string{"sno"}}}},
			send: append(auth("sno"), 1),
			msg:  "binary connection for a sequence that is not id64",
		},
		{
			name: "clock behind the last ID",
			cfg:  Config{Policy: floe.Fail},
			setup: func(t *testing.T, addr string, clock *floetest.Clock) {
				if _, err := dialNoeq(t, addr, "").get(1); err != nil {
					t.Fatal(err)
				}
				clock.Rewind(time.Hour)
			},
			send: []byte{1},
			msg:  "closing a binary connection",
		},
		{
			name: "no worker ID",
			cfg: func() Config {
				ns := workeridtest.NewMemSource(1)
				if _, err := ns.Claim(context.Background()); err != nil { // held by another node
					t.Fatal(err)
				}
				return Config{Sequences: []SequenceConfig{{Name: "default", Source: ns}}}
			}(),
			msg: "binary connection refused: its sequence holds no worker ID",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs logBuffer
			clock := floetest.NewClock(start)
			cfg := tc.cfg
			cfg.Clock, cfg.Logger = clock, logs.logger()
			_, addr := newTestServer(t, cfg)
			if tc.setup != nil {
				tc.setup(t, addr, clock)
			}
			refuse := func() {
				t.Helper()
				c := dialNoeq(t, addr, "")
				c.nc.Write(tc.send)
				if _, err := io.ReadAll(c.nc); err != nil && !isReset(err) {
					t.Fatalf("connection not closed: %v", err)
				}
				c.nc.Close()
			}
			for range conns {
				refuse()
			}
			lines := logs.lines(t, tc.msg)
			if len(lines) != 1 || suppressed(lines[0]) != 0 {
				t.Fatalf("after %d refused connections: %d lines, want 1 without a count", conns, len(lines))
			}
			clock.Step(logEvery)
			refuse()
			lines = logs.lines(t, tc.msg)
			if len(lines) != 2 {
				t.Fatalf("after the interval: %d lines, want 2", len(lines))
			}
			if got, want := suppressed(lines[1]), conns-1; got != want {
				t.Errorf("suppressed = %d, want %d", got, want)
			}
			if lines[1]["remote"] == nil {
				t.Errorf("line %v carries no remote address", lines[1])
			}
		})
	}
}

// TestServer_AuthFrameReads sends auth frames longer than one read of the
// server, in one write or in pieces, with requests after them in the same
// write: each frame selects its sequence, and every request after it is
// served.
func TestServer_AuthFrameReads(t *testing.T) {
	long, longest := strings.Repeat("l", 200), strings.Repeat("x", wire.MaxToken)
	_, tokened := newTestServer(t, Config{Clock: floetest.NewClock(start), Sequences: []SequenceConfig{
		{Name: "default", Worker: 1, Tokens: []string{"main-token"}},
		{Name: "short", Worker: 2, Tokens: []string{"s"}},
		{Name: "long", Worker: 3, Tokens: []string{long}},
		{Name: "longest", Worker: 4, Tokens: []string{longest}},
	}})
	_, tokenless := newTestServer(t, Config{Clock: floetest.NewClock(start), Sequences: []SequenceConfig{{Name: "default", Worker: 5}}})
	requests := func(n int) []byte { return bytes.Repeat([]byte{3}, n) }
	tests := []struct {
		name   string
		addr   string
		token  string
		reqs   []byte
		pieces int // the writes the frame and requests are cut into
		worker uint64
	}{
		{name: "short token, requests after", addr: tokened, token: "s", reqs: requests(2), pieces: 1, worker: 2},
		{name: "more requests than a read", addr: tokened, token: "main-token", reqs: requests(500), pieces: 1, worker: 1},
		{name: "long token", addr: tokened, token: long, reqs: requests(10), pieces: 1, worker: 3},
		{name: "longest token", addr: tokened, token: longest, reqs: requests(100), pieces: 1, worker: 4},
		{name: "longest token in pieces", addr: tokened, token: longest, reqs: requests(100), pieces: 7, worker: 4},
		{name: "a byte at a time", addr: tokened, token: "main-token", reqs: requests(3), pieces: 15, worker: 1},
		{name: "longest token, no tokens configured", addr: tokenless, token: longest, reqs: requests(100), pieces: 3, worker: 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			frame, err := wire.AppendAuth(nil, tc.token)
			if err != nil {
				t.Fatal(err)
			}
			send := append(frame, tc.reqs...)
			c := dialNoeq(t, tc.addr, "")
			for i := range tc.pieces {
				if _, err := c.nc.Write(send[i*len(send)/tc.pieces : (i+1)*len(send)/tc.pieces]); err != nil {
					t.Fatal(err)
				}
			}
			got := make([]uint64, 3*len(tc.reqs))
			if _, err := wire.ReadIDs(c.r, got, nil); err != nil {
				t.Fatalf("replies to %d requests: %v", len(tc.reqs), err)
			}
			if err := floetest.Increasing(got, cmp.Compare[uint64]); err != nil {
				t.Error(err)
			}
			for _, id := range []uint64{got[0], got[len(got)-1]} {
				if w := id64.Twitter.Parts(id64.ID(id)).Worker; w != tc.worker {
					t.Fatalf("ID from worker %d, want %d", w, tc.worker)
				}
			}
		})
	}
}
