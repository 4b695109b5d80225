package redisgen

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id64"
	"github.com/redis/go-redis/v9"
)

//go:embed script.lua
var scriptSource string

// script runs by EVALSHA and falls back to EVAL (which caches it again) when
// the server answers NOSCRIPT, after a restart or SCRIPT FLUSH.
var script = redis.NewScript(scriptSource)

// Client issues IDs from a set of Redis servers, each generating them with
// the script under its own shard ID. It is safe for concurrent use.
type Client struct {
	servers []*server   // immutable
	layout  id64.Layout // immutable
	opts    options     // immutable
	keys    []string    // immutable: the shard and state keys
	args    []any       // immutable: the script's fixed arguments
	tshift  uint        // immutable: bits below the time field
	next    atomic.Uint64
}

type server struct {
	addr  string
	rdb   *redis.Client
	shard uint64 // immutable: read at start
	// down is the Unix nanoseconds until which the server is passed over:
	// the end of its cool-down after a failure, or of the request timeout
	// of the one call probing it after the cool-down; 0 once it answered.
	down atomic.Int64
	// busy counts the requests to the server under way; progress is the
	// Unix nanoseconds of its last reply, or of the start of a request
	// sent while none was under way. A server with requests under way and
	// no reply for a stall is passed over before any of them times out.
	busy     atomic.Int64
	progress atomic.Int64
}

// stallDivisor sets the stall: a quarter of the request timeout.
const stallDivisor = 4

// begin records a request to s sent at now; end, its reply or failure.
func (s *server) begin(now int64) {
	if s.busy.Add(1) == 1 {
		s.progress.Store(now)
	}
}

func (s *server) end() {
	s.progress.Store(time.Now().UnixNano())
	s.busy.Add(-1)
}

// New connects to the servers at addrs, loads the script into each, reads
// each server's shard ID and refuses to start when a server has none, when
// two share one, or when a server cannot be reached: uniqueness across
// servers rests on their shards being distinct, so the client checks all of
// them before it issues anything.
func New(ctx context.Context, addrs []string, opt ...Option) (*Client, error) {
	if len(addrs) == 0 {
		return nil, ErrNoServers
	}
	o := defaults()
	for _, f := range opt {
		f(&o)
	}
	args, err := scriptArgs(o.layout)
	if err != nil {
		return nil, err
	}
	c := &Client{
		layout: o.layout,
		opts:   o,
		keys:   []string{o.shardKey(), o.stateKey()},
		args:   args,
		tshift: uint(o.layout.NodeBits() + o.layout.SequenceBits),
	}
	startErr := &Error{Op: "start"}
	owner := map[uint64]string{}
	for _, addr := range addrs {
		s := &server{addr: addr, rdb: redis.NewClient(o.redisOptions(addr))}
		c.servers = append(c.servers, s)
		shard, err := c.readShard(ctx, s)
		if err == nil {
			if prev, dup := owner[shard]; dup {
				err = fmt.Errorf("%w: shard %d is also %s's", ErrDuplicateShard, shard, prev)
			}
			owner[shard] = addr
			s.shard = shard
		}
		if err != nil {
			startErr.Attempts = append(startErr.Attempts, &AttemptError{Addr: addr, Err: err})
		}
	}
	if len(startErr.Attempts) > 0 {
		c.Close()
		return nil, startErr
	}
	return c, nil
}

// readShard loads the script and reads the server's shard ID.
func (c *Client) readShard(ctx context.Context, s *server) (uint64, error) {
	if err := script.Load(ctx, s.rdb).Err(); err != nil {
		return 0, err
	}
	raw, err := s.rdb.Get(ctx, c.keys[0]).Result()
	if errors.Is(err, redis.Nil) {
		return 0, fmt.Errorf("%w: key %s is not set (floe redis init --shard N; a server that had one lost it in a restart without AOF, and with it its last tick: redisgen is restart-safe only with appendonly yes and appendfsync always)", ErrNoShard, c.keys[0])
	}
	if err != nil {
		return 0, err
	}
	shard, err := strconv.ParseUint(raw, 10, 64)
	if err != nil || shard > c.layout.MaxNode() {
		return 0, fmt.Errorf("%w: key %s holds %q, want 0..%d", ErrBadShard, c.keys[0], raw, c.layout.MaxNode())
	}
	return shard, nil
}

