package redis

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/floeid/floe/internal/coordnet"
)

// ProbeTimeout bounds Probe: connecting, the TLS handshake and the
// server's first reply.
const ProbeTimeout = 5 * time.Second

// TLSFiles names the PEM files of a TLS connection to Redis. Each may be
// empty: TLSConfig(TLSFiles{}) is TLS with the system's roots.
type TLSFiles struct {
	// CA holds the certificates that sign the server's; empty: the
	// system's roots.
	CA string
	// Cert and Key are the client certificate and its key, for a server
	// that authenticates clients (tls-auth-clients); both or neither.
	Cert, Key string
	// ServerName is the name the server's certificate must hold; empty:
	// the address's host.
	ServerName string
}

// TLSFileError is a file of TLSFiles that TLSConfig cannot use.
type TLSFileError struct {
	// Field names the file's field of TLSFiles: "CA", "Cert", "Key", or
	// "Cert and Key" when both read but do not make a pair.
	Field string
	// Err says why, naming the file.
	Err error
}

func (e *TLSFileError) Error() string {
	return "floe: redis TLSFiles." + e.Field + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *TLSFileError) Unwrap() error { return e.Err }

// TLSConfig reads files and returns the TLS configuration of a Redis
// client (goredis.Options.TLSConfig), TLS 1.2 at least. A file it cannot
// use is a *TLSFileError.
func TLSConfig(files TLSFiles) (*tls.Config, error) {
	cfg, err := coordnet.LoadTLS(files.CA, files.Cert, files.Key, files.ServerName)
	if fe, ok := errors.AsType[*coordnet.FileError](err); ok {
		return nil, &TLSFileError{Field: fe.Field, Err: fe.Err}
	}
	return cfg, err
}

// EndpointError is a Redis address that does not take a connection, and
// why. It matches the cause's sentinel: ErrUnreachable, ErrNotTrusted,
// ErrCertRefused, ErrNotTLS, ErrTLSRequired, ErrNoReply or ErrNotRedis.
type EndpointError struct {
	Addr string // host:port
	Err  error  // the cause, described: "cannot connect: connection refused"
	kind coordnet.Kind
}

func (e *EndpointError) Error() string { return "redis " + e.Addr + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *EndpointError) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel of the error's cause.
func (e *EndpointError) Is(target error) bool { return target == causes[e.kind] }

// causes maps a probe's failure to its sentinel.
var causes = map[coordnet.Kind]error{
	coordnet.Unreachable: ErrUnreachable,
	coordnet.NotTrusted:  ErrNotTrusted,
	coordnet.CertRefused: ErrCertRefused,
	coordnet.NotTLS:      ErrNotTLS,
	coordnet.TLSRequired: ErrTLSRequired,
	coordnet.NoReply:     ErrNoReply,
	coordnet.Unexpected:  ErrNotRedis,
}

// Probe checks that the Redis server at addr (host:port) takes a
// connection as a client with the TLS configuration tlsCfg (nil: plain
// TCP) would make it: TCP, the TLS handshake, and a reply to PING in
// Redis's protocol (an error reply, such as NOAUTH, counts: the server
// answered). It returns nil, or an *EndpointError naming the address and
// the cause. ctx and ProbeTimeout bound it.
func Probe(ctx context.Context, addr string, tlsCfg *tls.Config) error {
	p := coordnet.Probe{Addr: addr, TLS: tlsCfg, Hello: []byte("PING\r\n"), Name: "redis (RESP)", Timeout: ProbeTimeout,
		Reply: func(b []byte) bool { return b[0] == '+' || b[0] == '-' }}
	err := p.Run(ctx)
	if pe, ok := errors.AsType[*coordnet.Error](err); ok {
		return &EndpointError{Addr: addr, Err: pe.Err, kind: pe.Kind}
	}
	return err
}

// Dial probes the server of opts (Probe, with opts.TLSConfig; not a unix
// socket), then returns the client of opts, which the caller closes, once
// it answers PING. A server that does not take the connection is an
// *EndpointError, within ProbeTimeout; a refused login or PING is an
// error naming the address, the user, and the server's reply (WRONGPASS,
// NOAUTH, NOPERM).
//
// The client is the one a Source needs, as floed's: a request ends at its
// context's deadline (ContextTimeoutEnabled), so one sent to a server that
// hangs with its connections open gives its connection back when the
// Source gives up on it, by the lease's local deadline; and unless
// opts.MaxRetries says otherwise, a request is not sent again (MaxRetries
// -1), which would run a claim or a reservation the Source gave up on
// once the server answers. Dial leaves opts as it is.
func Dial(ctx context.Context, opts *goredis.Options) (*goredis.Client, error) {
	o := *opts
	o.ContextTimeoutEnabled = true
	if o.MaxRetries == 0 {
		o.MaxRetries = -1
	}
	opts = &o
	if opts.Network != "unix" {
		addr := opts.Addr
		if addr == "" {
			addr = "localhost:6379" // go-redis's default
		}
		if err := Probe(ctx, addr, opts.TLSConfig); err != nil {
			return nil, err
		}
	}
	rdb := goredis.NewClient(opts)
	err := rdb.Ping(ctx).Err()
	if err == nil {
		return rdb, nil
	}
	rdb.Close()
	return nil, pingError(rdb.Options(), err)
}

// pingError describes an error of the first command on the server of
// opts: a refused login names the user.
func pingError(opts *goredis.Options, err error) error {
	user := "the default user"
	if opts.Username != "" {
		user = fmt.Sprintf("user %q", opts.Username)
	}
	switch msg := err.Error(); {
	case strings.Contains(msg, "WRONGPASS"):
		return fmt.Errorf("redis %s: authentication as %s failed: %w", opts.Addr, user, err)
	case strings.Contains(msg, "NOAUTH"):
		return fmt.Errorf("redis %s: the server wants a password: %w", opts.Addr, err)
	case strings.Contains(msg, "NOPERM"):
		return fmt.Errorf("redis %s: %s lacks a permission: %w", opts.Addr, user, err)
	}
	return fmt.Errorf("redis %s: %w", opts.Addr, err)
}
