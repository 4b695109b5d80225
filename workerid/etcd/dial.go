package etcd

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/floeid/floe/internal/coordnet"
)

// ProbeTimeout bounds Probe on one endpoint: connecting, the TLS handshake
// and the server's first reply.
const ProbeTimeout = 5 * time.Second

// h2Hello is the HTTP/2 preface with an empty SETTINGS frame: etcd's gRPC
// port answers it at once with its own SETTINGS frame.
var h2Hello = []byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")

// TLSFiles names the PEM files of a TLS connection to etcd. Each may be
// empty.
type TLSFiles struct {
	// CA holds the certificates that sign the servers'; empty: the
	// system's roots.
	CA string
	// Cert and Key are the client certificate and its key, for a server
	// that authenticates clients (etcd --client-cert-auth); both or
	// neither.
	Cert, Key string
	// ServerName is the name the servers' certificates must hold; empty:
	// each endpoint's host.
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

func (e *TLSFileError) Error() string { return "floe: etcd TLSFiles." + e.Field + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *TLSFileError) Unwrap() error { return e.Err }

// TLSConfig reads files and returns the TLS configuration of an etcd
// client (clientv3.Config.TLS), TLS 1.2 at least. A file it cannot use is
// a *TLSFileError.
func TLSConfig(files TLSFiles) (*tls.Config, error) {
	cfg, err := coordnet.LoadTLS(files.CA, files.Cert, files.Key, files.ServerName)
	if fe, ok := errors.AsType[*coordnet.FileError](err); ok {
		return nil, &TLSFileError{Field: fe.Field, Err: fe.Err}
	}
	return cfg, err
}

// EndpointError is an etcd endpoint that does not take a connection, and
// why. It matches the cause's sentinel: ErrUnreachable, ErrNotTrusted,
// ErrCertRefused, ErrNotTLS, ErrTLSRequired, ErrNoReply or ErrNotEtcd.
type EndpointError struct {
	Endpoint string // as given: "host:port", "https://host:port"
	Addr     string // the host:port probed
	Err      error  // the cause, described: "cannot connect: connection refused"
	kind     coordnet.Kind
}

func (e *EndpointError) Error() string { return "etcd " + e.Addr + ": " + e.Err.Error() }

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
	coordnet.Unexpected:  ErrNotEtcd,
}

// Probe checks that the etcd endpoint takes a connection as a client with
// the TLS configuration tlsCfg (nil: plain TCP) would make it: TCP, the
// TLS handshake, and a first reply in etcd's protocol. It returns nil, or
// an *EndpointError naming the address and the cause, at once where the
// etcd client would retry until a deadline and report only that. ctx and
// ProbeTimeout bound it.
//
// The endpoint is as in clientv3.Config.Endpoints: host:port, or with
// http:// (plain TCP, whatever tlsCfg) or https:// (TLS, tlsCfg or the
// system's roots). Unix sockets are not probed.
func Probe(ctx context.Context, endpoint string, tlsCfg *tls.Config) error {
	p := coordnet.Probe{Addr: endpoint, TLS: tlsCfg, ALPN: []string{"h2"}, Hello: h2Hello,
		Name: "etcd (gRPC over HTTP/2)", Reply: isH2Frame, Timeout: ProbeTimeout}
	switch {
	case strings.HasPrefix(endpoint, "unix:") || strings.HasPrefix(endpoint, "unixs:"):
		return nil
	case strings.HasPrefix(endpoint, "https://"):
		p.Addr = strings.TrimPrefix(endpoint, "https://")
		if p.TLS == nil {
			p.TLS = &tls.Config{}
		}
	case strings.HasPrefix(endpoint, "http://"):
		p.Addr, p.TLS = strings.TrimPrefix(endpoint, "http://"), nil
	}
	p.Addr = strings.TrimSuffix(p.Addr, "/")
	err := p.Run(ctx)
	if pe, ok := errors.AsType[*coordnet.Error](err); ok {
		return &EndpointError{Endpoint: endpoint, Addr: p.Addr, Err: pe.Err, kind: pe.Kind}
	}
	return err
}

// isH2Frame reports whether b starts as the HTTP/2 frame an etcd server
// sends first: SETTINGS, whose 3-byte length is small.
func isH2Frame(b []byte) bool {
	return b[0] == 0 && (len(b) < 4 || b[3] == 0x4)
}

// ProbeAll probes every endpoint at once, as Probe does. It returns one
// error per endpoint, in their order: nil where the endpoint took the
// connection.
func ProbeAll(ctx context.Context, endpoints []string, tlsCfg *tls.Config) []error {
	errs := make([]error, len(endpoints))
	var wg sync.WaitGroup
	for i, ep := range endpoints {
		wg.Go(func() { errs[i] = Probe(ctx, ep, tlsCfg) })
	}
	wg.Wait()
	return errs
}

