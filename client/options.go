package client

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/netip"
	"time"

	"github.com/floeid/floe/id64"
)

// Option configures a Client. Options are applied in order by New, which
// checks the result: a value out of range makes New fail with ErrOption.
type Option func(*options)

type options struct {
	// Connections.
	token       string
	dialTimeout time.Duration
	timeout     time.Duration
	poolSize    int
	dialer      func(ctx context.Context, network, addr string) (net.Conn, error)
	resolve     time.Duration
	tls         *tls.Config // nil: plain TCP

	// Failover, grouped as nats groups its reconnect knobs.
	attempts    int
	backoffMin  time.Duration
	backoffMax  time.Duration
	jitter      float64
	delay       func(attempt int) time.Duration
	noRandomize bool

	// Checks of the replies.
	layout  id64.Layout
	maxSkew time.Duration

	// Prefetch.
	prefetch int
	validity time.Duration

	logger *slog.Logger

	// Seams for tests, set through export_test.go.
	now    func() time.Time
	since  func(time.Time) time.Duration // how long since a reading of now
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

// Defaults. A request to a healthy daemon takes well under a millisecond,
// so a second without an answer means the server is gone, not slow.
const (
	defaultDialTimeout = time.Second
	defaultTimeout     = time.Second
	defaultPoolSize    = 4
	defaultResolve     = 30 * time.Second
	defaultAttempts    = 5
	defaultBackoffMin  = 10 * time.Millisecond
	defaultBackoffMax  = time.Second
	defaultJitter      = 0.5
	// defaultMaxSkew bounds how far an ID's time may lie from the local
	// clock. floed issues IDs at most --max-ahead (1 s) or, after a crash,
	// --reserve-window (2 s) ahead of its clock, and NTP keeps clocks
	// within milliseconds of each other: ten minutes leaves room for
	// servers configured far beyond that and for clocks minutes apart,
	// while 8 bytes that are not an ID (text, a length, zeros, an ID of
	// another layout) read as a time years or decades away.
	defaultMaxSkew = 10 * time.Minute
)

func defaults() options {
	return options{
		dialTimeout: defaultDialTimeout,
		timeout:     defaultTimeout,
		poolSize:    defaultPoolSize,
		dialer:      new(net.Dialer).DialContext,
		resolve:     defaultResolve,
		attempts:    defaultAttempts,
		backoffMin:  defaultBackoffMin,
		backoffMax:  defaultBackoffMax,
		jitter:      defaultJitter,
		layout:      id64.Twitter,
		maxSkew:     defaultMaxSkew,
		now:         time.Now,
		since:       time.Since,
		lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		},
	}
}

// check reports the first option out of range.
func (o *options) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrOption}, args...)...)
	}
	switch {
	case o.token != "" && len(o.token) > 255:
		return fmt.Errorf("%w: %d bytes", ErrTokenLength, len(o.token))
	case o.dialTimeout < 0:
		return bad("dial timeout %v is negative", o.dialTimeout)
	case o.timeout < 0:
		return bad("timeout %v is negative", o.timeout)
	case o.poolSize < 1:
		return bad("pool size %d, want 1 or more", o.poolSize)
	case o.dialer == nil:
		return bad("nil dialer")
	case o.attempts < 0:
		return bad("max attempts %d, want 0 (no limit) or more", o.attempts)
	case o.backoffMin < 0 || o.backoffMax < o.backoffMin:
		return bad("back-off %v..%v, want 0 <= min <= max", o.backoffMin, o.backoffMax)
	case !(o.jitter >= 0 && o.jitter <= 1):
		return bad("jitter %v, want 0..1", o.jitter)
	case o.layout.Validate() != nil:
		return bad("layout: %v", o.layout.Validate())
	case o.maxSkew <= 0:
		return bad("max skew %v, want more than 0", o.maxSkew)
	case o.prefetch < 0:
		return bad("prefetch %d, want 0 (none) or more", o.prefetch)
	case o.prefetch > 0 && o.validity <= 0:
		return bad("prefetch validity %v, want more than 0", o.validity)
	}
	return nil
}

// WithToken sets the token sent in the auth frame at the start of each
// connection, for daemons started with FLOE_TOKEN (or NOEQ_TOKEN). It has 1
// to 255 bytes; the empty string, the default, sends no auth frame. A daemon
// closes the connection when the token does not match, which the client
// sees as a failed attempt.
func WithToken(token string) Option {
	return func(o *options) { o.token = token }
}

// WithTLS makes every connection TLS with cfg: the binary protocol's
// frames, unchanged, inside it, as floed --tls-cert serves them. Without
// cfg.ServerName the certificate is checked against each address's host
// as given to New. The handshake counts in the dial, which
// WithDialTimeout bounds. cfg is cloned; nil turns TLS off, the default.
// tlsfile.ClientConfig reads a CA file and a client certificate into
// one.
func WithTLS(cfg *tls.Config) Option {
	return func(o *options) {
		o.tls = nil
		if cfg != nil {
			o.tls = cfg.Clone()
		}
	}
}

// WithDialTimeout bounds each dial, including the lookup of a DNS name; the
// default is one second, 0 leaves only the call's context.
func WithDialTimeout(d time.Duration) Option { return func(o *options) { o.dialTimeout = d } }