// Close closes the connections to every server.
func (c *Client) Close() error {
	var errs []error
	for _, s := range c.servers {
		errs = append(errs, s.rdb.Close())
	}
	return errors.Join(errs...)
}

// Layout returns the client's layout.
func (c *Client) Layout() id64.Layout { return c.layout }

// Shards returns each server's address and shard ID, in the order given to
// New.
func (c *Client) Shards() map[string]uint64 {
	m := make(map[string]uint64, len(c.servers))
	for _, s := range c.servers {
		m[s.addr] = s.shard
	}
	return m
}

// Next returns one new ID.
func (c *Client) Next(ctx context.Context) (id64.ID, error) {
	b, err := c.reserve(ctx, 1)
	if err != nil {
		return 0, err
	}
	return c.compose(b, 0), nil
}

// NextN returns n new IDs. A server hands out at most one tick's sequence
// per call, so large requests take several calls, possibly to several
// servers; each run of IDs from one call increases.
func (c *Client) NextN(ctx context.Context, n int) ([]id64.ID, error) {
	ids := make([]id64.ID, 0, n)
	for len(ids) < n {
		b, err := c.reserve(ctx, uint64(n-len(ids)))
		if err != nil {
			return ids, err
		}
		for i := range b.count {
			ids = append(ids, c.compose(b, i))
		}
	}
	return ids, nil
}

// batch is one reply of the script.
type batch struct{ shard, tick, first, count uint64 }

func (c *Client) compose(b batch, i uint64) id64.ID {
	return id64.ID(b.tick<<c.tshift | b.shard<<uint(c.layout.SequenceBits) | (b.first + i))
}

// reserve runs the script on the servers round robin and returns the first
// batch one of them gives. Failures (an unreachable server, a clock behind
// its last tick) count against opts.attempts, with a quadratic back-off
// between them. A spent tick is not a failure: the call moves on, and waits
// for the next tick where every server tried has spent its own, for at most
// opts.maxWait in all.
func (c *Client) reserve(ctx context.Context, want uint64) (batch, error) {
	const keep = 16 // attempts listed in an error; enough to see every server
	var attempts []*AttemptError
	record := func(s *server, err error) {
		if len(attempts) == keep {
			attempts = slices.Delete(attempts, 0, 1)
		}
		attempts = append(attempts, &AttemptError{Addr: s.addr, Err: err})
	}
	fail := func() error { return &Error{Op: "next", Attempts: attempts} }
	retryAt := map[*server]time.Time{} // servers that spent their tick, and when the next begins
	var failures int
	var waited time.Duration
	start := c.next.Add(1) - 1
	for k := uint64(0); ; k++ {
		s := c.pick(start + k)
		wait := c.opts.backoff * time.Duration(failures*failures)
		if at, ok := retryAt[s]; ok {
			wait = max(wait, time.Until(at))
		}
		if wait > 0 {
			if err := sleep(ctx, wait); err != nil {
				record(s, err)
				return batch{}, fail()
			}
			waited += wait
		}
		b, err := c.run(ctx, s, want)
		if err == nil {
			s.down.Store(0)
			return b, nil
		}
		record(s, err)
		var ex *exhaustedError
		switch {
		case ctx.Err() != nil:
			return batch{}, fail()
		case errors.As(err, &ex):
			if waited+ex.wait > c.opts.maxWait {
				return batch{}, fail()
			}
			retryAt[s] = time.Now().Add(ex.wait)
		default:
			s.down.Store(time.Now().Add(c.opts.cooldown).UnixNano())
			if failures++; failures >= c.opts.attempts {
				return batch{}, fail()
			}
		}
	}
}