// Dial probes cfg's endpoints (ProbeAll, with cfg.TLS) and returns the
// etcd client of ClientConfig(cfg), which the caller closes: one that
// routes around a member that stopped answering. When no endpoint takes the
// connection, it returns every endpoint's *EndpointError (errors.Join),
// within ProbeTimeout; endpoints that fail while another works are left to
// the client, which keeps trying them. A cfg.DialTimeout of zero means
// ProbeTimeout; it bounds the login of cfg.Username, whose refusal is an
// error wrapping rpctypes.ErrAuthFailed.
func Dial(ctx context.Context, cfg clientv3.Config) (*clientv3.Client, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("floe: etcd: no endpoints")
	}
	errs := ProbeAll(ctx, cfg.Endpoints, cfg.TLS)
	var failed []error
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) == len(errs) {
		return nil, errors.Join(failed...)
	}
	if cfg.DialTimeout == 0 {
		cfg.DialTimeout = ProbeTimeout
	}
	cli, err := clientv3.New(ClientConfig(cfg))
	if err == nil {
		return cli, nil
	}
	eps := strings.Join(cfg.Endpoints, ",")
	switch {
	case errors.Is(err, rpctypes.ErrAuthFailed):
		return nil, fmt.Errorf("etcd %s: authentication as user %q failed: %w", eps, cfg.Username, err)
	case coordnet.IsTimeout(err):
		return nil, fmt.Errorf("etcd %s: no reply within %v: %w", eps, cfg.DialTimeout, err)
	}
	return nil, fmt.Errorf("etcd %s: %w", eps, err)
}

// explainTimeout bounds the probes of explain: the request that failed
// has waited already.
const explainTimeout = time.Second

// explain adds to err, the error of a request on cli, why cli's endpoints
// do not answer, when err is a deadline's and a probe finds a cause that
// does not depend on the client's TLS configuration, which the client
// does not tell: a refused connection, or a server that takes it and
// never answers. The result still matches err, and the causes'
// *EndpointError.
func explain(cli *clientv3.Client, err error) error {
	if !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var plain []string // the endpoints probed without TLS
	for _, ep := range cli.Endpoints() {
		if !strings.Contains(ep, "://") || strings.HasPrefix(ep, "http://") {
			plain = append(plain, ep)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), explainTimeout)
	defer cancel()
	var found []error
	for _, perr := range ProbeAll(ctx, plain, nil) {
		if errors.Is(perr, ErrUnreachable) || errors.Is(perr, ErrNoReply) {
			found = append(found, perr)
		}
	}
	if len(found) == 0 {
		return err
	}
	return fmt.Errorf("%w: %w", err, errors.Join(found...))
}

// Settings ClientConfig applies.
const (
	// KeepAliveTime and KeepAliveTimeout are the gRPC keepalive of a
	// connection that carries a call: a ping after 10 s without a reply
	// (gRPC's shortest), and the connection closed when the ping gets no
	// answer within 2 s. It closes the streams (watches) on a member that
	// stopped answering, which then resume on another.
	KeepAliveTime    = 10 * time.Second
	KeepAliveTimeout = 2 * time.Second
	// ReconnectDelay bounds the wait between two attempts to connect to a
	// member, and ConnectTimeout one attempt: a member back after a fault
	// takes requests again within about ReconnectDelay.
	ReconnectDelay = 500 * time.Millisecond
	ConnectTimeout = 2 * time.Second
)

// serviceConfig selects the balancer of balancer.go.
const serviceConfig = `{"loadBalancingConfig":[{"` + balancerName + `":{}}]}`

// ClientConfig returns cfg with the settings a client of the Source, the
// Catalog and the sequencer package needs to keep serving through a
// member that stops answering without closing its connections (a frozen
// process, a network that drops its packets) while the others keep a
// quorum:
//   - requests go to the members in turn, as clientv3's own round robin,
//     but a member is set aside when a request to it waits 300 ms with
//     nothing heard from it, or ends with no reply, and tried again after
//     a cool-down (0.5 s, doubled at each stall in a row, 8 s at most);
//   - gRPC keepalives (KeepAliveTime, KeepAliveTimeout, unless cfg sets
//     DialKeepAliveTime) close its connections, and so move its watches;
//   - reconnecting waits ReconnectDelay at most between attempts, and
//     ConnectTimeout bounds one.
//
// Dial applies it. A client made by clientv3.New(cfg) alone is as safe,
// but a member that hangs stops the leases that send it requests.
func ClientConfig(cfg clientv3.Config) clientv3.Config {
	if cfg.DialKeepAliveTime == 0 {
		cfg.DialKeepAliveTime, cfg.DialKeepAliveTimeout = KeepAliveTime, KeepAliveTimeout
	}
	opts := []grpc.DialOption{
		grpc.WithDisableServiceConfig(),
		grpc.WithDefaultServiceConfig(serviceConfig),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff: backoff.Config{
				BaseDelay:  50 * time.Millisecond,
				Multiplier: 1.6,
				Jitter:     0.2,
				MaxDelay:   ReconnectDelay,
			},
			MinConnectTimeout: ConnectTimeout,
		}),
	}
	cfg.DialOptions = append(opts, cfg.DialOptions...)
	return cfg
}
