//go:build unix

package scenario_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/floedproc"
)

// feed is a client of one daemon at a time: a few binary connections (or
// keep-alive HTTP clients, for a named sequence), each asking for IDs in a
// loop and dialing again at once when the daemon closes it or a request
// times out. Every ID it receives goes into the ledger and, with the time
// it arrived, into its batches.
type feed struct {
	batchLog
	t    testing.TB
	opts feedOpts
	bad  sync.Once // reports the first reply it cannot read
	dest atomic.Pointer[dest]
	stop chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

// batchLog records the IDs a client received in a ledger and, with the
// time each batch arrived, in its batches. It is safe for concurrent use.
type batchLog struct {
	led *floedproc.Ledger // immutable

	mu      sync.Mutex
	batches []batch // guarded by mu
}

// feedOpts shapes a feed's load; a zero field means its default.
type feedOpts struct {
	conns   int           // connections, default 2
	count   int           // IDs per request, default 8
	pause   time.Duration // between the requests of one connection, default 4 ms; <0 for none
	timeout time.Duration // of one request, default 1 s
	// seq, when set, is a named sequence asked over HTTP (GET /v1/ids),
	// id64 or id128 (recorded by nodeKey128), instead of the default sequence
	// over the binary protocol.
	seq string
	// clockBehind says that a daemon the feed asks runs with its clock
	// set behind (--clock-offset below zero), so that its IDs are stamped
	// before their requests by design. Otherwise a feed of the default
	// sequence checks at the test's end that none is (checkStamps).
	clockBehind bool
}

// dest is the daemon a feed asks, and the name its IDs are recorded
// under. The process, not its address, is what a connection must reach:
// the OS may give a port to the next incarnation of a node once the one
// before has exited.
type dest struct {
	who  string
	proc *floedproc.Proc
}

// batch is one reply.
type batch struct {
	who  string
	sent time.Time // when the request was sent
	at   time.Time // when the reply arrived
	ids  []uint64  // as the ledger keys them: an id128 by nodeKey128
}

// Back-offs of a feed's connection: a daemon without a worker ID closes
// connections at once, and a tight loop of dials would only burn ports.
const (
	redialAfterFailure = 20 * time.Millisecond
	redialAfterClose   = 2 * time.Millisecond
)

// startFeed starts a feed asking p, recording its IDs as who's. It stops
// when the test ends, if not before; a feed of the default sequence (the
// Twitter layout) then checks that no ID it received was stamped before
// its request, unless opts.clockBehind.
func startFeed(t *testing.T, led *floedproc.Ledger, p *floedproc.Proc, who string, opts feedOpts) *feed {
	t.Helper()
	if opts.conns == 0 {
		opts.conns = 2
	}
	if opts.count == 0 {
		opts.count = 8
	}
	if opts.pause == 0 {
		opts.pause = 4 * time.Millisecond
	}
	if opts.timeout == 0 {
		opts.timeout = time.Second
	}
	f := &feed{batchLog: batchLog{led: led}, t: t, opts: opts, stop: make(chan struct{})}
	f.point(p, who)
	for range opts.conns {
		f.wg.Add(1)
		go f.run()
	}
	t.Cleanup(func() {
		f.halt()
		if opts.seq == "" && !opts.clockBehind {
			checkStamps(t, f.all(""))
		}
	})
	return f
}

// point makes the feed ask p from now on, recording its IDs as who's.
func (f *feed) point(p *floedproc.Proc, who string) {
	f.dest.Store(&dest{who: who, proc: p})
}

// halt stops the feed and waits for its connections to end.
func (f *feed) halt() {
	f.once.Do(func() { close(f.stop) })
	f.wg.Wait()
}

func (f *feed) stopped() bool {
	select {
	case <-f.stop:
		return true
	default:
		return false
	}
}

func (f *feed) run() {
	defer f.wg.Done()
	for !f.stopped() {
		d := f.dest.Load()
		c, err := f.dial(d.proc)
		if err != nil {
			time.Sleep(redialAfterFailure)
			continue
		}
		served := false
		for !f.stopped() && f.dest.Load() == d {
			sent := time.Now()
			ids, err := c.Fetch(f.opts.count)
			if err != nil {
				if errors.Is(err, errBadReply) {
					f.bad.Do(func() { f.t.Errorf("%s: %v", d.who, err) })
				}
				break
			}
			served = true
			f.record(d.who, sent, ids)
			if f.opts.pause > 0 {
				time.Sleep(f.opts.pause)
			}
		}
		c.Close()
		if served {
			time.Sleep(redialAfterClose)
		} else {
			time.Sleep(redialAfterFailure)
		}
	}
}

// fetcher is one connection of a feed.
type fetcher interface {
	Fetch(n int) ([]uint64, error)
	Close() error
}

// dial opens a connection to the daemon p: binary, or HTTP for a named
// sequence. Either reaches p itself or fails, never another process that
// took p's address after it exited.
func (f *feed) dial(p *floedproc.Proc) (fetcher, error) {
	if f.opts.seq != "" {
		return newHTTPConn(p, f.opts.seq, f.opts.timeout), nil
	}
	c, err := p.Dial("", f.opts.timeout)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// record adds the IDs of a request sent at sent, whose reply just
// arrived.
func (l *batchLog) record(who string, sent time.Time, ids []uint64) {
	l.led.Add(who, ids...)
	l.mu.Lock()
	l.batches = append(l.batches, batch{who: who, sent: sent, at: time.Now(), ids: ids})
	l.mu.Unlock()
}

// received returns the batches that arrived from who ("" for anyone) at
// or after from and before to (a zero to for no end).
func (l *batchLog) received(who string, from, to time.Time) []batch {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []batch
	for _, b := range l.batches {
		if (who == "" || b.who == who) && !b.at.Before(from) && (to.IsZero() || b.at.Before(to)) {
			out = append(out, b)
		}
	}
	return out
}

// all returns every batch from who ("" for anyone).
func (l *batchLog) all(who string) []batch { return l.received(who, time.Time{}, time.Time{}) }

// waitServed waits up to d for a batch from who that arrived at or after
// from, and returns it.
func (l *batchLog) waitServed(who string, from time.Time, d time.Duration) (batch, bool) {
	var got batch
	ok := floedproc.WaitFor(d, func() bool { return l.first(who, from, &got) })
	return got, ok
}

// first sets *got to the first batch from who that arrived at or after
// from, and reports whether there was one.
func (l *batchLog) first(who string, from time.Time, got *batch) bool {
	bs := l.received(who, from, time.Time{})
	if len(bs) == 0 {
		return false
	}
	*got = bs[0]
	return true
}

// tickRange returns the lowest and highest tick of the batches' IDs and
// how many IDs they hold.
func tickRange(bs []batch) (lo, hi uint64, n int) {
	for _, b := range bs {
		for _, id := range b.ids {
			tk := floedproc.Tick(id)
			if n == 0 || tk < lo {
				lo = tk
			}
			hi = max(hi, tk)
			n++
		}
	}
	return lo, hi, n
}

// nodes returns the nodes (worker IDs) of the batches' IDs and how many
// IDs each issued.
func nodes(bs []batch) map[int]int {
	m := make(map[int]int)
	for _, b := range bs {
		for _, id := range b.ids {
			m[floedproc.Node(id)]++
		}
	}
	return m
}

// checkLedger fails the test on any duplicate the ledger recorded.
func checkLedger(t *testing.T, led *floedproc.Ledger) {
	t.Helper()
	if err := led.Err(); err != nil {
		t.Error(err)
		return
	}
	t.Logf("%d IDs, all unique", led.Len())
	if led.Len() == 0 {
		t.Error("no ID was issued at all")
	}
}

// aboveAfterFault fails the test if a batch issued tick aHi or below on
// worker ID id: every holder of id after a's fault must start above a's
// last tick.
func aboveAfterFault(t *testing.T, id int, aHi uint64, sources ...[]batch) {
	t.Helper()
	for _, bs := range sources {
		for _, bt := range bs {
			for _, v := range bt.ids {
				if floedproc.Node(v) == id && floedproc.Tick(v) <= aHi {
					t.Fatalf("%s issued tick %d of worker ID %d after a's fault, not above a's last tick %d", bt.who, floedproc.Tick(v), id, aHi)
				}
			}
		}
	}
}

// checkStamps fails the test on any ID of bs (Twitter layout) stamped
// before it was asked for: whose tick ended before its request was sent,
// as an ID of a stale clock or of an old term would be.
func checkStamps(t *testing.T, bs []batch) {
	t.Helper()
	n := 0
	for _, b := range bs {
		for _, id := range b.ids {
			if end, early := floedproc.StampedEarly(id, b.sent); early {
				if n++; n <= 5 {
					t.Errorf("%s: ID %d of tick %d (ended %v) stamped %v before its request was sent at %v",
						b.who, id, floedproc.Tick(id), end.Format("15:04:05.000"), b.sent.Sub(end), b.sent.Format("15:04:05.000"))
				}
			}
		}
	}
	if n > 5 {
		t.Errorf("%d IDs in all stamped before their request", n)
	}
}
