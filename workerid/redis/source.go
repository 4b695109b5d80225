package redis

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/floeid/floe"
	"github.com/floeid/floe/workerid"
	goredis "github.com/redis/go-redis/v9"
)

// MaxIDs bounds Config.IDs: a claim scans the worker IDs inside Redis, two
// commands per ID, and blocks the server meanwhile (about a millisecond
// per thousand IDs).
const MaxIDs = 1 << 16

// DefaultPrefix is the key prefix of a Config without one.
const DefaultPrefix = "floe/v1/"

// Config configures a Source. The zero value of each field but IDs means
// its default.
type Config struct {
	// Prefix starts every key of the Source: Prefix+"workers/<id>",
	// Prefix+"fence/<id>", Prefix+"reserved/<id>". Default DefaultPrefix.
	// Sources that share a prefix share the worker IDs.
	Prefix string
	// IDs is how many worker IDs there are: 0..IDs-1. Required, 1..MaxIDs.
	IDs int
	// TTL is how long a lease outlives its last renewal. The lease renews
	// every TTL/3. Default 10 s, at least 1 s.
	TTL time.Duration
	// Timeout bounds each request to Redis. Default TTL/3, at most TTL.
	Timeout time.Duration
	// Owner names this process in the owner token and the reservation, so
	// a claim prefers the worker ID its owner held last. Give each process
	// a unique, stable name (its pod's name, or the host name with the
	// service's name or port), so that a restart takes its own worker ID
	// back. Default the host name: processes on one host then share one
	// name and compete for one preferred worker ID. At most 255 bytes of
	// UTF-8.
	Owner string
	// Clock measures the lease's local deadline. Default
	// floe.MonotonicClock.
	Clock floe.Clock
	// Logger receives the warnings of the Source: the unsafe server, failed
	// renewals, lost leases; and at INFO the leases a destroy of the
	// Catalog's sequence ended. Default none.
	Logger *slog.Logger
	// Unsafe starts the Source even when Check fails (floed
	// --redis-unsafe): a server without AOF, with appendfsync other than
	// always, or with replicas can lose reservations it acknowledged, and
	// then hand out a worker ID with a floor below ticks already issued.
	// It also keeps the leases running when the server becomes unsafe
	// later. Source.Unsafe reports the reasons.
	Unsafe bool

	seq *seqRef // set by Catalog.Source: the sequence the worker IDs are of
}

// seqRef names the catalog sequence a Source's worker IDs belong to; a
// claim checks that it still exists.
type seqRef struct {
	hash, name, gen, usedKey string
	retired, channel         string // the Catalog's, for CheckACL
}

// Source claims worker IDs from a Redis server: an owner key with a TTL
// per held ID, a fence counter and a reservation per ID, changed only by
// Lua scripts. It is safe for concurrent use.
type Source struct {
	rdb *goredis.Client // immutable
	cfg Config          // immutable, defaults applied

	mu      sync.Mutex
	unsafe  []string  // guarded by mu: the failed conditions of Check, as last checked
	checked time.Time // guarded by mu: when the last check started, on cfg.Clock
}

// NewSource returns a Source of cfg.IDs worker IDs on the server behind
// rdb. It runs CheckACL first, and refuses with a *PermissionError a user
// who may not run every command of its scripts. It runs Check next and refuses an unsafe server with an
// *UnsafeError, unless cfg.Unsafe is set; then it logs a warning and
// Source.Unsafe reports why.
func NewSource(ctx context.Context, rdb *goredis.Client, cfg Config) (*Source, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	if ok, err := checkACL(ctx, rdb, cfg.Prefix, cfg.seq); err != nil {
		return nil, err
	} else if !ok {
		cfg.Logger.Warn("redis server before 7.0: cannot check that the user may run every command floe's scripts run",
			"redis_addr", rdb.Options().Addr)
	}
	reasons, err := unsafeReasons(ctx, rdb)
	if err != nil {
		return nil, err
	}
	if len(reasons) > 0 {
		if !cfg.Unsafe {
			return nil, &UnsafeError{Addr: rdb.Options().Addr, Reasons: reasons}
		}
		cfg.Logger.Warn("redis server is unsafe for worker IDs; running anyway",
			"redis_addr", rdb.Options().Addr, "reasons", reasons, "key_prefix", cfg.Prefix)
	}
	return &Source{rdb: rdb, cfg: cfg, unsafe: reasons, checked: cfg.Clock.Now()}, nil
}