// pick returns the i-th server round robin, passing over servers in their
// cool-down after a failure, servers another call is probing after theirs,
// and servers that stall (requests under way, none answered for a quarter
// of the request timeout), unless every server is passed over.
func (c *Client) pick(i uint64) *server {
	n := uint64(len(c.servers))
	now := time.Now().UnixNano()
	for k := range n {
		if s := c.servers[(i+k)%n]; c.usable(s, now) {
			return s
		}
	}
	return c.servers[i%n]
}

// usable reports whether a call may ask s at now. The first call after a
// cool-down probes s: it moves down to the end of its request timeout, so
// the other calls pass s over until it answers or fails.
func (c *Client) usable(s *server, now int64) bool {
	down := s.down.Load()
	switch {
	case down > now:
		return false
	case down != 0:
		return s.down.CompareAndSwap(down, now+int64(c.opts.timeout))
	}
	return s.busy.Load() == 0 || now-s.progress.Load() <= int64(c.opts.timeout/stallDivisor)
}

// run calls the script once on s, within the request timeout.
func (c *Client) run(ctx context.Context, s *server, want uint64) (batch, error) {
	args := append(c.args[:len(c.args):len(c.args)], want)
	ctx, cancel := context.WithTimeout(ctx, c.opts.timeout)
	defer cancel()
	s.begin(time.Now().UnixNano())
	res, err := script.Run(ctx, s.rdb, c.keys, args...).Int64Slice()
	s.end()
	if err != nil {
		return batch{}, scriptError(err)
	}
	if len(res) != 4 || res[0] < 0 || res[1] < 0 || res[2] < 0 || res[3] < 1 || uint64(res[3]) > want {
		return batch{}, fmt.Errorf("%w: %v", ErrBadReply, res)
	}
	b := batch{shard: uint64(res[0]), tick: uint64(res[1]), first: uint64(res[2]), count: uint64(res[3])}
	if b.shard != s.shard {
		return batch{}, fmt.Errorf("%w: was %d, now %d", ErrShardChanged, s.shard, b.shard)
	}
	if b.first+b.count-1 > c.layout.MaxSequence() || b.tick > c.layout.MaxTick() {
		return batch{}, fmt.Errorf("%w: %v", ErrBadReply, res)
	}
	return b, nil
}

// exhaustedError is the script's FLOE_EXHAUSTED reply: wait until the next
// tick.
type exhaustedError struct{ wait time.Duration }

func (e *exhaustedError) Error() string {
	return ErrExhausted.Error() + " (next tick in " + e.wait.String() + ")"
}

func (e *exhaustedError) Unwrap() error { return ErrExhausted }

// scriptError maps the script's error replies to the package's errors.
func scriptError(err error) error {
	msg := err.Error()
	code, rest, _ := strings.Cut(msg, " ")
	switch code {
	case "FLOE_EXHAUSTED":
		wait, ok := micros(rest)
		if !ok {
			wait = time.Millisecond
		}
		return &exhaustedError{wait: wait}
	case "FLOE_BACKWARDS":
		behind, _ := micros(rest)
		return &floe.ClockError{Policy: floe.Fail, Behind: behind}
	case "FLOE_NOSHARD":
		return fmt.Errorf("%w: %s", ErrNoShard, rest)
	case "FLOE_BADSHARD":
		return fmt.Errorf("%w: %s", ErrBadShard, rest)
	case "FLOE_LAYOUT":
		return fmt.Errorf("%w: %s", ErrLayoutMismatch, rest)
	case "FLOE_TIME_EXHAUSTED":
		return fmt.Errorf("%w: %s", floe.ErrTimeExhausted, rest)
	case "FLOE_BEFORE_EPOCH":
		return fmt.Errorf("%w: %s", floe.ErrClockBackwards, rest)
	}
	return err
}

// micros reads the count of microseconds that starts an error reply's
// text, capped so that it fits a time.Duration.
func micros(text string) (time.Duration, bool) {
	word, _, _ := strings.Cut(text, " ")
	n, err := strconv.ParseInt(word, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return time.Duration(min(n, math.MaxInt64/int64(time.Microsecond))) * time.Microsecond, true
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
