//go:build unix

package scenario_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/faultproxy"
	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/etcd"
	"github.com/floeid/floe/workerid/redis"
)

// The TestSeq scenarios run the sequencer package in this process, as an
// application embeds it: each sequencer stands for a process of its own,
// with its own coordinator client, on the sequence seqName of the Twitter
// layout (so that floedproc.Tick and floedproc.Node read its IDs). Every
// ID each one issues goes into a floedproc.Ledger.

// seqName is the sequence of the in-process scenarios.
const seqName = "orders"

// seqSlop is how late past a deadline a sequencer may still act on a
// loaded host under the race detector: its keeper's wake-up, the end of
// its term, a Next64 call in progress.
const seqSlop = 250 * time.Millisecond

// coordinator is where the sequencers of a scenario claim their worker
// IDs, with fault proxies in front of it for the processes that open
// their sequencer "faulty".
type coordinator interface {
	// tryOpen opens a sequencer of seqName as the process owner, with a
	// client of its own that reaches the coordinator through the fault
	// proxies when faulty. It is closed when the test ends.
	tryOpen(t *testing.T, owner string, faulty bool) (*seqProc, error)
	// proxies returns the fault proxies.
	proxies() []*faultproxy.Proxy
	// holdAllBut holds every worker ID of seqName but free, as a
	// process would, for longer than the test.
	holdAllBut(t *testing.T, free ...int)
	// free gives back a worker ID the test holds.
	free(t *testing.T, id int)
	// reservation reads a worker ID's reservation: R, and the last tick
	// of a clean release (0 when none).
	reservation(t *testing.T, id int) (r, last uint64)
}

// TestSeq_Etcd runs the in-process scenarios on one 3-member etcd, each
// under a cluster prefix of its own, with fault proxies of its own.
func TestSeq_Etcd(t *testing.T) {
	ec := etcdtest.Start(t, 3)
	runSeqScenarios(t, func(t *testing.T, cluster string) coordinator { return newEtcdCoord(t, ec, cluster) })
}

// TestSeq_Redis runs the in-process scenarios on one Redis server with AOF
// on, each under a key prefix of its own, with a fault proxy of its own.
// Quorum loss does not apply to a single Redis server.
func TestSeq_Redis(t *testing.T) {
	srv := redistest.Start(t, safeRedis...)
	runSeqScenarios(t, func(t *testing.T, cluster string) coordinator { return newRedisCoord(t, srv, cluster) })
}

// seqScenarios are the scenarios of every coordinator.
var seqScenarios = []struct {
	name string
	run  func(t *testing.T, c coordinator)
}{
	{"lease lost to a partition", func(t *testing.T, c coordinator) {
		seqLeaseLost(t, c, func(p *faultproxy.Proxy) { p.Blackhole(true) }, true)
	}},
	{"replies delayed past the TTL", func(t *testing.T, c coordinator) {
		seqLeaseLost(t, c, func(p *faultproxy.Proxy) { p.Delay(ttl * 3 / 4) }, false)
	}},
	{"graceful handoff", seqGracefulHandoff},
	{"two processes contending for one worker ID", seqContention},
	{"detach and attach under load", seqDetachAttach},
	{"destroy while serving", seqDestroy},
}

// runSeqScenarios runs every scenario on a coordinator of its own that
// start returns.
func runSeqScenarios(t *testing.T, start func(t *testing.T, cluster string) coordinator) {
	for i, sc := range seqScenarios {
		t.Run(sc.name, func(t *testing.T) { sc.run(t, start(t, fmt.Sprintf("seq%d", i))) })
	}
}

// seqProc is a process's sequencer and the client under it.
type seqProc struct {
	*sequencer.Sequencer
	who         string
	format      sequencer.Format // immutable: Format64 or Format128
	closeClient func()
}

// crash ends the sequencer as a killed process would: its worker ID is
// not released, and with its client closed its lease is no longer
// renewed, so the coordinator frees it after the TTL.
func (p *seqProc) crash() {
	p.Orphan()
	p.closeClient()
}

// serving waits up to d for p to serve and fails the test if it does not.
func (p *seqProc) serving(t *testing.T, d time.Duration) {
	t.Helper()
	p.waitState(t, d, sequencer.Serving)
}

// waitState waits up to d for p to be in one of states and returns when
// it saw it, or fails the test.
func (p *seqProc) waitState(t *testing.T, d time.Duration, states ...sequencer.State) time.Time {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if st, err := p.Wait(ctx, states...); err != nil {
		_, why := p.State()
		t.Fatalf("%s not %v within %v: %v, %v (%s)", p.who, states, d, st, err, why)
	}
	return time.Now()
}

