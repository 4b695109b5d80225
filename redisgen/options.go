package redisgen

import (
	"time"

	"github.com/floeid/floe/id64"
	"github.com/redis/go-redis/v9"
)

// Option configures a Client (and Init).
type Option func(*options)

type options struct {
	layout      id64.Layout
	prefix      string
	attempts    int
	backoff     time.Duration
	maxWait     time.Duration
	cooldown    time.Duration
	timeout     time.Duration
	redisOption func(*redis.Options)
	password    string
	username    string
}

func defaults() options {
	return options{
		layout:   DefaultLayout,
		prefix:   "floe:redisgen:",
		attempts: 5,
		backoff:  time.Millisecond,
		maxWait:  time.Second,
		cooldown: time.Second,
		timeout:  DefaultTimeout,
	}
}

// WithLayout sets the ID layout; the default is DefaultLayout. The shard ID
// fills the layout's node (datacenter and worker bits together).
func WithLayout(l id64.Layout) Option { return func(o *options) { o.layout = l } }

// WithKeyPrefix sets the prefix of the two keys the script uses, "shard" and
// "state"; the default is "floe:redisgen:".
func WithKeyPrefix(p string) Option { return func(o *options) { o.prefix = p } }

// WithAttempts sets how many servers a call tries before it fails; the
// default is 5, as the icicle talk has it.
func WithAttempts(n int) Option { return func(o *options) { o.attempts = max(n, 1) } }

// WithBackoff sets the base of the quadratic back-off between attempts:
// attempt k (from 1) waits base·k². The default is 1 ms.
func WithBackoff(base time.Duration) Option { return func(o *options) { o.backoff = max(base, 0) } }

// WithMaxWait bounds how long a call waits for the next tick when every
// server tried has spent the current one; the default is one second.
func WithMaxWait(d time.Duration) Option { return func(o *options) { o.maxWait = max(d, 0) } }

// WithCooldown sets how long a server that failed is passed over while
// others answer; the default is one second.
func WithCooldown(d time.Duration) Option { return func(o *options) { o.cooldown = max(d, 0) } }

// DefaultTimeout is how long one request to one server may take unless
// WithTimeout says otherwise.
const DefaultTimeout = time.Second

// WithTimeout sets how long one request to one server may take: connecting,
// waiting for a pooled connection, sending, and the reply (the call's
// context bounds it too). A server that does not answer within it counts as
// failed: the call moves on to the next server, and the server is passed
// over for the cool-down (WithCooldown), then probed by one call while the
// others pass it over, so a server that hangs costs one call at most about
// d per cool-down. The default is DefaultTimeout; d <= 0 keeps it.
func WithTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.timeout = d
		}
	}
}

// WithAuth sets the username (empty for the default user) and password of
// every server.
func WithAuth(username, password string) Option {
	return func(o *options) { o.username, o.password = username, password }
}

// WithRedisOptions lets f adjust the go-redis options of each server's
// client (timeouts, pool size, TLS) after the address and credentials are
// set.
func WithRedisOptions(f func(*redis.Options)) Option { return func(o *options) { o.redisOption = f } }

func (o *options) shardKey() string { return o.prefix + "shard" }
func (o *options) stateKey() string { return o.prefix + "state" }

// redisOptions: each server's client fails fast and leaves retrying to the
// Client, which moves on to another server instead of waiting on this one.
// Every wait is bounded by the request timeout, and by the call's context
// (ContextTimeoutEnabled): a server that hangs with its connections open
// holds a call no longer than that.
func (o *options) redisOptions(addr string) *redis.Options {
	ro := &redis.Options{
		Addr:                  addr,
		Username:              o.username,
		Password:              o.password,
		MaxRetries:            -1,
		DialerRetries:         1,
		DialTimeout:           o.timeout,
		ReadTimeout:           o.timeout,
		WriteTimeout:          o.timeout,
		PoolTimeout:           o.timeout,
		ContextTimeoutEnabled: true,
	}
	if o.redisOption != nil {
		o.redisOption(ro)
	}
	return ro
}
