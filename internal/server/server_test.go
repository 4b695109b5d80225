package server

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/wire"
	"github.com/prometheus/client_golang/prometheus"
)

// memStore is a Store in memory that can be told to fail.
type memStore struct {
	mu    sync.Mutex
	recs  map[string]Record
	saves int
	fail  error
}

func newMemStore() *memStore { return &memStore{recs: make(map[string]Record)} }

func (m *memStore) Load(name string) (Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.recs[name]
	return r, ok, nil
}

func (m *memStore) Save(name string, r Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	if old, ok := m.recs[name]; ok && r.Reserved < old.Reserved {
		return errors.New("reservation going down")
	}
	m.recs[name] = r
	m.saves++
	return nil
}

func (m *memStore) get(name string) Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.recs[name]
}

func (m *memStore) setFail(err error) {
	m.mu.Lock()
	m.fail = err
	m.mu.Unlock()
}

var start = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// newTestServer starts a server on cfg (filling in a store, a fake clock and
// a quiet logger when unset) with a binary listener on loopback.
func newTestServer(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	if cfg.Store == nil {
		cfg.Store = newMemStore()
	}
	if cfg.Logger == nil {
		cfg.Logger = quietLogger()
	}
	if len(cfg.Sequences) == 0 {
		cfg.Sequences = []SequenceConfig{{Name: "default"}}
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	return s, l.Addr().String()
}

// noeqConn is a minimal binary-protocol client for the tests.
type noeqConn struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

func dialNoeq(t *testing.T, addr, token string) *noeqConn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	if token != "" {
		frame, err := wire.AppendAuth(nil, token)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := nc.Write(frame); err != nil {
			t.Fatal(err)
		}
	}
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	return &noeqConn{t: t, nc: nc, r: bufio.NewReader(nc)}
}

// get asks for n IDs; it returns the error of a closed connection.
func (c *noeqConn) get(n int) ([]uint64, error) {
	if _, err := c.nc.Write([]byte{byte(n)}); err != nil {
		return nil, err
	}
	ids := make([]uint64, n)
	_, err := wire.ReadIDs(c.r, ids, nil)
	return ids, err
}

// closed reports whether the server closed the connection.
func (c *noeqConn) closed() bool {
	_, err := c.r.ReadByte()
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err)
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}

func TestServer_BinaryIDs(t *testing.T) {
	clock := floetest.NewClock(start)
	_, addr := newTestServer(t, Config{Clock: clock, Sequences: []SequenceConfig{{Name: "default", Datacenter: 3, Worker: 7}}})
	c := dialNoeq(t, addr, "")
	var all []uint64
	for _, n := range []int{1, 2, 255, 17, 255, 255} {
		ids, err := c.get(n)
		if err != nil {
			t.Fatalf("get(%d): %v", n, err)
		}
		all = append(all, ids...)
	}
	if err := floetest.Increasing(all, cmp.Compare[uint64]); err != nil {
		t.Fatal(err)
	}
	p := id64.Twitter.Parts(id64.ID(all[0]))
	if p.Datacenter != 3 || p.Worker != 7 || p.Time.Before(start) || p.Time.After(start.Add(time.Second)) {
		t.Errorf("first ID parts %+v: want datacenter 3, worker 7, time near %v", p, start)
	}
}