// waitStateWithin waits for p to be in one of states for as long as the
// bound b (plus extra), stretched as the load goes on while it waits, and
// returns when it saw it, or fails the test.
func (p *seqProc) waitStateWithin(t *testing.T, b loadBound, extra time.Duration, states ...sequencer.State) time.Time {
	t.Helper()
	for {
		left := time.Until(b.deadline().Add(extra))
		if left <= 0 {
			st, why := p.State()
			_, want := b.check(time.Since(b.m.At))
			t.Fatalf("%s not %v within %s (+%v): %v (%s)", p.who, states, want, extra, st, why)
		}
		ctx, cancel := context.WithTimeout(context.Background(), min(left, 200*time.Millisecond))
		_, err := p.Wait(ctx, states...)
		cancel()
		if err == nil {
			return time.Now()
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s: waiting for %v: %v", p.who, states, err)
		}
	}
}

// wantState fails the test unless p is in state want now.
func (p *seqProc) wantState(t *testing.T, want sequencer.State) {
	t.Helper()
	if got, why := p.State(); got != want {
		t.Fatalf("%s is %v (%s), want %v", p.who, got, why, want)
	}
}

// openSeq opens a sequencer of seqName on c as the process owner (see
// coordinator.tryOpen), and fails the test if it cannot.
func openSeq(t *testing.T, c coordinator, owner string, faulty bool) *seqProc {
	t.Helper()
	p, err := c.tryOpen(t, owner, faulty)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// openOn opens the sequencer of seqName on the catalog, logging to a
// buffer that the test prints if it fails, and closes it when the test
// ends. It may run outside the test's goroutine.
func openOn(t *testing.T, owner string, def sequencer.Definition, catalog workerid.Catalog, sources func(workerid.Sequence) (workerid.Source, error), closeClient func()) (*seqProc, error) {
	buf := &floetest.Buffer{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sq, err := sequencer.Open(ctx, sequencer.Config{
		Name:       seqName,
		Definition: def,
		Catalog:    catalog,
		Sources:    sources,
		Window:     window,
		Logger:     slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		return nil, fmt.Errorf("%s: opening sequence %q: %w", owner, seqName, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		sq.Close(ctx)
		if t.Failed() {
			t.Logf("%s logged:\n%s", owner, buf.String())
		}
	})
	format := def.Format
	if format == "" {
		format = sequencer.Format64
	}
	return &seqProc{Sequencer: sq, who: owner, format: format, closeClient: closeClient}, nil
}

// seqSpec is the catalog's text of seqName's definition def.
func seqSpec(t *testing.T, def sequencer.Definition) string {
	t.Helper()
	spec, err := def.Spec()
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// seqIDs is how many worker IDs seqName has: the Twitter layout's 1,024
// nodes. An id128 sequence has room for 65,536, but its scenarios lease
// from the same 1,024, which the test can hold all but one of.
var seqIDs = sequencer.Definition{}.WorkerIDs()

// etcdCoord is a sequence on a 3-member embedded etcd.
type etcdCoord struct {
	ec      *etcdtest.Cluster
	ps      []*faultproxy.Proxy
	via     []string // the proxies' addresses
	cluster string
	def     sequencer.Definition // of seqName
	ns      *namespace
}

// newEtcdCoord defines seqName under the cluster prefix on ec, and puts
// fault proxies of its own in front of ec's members.
func newEtcdCoord(t *testing.T, ec *etcdtest.Cluster, cluster string) *etcdCoord {
	t.Helper()
	return newEtcdCoordOf(t, ec, cluster, sequencer.Definition{})
}

// newEtcdCoordOf is newEtcdCoord with seqName of definition def.
func newEtcdCoordOf(t *testing.T, ec *etcdtest.Cluster, cluster string, def sequencer.Definition) *etcdCoord {
	t.Helper()
	c := &etcdCoord{ec: ec, cluster: cluster, def: def}
	c.ps, c.via = proxyAll(t, c.ec)
	cli := c.ec.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seq, err := etcd.NewCatalog(cli, c.prefix()).Create(ctx, seqName, seqSpec(t, c.def))
	if err != nil {
		t.Fatalf("defining sequence %q: %v", seqName, err)
	}
	c.ns = &namespace{cli: cli, prefix: fmt.Sprintf("%sseq/%s/%d/", c.prefix(), seqName, seq.Gen), ids: seqIDs}
	return c
}

func (c *etcdCoord) prefix() string { return "/floe/v1/" + c.cluster + "/" }

func (c *etcdCoord) tryOpen(t *testing.T, owner string, faulty bool) (*seqProc, error) {
	eps := c.ec.Endpoints()
	if faulty {
		eps = c.via
	}
	cli := c.ec.ClientOf(t, eps)
	cat := etcd.NewCatalog(cli, c.prefix())
	sources := func(seq workerid.Sequence) (workerid.Source, error) {
		src, err := cat.Source(seq, etcd.Config{IDs: seqIDs, TTL: ttl, Owner: owner})
		if err != nil {
			return nil, err
		}
		return src, nil
	}
	return openOn(t, owner, c.def, cat, sources, func() { cli.Close() })
}

func (c *etcdCoord) proxies() []*faultproxy.Proxy         { return c.ps }
func (c *etcdCoord) holdAllBut(t *testing.T, free ...int) { c.ns.holdAllBut(t, free...) }
func (c *etcdCoord) free(t *testing.T, id int)            { c.ns.free(t, id) }
func (c *etcdCoord) reservation(t *testing.T, id int) (uint64, uint64) {
	return c.ns.reservation(t, id)
}

// redisCoord is a sequence on a Redis server with AOF on.
type redisCoord struct {
	srv     *redistest.Server
	proxy   *faultproxy.Proxy
	rdb     *goredis.Client // the test's own
	cluster string
	def     sequencer.Definition // of seqName
	ids     string               // the key prefix of the sequence generation's worker IDs
}

// newRedisCoord defines seqName under the cluster prefix on srv, and puts
// a fault proxy of its own in front of it.
func newRedisCoord(t *testing.T, srv *redistest.Server, cluster string) *redisCoord {
	t.Helper()
	return newRedisCoordOf(t, srv, cluster, sequencer.Definition{})
}

// newRedisCoordOf is newRedisCoord with seqName of definition def.
func newRedisCoordOf(t *testing.T, srv *redistest.Server, cluster string, def sequencer.Definition) *redisCoord {
	t.Helper()
	c := &redisCoord{srv: srv, cluster: cluster, def: def}
	p, err := faultproxy.Listen(c.srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	c.proxy = p
	c.rdb = redisClient(t, c.srv.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seq, err := redis.NewCatalog(c.rdb, c.prefix()).Create(ctx, seqName, seqSpec(t, c.def))
	if err != nil {
		t.Fatalf("defining sequence %q: %v", seqName, err)
	}
	c.ids = fmt.Sprintf("%sseq/%s/%d/", c.prefix(), seqName, seq.Gen)
	return c
}

// redisClient returns a client of the Redis server at addr, closed when
// the test ends.
func redisClient(t *testing.T, addr string) *goredis.Client {
	rdb := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func (c *redisCoord) prefix() string { return "floe/v1/" + c.cluster + "/" }

func (c *redisCoord) tryOpen(t *testing.T, owner string, faulty bool) (*seqProc, error) {
	addr := c.srv.Addr
	if faulty {
		addr = c.proxy.Addr()
	}
	rdb := redisClient(t, addr)
	cat := redis.NewCatalog(rdb, c.prefix())
	sources := func(seq workerid.Sequence) (workerid.Source, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		src, err := cat.Source(ctx, seq, redis.Config{IDs: seqIDs, TTL: ttl, Owner: owner})
		if err != nil {
			return nil, err
		}
		return src, nil
	}
	return openOn(t, owner, c.def, cat, sources, func() { rdb.Close() })
}

func (c *redisCoord) proxies() []*faultproxy.Proxy { return []*faultproxy.Proxy{c.proxy} }

func (c *redisCoord) ownerKey(id int) string { return c.ids + "workers/" + strconv.Itoa(id) }

func (c *redisCoord) holdAllBut(t *testing.T, free ...int) {
	t.Helper()
	skip := make(map[int]bool)
	for _, id := range free {
		skip[id] = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pipe := c.rdb.Pipeline()
	for id := range seqIDs {
		if !skip[id] {
			pipe.Set(ctx, c.ownerKey(id), "test-holder", time.Hour)
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatalf("holding worker IDs: %v", err)
	}
}

func (c *redisCoord) free(t *testing.T, id int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if n, err := c.rdb.Del(ctx, c.ownerKey(id)).Result(); err != nil || n != 1 {
		t.Fatalf("freeing worker ID %d: deleted %d, %v", id, n, err)
	}
}

func (c *redisCoord) reservation(t *testing.T, id int) (r, last uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := c.rdb.Get(ctx, c.ids+"reserved/"+strconv.Itoa(id)).Result()
	if errors.Is(err, goredis.Nil) {
		return 0, 0
	}
	if err != nil {
		t.Fatalf("reading the reservation of worker ID %d: %v", id, err)
	}
	// "R:last:owner"
	f := strings.SplitN(v, ":", 3)
	if len(f) != 3 {
		t.Fatalf("reservation of worker ID %d: %q", id, v)
	}
	if r, err = strconv.ParseUint(f[0], 10, 64); err == nil {
		last, err = strconv.ParseUint(f[1], 10, 64)
	}
	if err != nil {
		t.Fatalf("reservation of worker ID %d: %q: %v", id, v, err)
	}
	return r, last
}

// seqFeed is an application's load on one sequencer: goroutines calling
// Next64 a few times every couple of milliseconds, throughout, recording
// every ID in the ledger and its batches as who's.
type seqFeed struct {
	batchLog
	sq      *seqProc
	stop    chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
	refused atomic.Int64 // calls that returned an error
	keyErr  atomic.Value // error: an id128 ID that has no ledger key
}

// The load of a seqFeed's goroutine: seqBurst calls every seqPause.
const (
	seqBurst = 4
	seqPause = 2 * time.Millisecond
)

// startSeqFeed starts callers goroutines calling p.Next64, and stops them
// when the test ends, if not before. A feed of an id64 sequence then checks
// that no ID was stamped before its call (checkStamps).
func startSeqFeed(t *testing.T, led *floedproc.Ledger, p *seqProc, callers int) *seqFeed {
	f := &seqFeed{batchLog: batchLog{led: led}, sq: p, stop: make(chan struct{})}
	t.Cleanup(func() {
		if err, ok := f.keyErr.Load().(error); ok {
			t.Errorf("%s: %v", p.who, err)
		}
	})
	if p.format != sequencer.Format128 {
		t.Cleanup(func() { checkStamps(t, f.all(p.who)) })
	}
	for range callers {
		f.wg.Go(f.run)
	}
	t.Cleanup(f.halt)
	return f
}

func (f *seqFeed) run() {
	for {
		select {
		case <-f.stop:
			return
		default:
		}
		ids := make([]uint64, 0, seqBurst)
		sent := time.Now()
		for range seqBurst {
			id, err := f.next()
			if err != nil {
				f.refused.Add(1)
				break
			}
			ids = append(ids, id)
		}
		if len(ids) > 0 {
			f.record(f.sq.who, sent, ids)
		}
		time.Sleep(seqPause)
	}
}

// next takes an ID of the feed's sequencer: an id64 as it is, or an
// id128 as its ledger key (see key128).
func (f *seqFeed) next() (uint64, error) {
	if f.sq.format == sequencer.Format128 {
		id, err := f.sq.Next128()
		if err != nil {
			return 0, err
		}
		k, err := key128(id)
		if err != nil {
			f.keyErr.CompareAndSwap(nil, err)
		}
		return k, err
	}
	id, err := f.sq.Next64()
	return uint64(id), err
}

// halt stops the feed and waits for its goroutines to return.
func (f *seqFeed) halt() {
	f.once.Do(func() { close(f.stop) })
	f.wg.Wait()
}

// waitIDs waits up to d until the feed received n IDs at or after from,
// and fails the test if not.
func (f *seqFeed) waitIDs(t *testing.T, n int, from time.Time, d time.Duration) {
	t.Helper()
	if !floedproc.WaitFor(d, func() bool {
		_, _, got := tickRange(f.received(f.sq.who, from, time.Time{}))
		return got >= n
	}) {
		_, why := f.sq.State()
		t.Fatalf("%s issued fewer than %d IDs within %v (%s)", f.sq.who, n, d, why)
	}
}

// onlyWorker fails the test unless every ID in bs is of worker ID id.
func onlyWorker(t *testing.T, who string, bs []batch, id int) {
	t.Helper()
	for node, n := range nodes(bs) {
		if node != id {
			t.Errorf("%s issued %d IDs of worker ID %d, want only worker ID %d", who, n, node, id)
		}
	}
}

// setFault applies fault to every proxy of c, and heals them when the
// test ends.
func setFault(t *testing.T, c coordinator, fault func(p *faultproxy.Proxy)) {
	for _, p := range c.proxies() {
		fault(p)
	}
	t.Cleanup(func() { healAll(c) })
}

// healAll turns every proxy's fault off, and resets its connections:
// replies still held back are stale, as a real network's would have timed
// out.
func healAll(c coordinator) {
	for _, p := range c.proxies() {
		p.Heal()
		p.Reset()
	}
}