// WithTimeout sets the I/O deadline of each attempt: one request and its
// reply (or, for a large NextN, each round of pipelined requests). A server
// that does not answer within it counts as failed. The default is one
// second; 0 leaves only the call's context.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithPoolSize sets how many connections the client keeps open at most,
// which also bounds the requests it has in flight at once; the default is
// 4. Calls for up to 255 IDs go out at once while a connection has no
// request in flight, one request on each; calls that come while every
// connection has one queue and share the next request to leave (see
// Batching in the package documentation). With a pool of one, calls share
// one request at a time, as they do with WithPrefetch. Each run of NextN
// beyond 255 IDs takes a connection of its own; calls that find every
// connection busy wait for one.
func WithPoolSize(n int) Option { return func(o *options) { o.poolSize = n } }

// WithDialer sets the function that opens connections, in place of
// net.Dialer's DialContext; tests use it to count or redirect dials. It is
// called with network "tcp" and an IP address and port, DNS names having
// been resolved by the client (see WithResolveInterval), and must honour
// ctx.
func WithDialer(dial func(ctx context.Context, network, addr string) (net.Conn, error)) Option {
	return func(o *options) { o.dialer = dial }
}

// WithResolveInterval sets how often a DNS name given to New is looked up
// again: at most once per d, when a connection is dialled. Each new
// connection takes the next of the name's addresses in turn, so that
// connections spread over them and a failed one is followed by another.
// The default is 30 seconds; 0 looks the name up at every dial, and a
// negative d turns the client's lookups off and passes names to the dialer
// as they are.
func WithResolveInterval(d time.Duration) Option { return func(o *options) { o.resolve = d } }

// WithMaxAttempts sets how many attempts, on one server or several, a call
// makes before it fails with an *AttemptsError; the default is 5. 0 sets no
// limit: the call tries until its context ends.
func WithMaxAttempts(n int) Option { return func(o *options) { o.attempts = n } }

// WithBackoff sets the wait after a failed attempt: min after the first,
// doubling after each further one up to max. The defaults are 10 ms and one
// second. WithJitter spreads it; WithDelayFunc replaces it.
func WithBackoff(min, max time.Duration) Option {
	return func(o *options) { o.backoffMin, o.backoffMax = min, max }
}

// WithJitter spreads each back-off wait at random over ±frac of itself, so
// that clients that failed together do not retry together; frac is in
// 0..1 and the default is 0.5.
func WithJitter(frac float64) Option { return func(o *options) { o.jitter = frac } }

// WithDelayFunc replaces the back-off: after the attempt-th failed attempt
// of a call (from 1), the call waits delay(attempt) before the next. The
// function must be safe for concurrent use.
func WithDelayFunc(delay func(attempt int) time.Duration) Option {
	return func(o *options) { o.delay = delay }
}

// WithNoRandomize makes each new connection go to the first address, in the
// order given to New, that has not failed in the last second, instead of a
// random one: the first address takes all the load and the others stand
// by.
func WithNoRandomize() Option { return func(o *options) { o.noRandomize = true } }

// WithLayout sets the layout of the IDs the servers issue, by which the
// client reads the time of each ID it receives (see WithMaxSkew); the
// default is id64.Twitter, the layout of noeqd and of floed's default
// sequence. A client whose token selects a sequence of another layout
// needs that layout here, or it rejects every reply. New fails with
// ErrOption for a layout that does not pass Validate.
func WithLayout(l id64.Layout) Option { return func(o *options) { o.layout = l } }

// WithMaxSkew sets how far from the local clock, ahead or behind, the time
// of an ID received may lie; the default is ten minutes, and d must be
// more than 0. A live server issues IDs of the current time: floed at most
// its --max-ahead (1 s by default) ahead of its clock, or after a crash
// its --reserve-window (2 s), plus the difference between its clock and
// the client's. A reply that reads as a time beyond the bound is not an ID
// of the layout from a live server (an HTTP server's "HTTP/1.1" reads as
// the year 2050 under id64.Twitter), so the client rejects it as it
// rejects IDs that do not increase on a connection: the attempt fails
// with ErrInvalidReply, the connection is dropped and the call fails over
// to another server (see Checks in the package documentation). Raise it
// for servers whose clocks are known to be further off, or whose
// --max-ahead or --reserve-window is longer.
func WithMaxSkew(d time.Duration) Option { return func(o *options) { o.maxSkew = d } }

// WithPrefetch keeps up to n IDs buffered, so that most calls return
// without a round trip. The buffer is topped up by every request the client
// sends anyway and refilled in the background when it falls below half
// (after a failed request, only once a call has succeeded again).
// Buffered IDs are handed out only while they are younger than validity,
// measured from when their request was sent; older ones are dropped, so
// that no call gets an ID issued more than validity before it. So that
// IDs still increase from call to call, the client then keeps one
// request in flight at a time, and a call the buffer cannot serve waits
// for it (see Order in the package documentation). IDs dropped or still
// buffered at Close are never used: they leave gaps. n = 0, the default,
// turns prefetching off.
func WithPrefetch(n int, validity time.Duration) Option {
	return func(o *options) { o.prefetch, o.validity = n, validity }
}

// WithLogger sets a logger for failed attempts and lookups, at level Warn.
// By default the client does not log.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// backoff returns the wait after the attempt-th failed attempt of a call.
func (o *options) backoff(attempt int) time.Duration {
	if o.delay != nil {
		return max(o.delay(attempt), 0)
	}
	d := o.backoffMax
	if shift := max(attempt-1, 0); shift < 63 && o.backoffMin <= o.backoffMax>>shift {
		d = o.backoffMin << shift
	}
	if o.jitter > 0 {
		d += time.Duration(float64(d) * o.jitter * (2*rand.Float64() - 1))
	}
	return d
}