func TestServer_PipelinedRequests(t *testing.T) {
	_, addr := newTestServer(t, Config{Clock: floetest.NewClock(start)})
	c := dialNoeq(t, addr, "")
	req := make([]byte, 100)
	for i := range req {
		req[i] = byte(i%255 + 1)
	}
	if _, err := c.nc.Write(req); err != nil {
		t.Fatal(err)
	}
	var total int
	for _, n := range req {
		total += int(n)
	}
	ids := make([]uint64, total)
	if _, err := wire.ReadIDs(c.r, ids, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(ids) {
		t.Error("pipelined replies are not increasing")
	}
	if err := floetest.Unique(ids); err != nil {
		t.Error(err)
	}
}

func TestServer_Auth(t *testing.T) {
	seqs := []SequenceConfig{
		{Name: "default", Worker: 1, Tokens: []string{"main-token"}},
		{Name: "tenant", Worker: 2, Tokens: []string{"tenant-a", "tenant-b"}},
	}
	_, addr := newTestServer(t, Config{Clock: floetest.NewClock(start), Sequences: seqs})
	tests := []struct {
		name   string
		token  string
		worker uint64 // 0: the connection is closed
	}{
		{"default token", "main-token", 1},
		{"tenant token", "tenant-a", 2},
		{"second tenant token", "tenant-b", 2},
		{"wrong token", "nope", 0},
		{"token prefix", "main", 0},
		{"no token", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := dialNoeq(t, addr, tc.token)
			ids, err := c.get(1)
			if tc.worker == 0 {
				if err == nil {
					t.Fatalf("got ID %d, want a closed connection", ids[0])
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := id64.Twitter.Parts(id64.ID(ids[0])).Worker; got != tc.worker {
				t.Errorf("worker %d, want %d", got, tc.worker)
			}
		})
	}
}

func TestServer_AuthFrameWithoutTokens(t *testing.T) {
	_, addr := newTestServer(t, Config{Clock: floetest.NewClock(start)})
	c := dialNoeq(t, addr, "any-token")
	if _, err := c.get(3); err != nil {
		t.Fatalf("an auth frame on a server without tokens is read and ignored: %v", err)
	}
}

func TestServer_BadInputCloses(t *testing.T) {
	s, addr := newTestServer(t, Config{Clock: floetest.NewClock(start), AuthTimeout: 50 * time.Millisecond,
		Sequences: []SequenceConfig{{Name: "default", Tokens: []string{"tok"}}}})
	tests := []struct {
		name string
		send []byte
	}{
		{"request byte 0", []byte{0, 3, 't', 'o', 'k', 0}},
		{"half an auth frame, then silence", []byte{0, 3, 't'}},
		{"nothing, then silence", nil},
		{"second auth frame", []byte{0, 3, 't', 'o', 'k', 0, 3, 't', 'o', 'k'}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := dialNoeq(t, addr, "")
			c.nc.Write(tc.send)
			if !c.closed() {
				t.Error("connection not closed")
			}
		})
	}
	// The server still serves others.
	if _, err := dialNoeq(t, addr, "tok").get(5); err != nil {
		t.Fatal(err)
	}
	_ = s
}

func TestServer_MaxConns(t *testing.T) {
	_, addr := newTestServer(t, Config{Clock: floetest.NewClock(start), MaxConns: 2})
	a, b := dialNoeq(t, addr, ""), dialNoeq(t, addr, "")
	for _, c := range []*noeqConn{a, b} {
		if _, err := c.get(1); err != nil {
			t.Fatal(err)
		}
	}
	if !dialNoeq(t, addr, "").closed() {
		t.Fatal("connection over the limit not closed")
	}
	a.nc.Close()
	// The slot frees once the server sees the close.
	for i := 0; ; i++ {
		if _, err := dialNoeq(t, addr, "").get(1); err == nil {
			break
		}
		if i == 1000 {
			t.Fatal("the closed connection's slot never freed")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestServer_NonID64OverBinary(t *testing.T) {
	_, addr := newTestServer(t, Config{Clock: floetest.NewClock(start), Sequences: []SequenceConfig{
		{Name: "default"}, {Name: "sno", Format: Format80, Tokens: []string{"sno"}},
		{Name: "guid", Format: Format96, Node: 1, Tokens: []string{"guid"}},
		{Name: "uuid", Format: Format128, Tokens: []string{"uuid"}},
	}})
	for _, token := range []string{"sno", "guid", "uuid"} {
		if _, err := dialNoeq(t, addr, token).get(1); err == nil {
			t.Errorf("sequence %s served 8-byte IDs over the binary protocol", token)
		}
	}
}

func TestNew_Refuses(t *testing.T) {
	store := newMemStore()
	store.recs["default"] = Record{Definition: "id64 layout=\"something else\" datacenter=0 worker=0", Reserved: 5}
	tests := []struct {
		name string
		cfg  Config
		want error
	}{
		{"changed definition", Config{Store: store, Sequences: []SequenceConfig{{Name: "default"}}}, ErrDefinition},
		{"no sequences", Config{Store: newMemStore()}, ErrConfig},
		{"no store", Config{Sequences: []SequenceConfig{{Name: "a"}}}, ErrConfig},
		{"duplicate names", Config{Store: newMemStore(), Sequences: []SequenceConfig{{Name: "a"}, {Name: "a"}}}, ErrConfig},
		{"name with a slash", Config{Store: newMemStore(), Sequences: []SequenceConfig{{Name: "a/b"}}}, ErrConfig},
		{"shared token", Config{Store: newMemStore(), Sequences: []SequenceConfig{{Name: "a", Tokens: []string{"t"}}, {Name: "b", Tokens: []string{"t"}}}}, ErrConfig},
		{"ticktock", Config{Store: newMemStore(), Policy: floe.TickTock, Sequences: []SequenceConfig{{Name: "a"}}}, ErrConfig},
		{"unknown format", Config{Store: newMemStore(), Sequences: []SequenceConfig{{Name: "a", Format: "id32"}}}, ErrConfig},
		{"id96 node 0", Config{Store: newMemStore(), Sequences: []SequenceConfig{{Name: "a", Format: Format96}}}, ErrConfig},
		{"id128 worker above 65535", Config{Store: newMemStore(), Sequences: []SequenceConfig{{Name: "a", Format: Format128, Node: 65536}}}, ErrConfig},
		{"tiny window", Config{Store: newMemStore(), Window: time.Millisecond, Sequences: []SequenceConfig{{Name: "a"}}}, ErrConfig},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Logger = quietLogger()
			s, err := New(tc.cfg)
			if !errors.Is(err, tc.want) {
				if s != nil {
					s.Close()
				}
				t.Errorf("got %v, want %v", err, tc.want)
			}
			if ms, ok := tc.cfg.Store.(*memStore); ok && tc.want == ErrConfig && ms.saves != 0 {
				t.Errorf("a refused configuration wrote %d reservations", ms.saves)
			}
		})
	}
}

func TestServer_ShutdownFinishesInFlight(t *testing.T) {
	clock := floetest.NewClock(start)
	s, addr := newTestServer(t, Config{Clock: clock})
	c := dialNoeq(t, addr, "")
	if _, err := c.get(1); err != nil {
		t.Fatal(err)
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !c.closed() {
		t.Error("idle connection not closed by Shutdown")
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Error("still accepting after Shutdown")
	}
}

// gathered returns the value of the default sequence's series of the named
// counter or gauge in reg.
func gathered(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "seq" && l.GetValue() == "default" {
					if c := m.GetCounter(); c != nil {
						return c.GetValue()
					}
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	t.Fatalf("no %s{seq=\"default\"} gathered", name)
	return 0
}