// recheck runs Check's conditions again unless they were checked less than
// TTL/3 ago, so that a server made unsafe after the start (AOF turned off,
// a replica attached) is noticed while leases run: every lease's renewal
// and every Claim call it. It returns an *UnsafeError when the server
// fails a condition and Config.Unsafe is not set, else nil; a server that
// cannot be asked keeps the last answer (the renewal deals with that). It
// logs each change of the reasons.
func (s *Source) recheck(ctx context.Context) error {
	now := s.cfg.Clock.Now()
	s.mu.Lock()
	due := now.Sub(s.checked) >= s.cfg.TTL/3
	if due {
		s.checked = now
	}
	reasons := s.unsafe
	s.mu.Unlock()
	if due {
		ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		got, err := unsafeReasons(ctx, s.rdb)
		cancel()
		if err == nil {
			s.mu.Lock()
			changed := !slices.Equal(s.unsafe, got)
			s.unsafe, reasons = got, got
			s.mu.Unlock()
			switch {
			case changed && len(got) > 0 && s.cfg.Unsafe:
				s.cfg.Logger.Warn("redis server is unsafe for worker IDs; running anyway",
					"redis_addr", s.rdb.Options().Addr, "reasons", got, "key_prefix", s.cfg.Prefix)
			case changed && len(got) > 0:
				s.cfg.Logger.Error("redis server became unsafe for worker IDs; its leases end and no worker ID is claimed until it is safe again",
					"redis_addr", s.rdb.Options().Addr, "reasons", got, "key_prefix", s.cfg.Prefix)
			case changed:
				s.cfg.Logger.Info("redis server is safe for worker IDs again",
					"redis_addr", s.rdb.Options().Addr, "key_prefix", s.cfg.Prefix)
			}
		}
	}
	if len(reasons) > 0 && !s.cfg.Unsafe {
		return &UnsafeError{Addr: s.rdb.Options().Addr, Reasons: reasons}
	}
	return nil
}

func (c *Config) setDefaults() error {
	if c.Prefix == "" {
		c.Prefix = DefaultPrefix
	}
	if c.IDs < 1 || c.IDs > MaxIDs {
		return fmt.Errorf("%w: %d, want 1..%d", ErrIDs, c.IDs, MaxIDs)
	}
	if c.TTL == 0 {
		c.TTL = 10 * time.Second
	}
	if c.TTL < time.Second {
		return fmt.Errorf("%w: %v", ErrTTL, c.TTL)
	}
	if c.Timeout == 0 {
		c.Timeout = c.TTL / 3
	}
	if c.Timeout < 0 || c.Timeout > c.TTL {
		return fmt.Errorf("%w: %v, want up to the TTL %v", ErrTimeout, c.Timeout, c.TTL)
	}
	if c.Owner == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			return fmt.Errorf("%w: no host name (%v); set Config.Owner", ErrOwner, err)
		}
		c.Owner = host
	}
	if len(c.Owner) > maxOwner || !utf8.ValidString(c.Owner) {
		return fmt.Errorf("%w: %q", ErrOwner, c.Owner)
	}
	if c.Clock == nil {
		c.Clock = floe.MonotonicClock
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// Unsafe returns the conditions of Check the server failed when they were
// last checked (at the start, then at most every TTL/3 while a lease runs
// or a claim is made); none when it is safe. Without Config.Unsafe a
// server that fails them ends every lease of the Source with an
// *UnsafeError (workerid.LeaseLostError's Err) and Claim refuses with one,
// until it is safe again.
func (s *Source) Unsafe() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unsafe...)
}

