package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

// probeTimeout bounds one address's probe: connecting, the TLS handshake
// and the server's first reply. It matches the clients' dial timeout.
const probeTimeout = 5 * time.Second

// Requests a coordinator answers at once, so that a probe sees whether the
// server took the connection: the HTTP/2 preface with an empty SETTINGS
// frame for etcd's gRPC port, PING for Redis.
var (
	etcdHello  = []byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
	redisHello = []byte("PING\r\n")
)

// A probe checks one coordinator address before the client dials it:
// TCP, then the TLS handshake with the client's own configuration, then a
// request and the first byte of its reply. The etcd client retries a
// refused connection or a failed handshake in the background and reports
// only its deadline; the probe's error names the cause at once.
type probe struct {
	coord string      // "etcd" or "redis": the prefix of its flags
	addr  string      // host:port
	tls   *tls.Config // nil: plain TCP
	alpn  []string    // the protocols the client offers over TLS
	hello []byte      // a request the server answers at once
}

// run returns nil when the server took the connection (or left the
// question open by not answering in time: the client then reports), else
// an error naming the coordinator, the address and the cause.
func (p probe) run(ctx context.Context) error {
	if err := p.try(ctx); err != nil {
		return fmt.Errorf("%s %s: %w", p.coord, p.addr, err)
	}
	return nil
}

func (p probe) try(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", p.addr)
	if err != nil {
		return fmt.Errorf("cannot connect: %w", cause(err))
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if p.tls != nil {
		cfg := p.tls.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName, _, _ = net.SplitHostPort(p.addr)
		}
		cfg.NextProtos = p.alpn
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			return p.handshakeErr(err)
		}
		conn = tc
	}
	// With TLS 1.3 the server checks the client's certificate after the
	// client's handshake is done: a refusal arrives as the reply. It can
	// also fail the write, with the alert still there to read.
	_, werr := conn.Write(p.hello)
	var b [1]byte
	_, err = conn.Read(b[:])
	switch {
	case isAlert(err):
		return p.alertErr(err)
	case werr != nil:
		err = werr
	}
	switch {
	case err == nil || isTimeout(err):
		return nil
	case p.tls == nil && isClosed(err):
		return fmt.Errorf("the server closed the connection at once (%v): is it a TLS port? then %s", cause(err), p.tlsOnHint())
	case isClosed(err):
		return fmt.Errorf("the server closed the connection after the TLS handshake (%v): %s", cause(err), p.certHint())
	}
	return err
}

// handshakeErr describes an error of the TLS handshake.
func (p probe) handshakeErr(err error) error {
	var verr *tls.CertificateVerificationError
	var herr tls.RecordHeaderError
	switch {
	case errors.As(err, &verr):
		hint := fmt.Sprintf("set --%s-ca to the CA that signed it", p.coord)
		if p.tls.RootCAs != nil {
			hint = fmt.Sprintf("is --%s-ca the CA that signed it?", p.coord)
		}
		return fmt.Errorf("TLS handshake: the server's certificate is not trusted: %w (%s)", err, hint)
	case isAlert(err):
		return p.alertErr(err)
	case errors.As(err, &herr) || isClosed(err):
		return fmt.Errorf("TLS handshake: %w: is it a plain, non-TLS port? then %s", cause(err), p.tlsOffHint())
	case isTimeout(err):
		return fmt.Errorf("TLS handshake: no reply within %v: is the server stalled, or is it a plain, non-TLS port? then %s", probeTimeout, p.tlsOffHint())
	}
	return fmt.Errorf("TLS handshake: %w", err)
}

// alertErr describes a TLS alert the server sent: it refused the client's
// certificate, or the lack of one.
func (p probe) alertErr(err error) error {
	return fmt.Errorf("TLS: the server refused the connection: %w (%s)", err, p.certHint())
}

func (p probe) certHint() string {
	if p.tls == nil || len(p.tls.Certificates) == 0 {
		return fmt.Sprintf("it may want a client certificate: set --%s-cert and --%s-key", p.coord, p.coord)
	}
	return fmt.Sprintf("check --%s-cert and --%s-key: the server must trust the CA that signed the certificate", p.coord, p.coord)
}

func (p probe) tlsOnHint() string {
	if p.coord == "redis" {
		return "set --redis-tls or --redis-ca"
	}
	return "set --etcd-ca, or use an https:// endpoint"
}

func (p probe) tlsOffHint() string {
	if p.coord == "redis" {
		return "drop --redis-tls, --redis-ca, --redis-cert and --redis-key"
	}
	return "drop --etcd-ca, --etcd-cert and --etcd-key, or use an http:// endpoint"
}

// cause returns the cause of a network error without the addresses the
// caller names anyway: "connection refused", "i/o timeout", a DNS error.
func cause(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

// isAlert reports whether err is a TLS alert from the peer.
func isAlert(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error"
}

func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &ne) && ne.Timeout()
}

// probeEtcd probes every endpoint at once. It fails only when none takes
// the connection, with every endpoint's cause; the ones that fail while
// another works are logged, since the client works without them.
func (c *Config) probeEtcd(ctx context.Context, log *slog.Logger) error {
	var probes []probe
	for _, ep := range c.Etcd {
		p := probe{coord: "etcd", addr: ep, tls: c.etcdTLS, alpn: []string{"h2"}, hello: etcdHello}
		switch {
		case strings.HasPrefix(ep, "unix:") || strings.HasPrefix(ep, "unixs:"):
			return nil // the client reports on sockets well enough
		case strings.HasPrefix(ep, "https://"):
			p.addr = strings.TrimPrefix(ep, "https://")
			if p.tls == nil {
				p.tls = &tls.Config{}
			}
		case strings.HasPrefix(ep, "http://"):
			p.addr, p.tls = strings.TrimPrefix(ep, "http://"), nil
		}
		p.addr = strings.TrimSuffix(p.addr, "/")
		probes = append(probes, p)
	}
	errs := make([]error, len(probes))
	var wg sync.WaitGroup
	for i, p := range probes {
		wg.Go(func() { errs[i] = p.run(ctx) })
	}
	wg.Wait()
	var failed []error
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) == len(probes) {
		return errors.Join(failed...)
	}
	for _, err := range failed {
		log.Warn("an etcd endpoint is out of reach; going on with the others", "coordinator", "etcd", "err", err)
	}
	return nil
}