// Claim takes a free worker ID: the one its owner held last if it is free,
// else the first free one from a random offset, by one script that also
// sets the owner key, raises the fence and clears the last tick of a clean
// release. It returns an error wrapping workerid.ErrExhausted when every ID
// is held, one wrapping workerid.ErrNotFound when the Source's catalog
// sequence was destroyed, and one wrapping an *UnsafeError when the server
// became unsafe (see Unsafe).
//
// The request timeout (Config.Timeout) bounds the whole claim, the safety
// check included: a server that does not answer fails it within that.
func (s *Source) Claim(ctx context.Context) (workerid.Lease, error) {
	rctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	if err := s.recheck(rctx); err != nil {
		return nil, fmt.Errorf("floe: claiming a worker ID under %s: %w", s.cfg.Prefix, err)
	}
	if err := rctx.Err(); err != nil {
		// The safety check took the request timeout: the server does not
		// answer, and a claim sent now would run late, if ever.
		return nil, fmt.Errorf("floe: claiming a worker ID under %s: %w", s.cfg.Prefix, err)
	}
	var b [16]byte
	crand.Read(b[:])
	token := hex.EncodeToString(b[:]) + ":" + s.cfg.Owner
	args := []any{
		s.cfg.Prefix, s.cfg.IDs, rand.IntN(s.cfg.IDs), token, s.cfg.TTL.Milliseconds(), s.cfg.Owner,
		"", "", "", "",
	}
	if q := s.cfg.seq; q != nil {
		args[6], args[7], args[8], args[9] = q.hash, q.name, q.gen, q.usedKey
	}
	sent := s.cfg.Clock.Now()
	reply, err := await(rctx, func(ctx context.Context) ([]any, error) {
		return claimScript().Run(ctx, s.rdb, nil, args...).Slice()
	})
	if err != nil {
		// The claim may have taken an ID all the same; its owner key
		// expires after the TTL.
		return nil, fmt.Errorf("floe: claiming a worker ID under %s: %w", s.cfg.Prefix, scriptError(err))
	}
	id, ok := reply[0].(int64)
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: claim answered %v", ErrBadReply, reply)
	case id == -1:
		return nil, fmt.Errorf("%w: all %d worker IDs under %s", workerid.ErrExhausted, s.cfg.IDs, s.cfg.Prefix)
	case id == -2:
		return nil, s.destroyedError()
	}
	if len(reply) != 3 || id < 0 || id >= int64(s.cfg.IDs) {
		return nil, fmt.Errorf("%w: claim answered %v", ErrBadReply, reply)
	}
	fence, ok1 := reply[1].(int64)
	raw, ok2 := reply[2].(string)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%w: claim answered %v", ErrBadReply, reply)
	}
	l := newLease(s, int(id), fence, token, sent)
	if raw != "" {
		rec, err := decodeReservation(raw)
		if err != nil {
			// The script validated R only; give the ID back untouched.
			l.dropLease(ctx)
			return nil, fmt.Errorf("floe: claiming worker ID %d under %s: %w", id, s.cfg.Prefix, err)
		}
		l.floor, l.reserved = rec.R, rec.R
		if rec.Last != 0 {
			l.floor = rec.Last
		}
	}
	l.start()
	return l, nil
}

// destroyedError is the error of a claim or lease of a Catalog's Source
// whose sequence (this generation) is gone.
func (s *Source) destroyedError() error {
	return fmt.Errorf("%w: sequence %s (generation %s) was destroyed", workerid.ErrNotFound, s.cfg.seq.name, s.cfg.seq.gen)
}

// destroyedTimeout bounds the read of destroyed: a lease whose owner key
// holds another token waits for it before it ends.
const destroyedTimeout = time.Second

// destroyed reports whether the catalog no longer has the generation of
// the sequence a Catalog's Source claims for, as claim.lua and reserve.lua
// tell it; false for another Source, and when the read fails or takes
// longer than destroyedTimeout (or Config.Timeout, if shorter): then the
// end of a lease is a loss.
func (s *Source) destroyed() bool {
	q := s.cfg.seq
	if q == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), min(s.cfg.Timeout, destroyedTimeout))
	defer cancel()
	v, err := await(ctx, func(ctx context.Context) (string, error) {
		return s.rdb.HGet(ctx, q.hash, q.name).Result()
	})
	switch {
	case errors.Is(err, goredis.Nil):
		return true
	case err != nil:
		return false
	}
	gen, _, _ := strings.Cut(v, " ")
	return gen != q.gen
}

// await runs f and returns its result, or ctx's error as soon as ctx is
// done: the client's own timeouts may be longer (without
// ContextTimeoutEnabled it ignores deadlines), and a lease's deadline must
// not wait for them. f keeps running until the client returns.
func await[T any](ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f(ctx)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// isRedisError reports whether err is an error reply of the server.
func isRedisError(err error) bool {
	var rerr goredis.Error
	return errors.As(err, &rerr) && !errors.Is(err, goredis.Nil)
}

func formatTick(t uint64) string { return strconv.FormatUint(t, 10) }
