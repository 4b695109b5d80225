package coordnet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"
)

// Timeout is the default bound of one address's probe: connecting, the
// TLS handshake and the server's first reply. It matches the clients'
// dial timeout.
const Timeout = 5 * time.Second

// Kind is why a probe failed.
type Kind uint8

const (
	// Unreachable: no connection (refused, no route, a DNS error, no
	// answer to the TCP handshake).
	Unreachable Kind = iota + 1
	// NotTrusted: the server's certificate does not verify.
	NotTrusted
	// CertRefused: the server refused the client's certificate, or the
	// lack of one.
	CertRefused
	// NotTLS: the client speaks TLS and the port does not.
	NotTLS
	// TLSRequired: the client speaks plain TCP and the port wants TLS.
	TLSRequired
	// NoReply: the server took the connection and did not answer.
	NoReply
	// Unexpected: the server answered, not in the coordinator's protocol.
	Unexpected
)

// Probe checks one address before a client dials it: TCP, then the TLS
// handshake with the client's own configuration, then a request the
// server answers at once and the start of its reply.
type Probe struct {
	Addr  string      // host:port
	TLS   *tls.Config // nil: plain TCP
	ALPN  []string    // the protocols the client offers over TLS
	Hello []byte      // a request the server answers at once
	// Reply reports whether the first bytes of a reply are of the
	// coordinator's protocol.
	Reply func([]byte) bool
	// Name names the protocol in an error: "etcd (gRPC over HTTP/2)".
	Name string
	// Timeout bounds the probe; zero means Timeout.
	Timeout time.Duration
}

// Error is a failed probe: its Kind and the cause, described.
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Run returns nil when the server took the connection and answered in
// its protocol, else an *Error. ctx bounds it, and so does p.Timeout.
func (p Probe) Run(ctx context.Context) error {
	wait := p.Timeout
	if wait <= 0 {
		wait = Timeout
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
		wait = max(time.Until(dl), 0)
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", p.Addr)
	if err != nil {
		return &Error{Unreachable, fmt.Errorf("cannot connect: %w", Cause(err))}
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if p.TLS != nil {
		cfg := p.TLS.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName, _, _ = net.SplitHostPort(p.Addr)
		}
		cfg.NextProtos = p.ALPN
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			return handshakeErr(err, wait)
		}
		conn = tc
	}
	// With TLS 1.3 the server checks the client's certificate after the
	// client's handshake is done: a refusal arrives as the reply. It can
	// also fail the write, with the alert still there to read.
	_, werr := conn.Write(p.Hello)
	var b [16]byte
	n, err := conn.Read(b[:])
	switch {
	case n > 0 && p.Reply != nil && !p.Reply(b[:n]):
		return &Error{Unexpected, fmt.Errorf("the server answered %q, which is not %s: is it the right port?", b[:n], p.Name)}
	case n > 0:
		return nil
	case isAlert(err):
		return alertErr(err)
	case werr != nil:
		err = werr
	}
	switch {
	case err == nil:
		return nil
	case IsTimeout(err):
		return &Error{NoReply, fmt.Errorf("no reply within %v: the server took the connection and did not answer: is it stalled, or not %s?", round(wait), p.Name)}
	case p.TLS == nil && isClosed(err):
		return &Error{TLSRequired, fmt.Errorf("the server closed the connection at once (%v): is it a TLS port?", Cause(err))}
	case isClosed(err):
		return &Error{CertRefused, fmt.Errorf("the server closed the connection after the TLS handshake (%v): does it want another client certificate?", Cause(err))}
	}
	return &Error{Unreachable, err}
}

// handshakeErr describes an error of the TLS handshake.
func handshakeErr(err error, wait time.Duration) error {
	var verr *tls.CertificateVerificationError
	var herr tls.RecordHeaderError
	switch {
	case errors.As(err, &verr):
		return &Error{NotTrusted, fmt.Errorf("TLS handshake: the server's certificate is not trusted: %w", err)}
	case isAlert(err):
		return alertErr(err)
	case errors.As(err, &herr) || isClosed(err):
		return &Error{NotTLS, fmt.Errorf("TLS handshake: %w: is it a plain, non-TLS port?", Cause(err))}
	case IsTimeout(err):
		return &Error{NoReply, fmt.Errorf("TLS handshake: no reply within %v: is the server stalled, or is it a plain, non-TLS port?", round(wait))}
	}
	return &Error{Unreachable, fmt.Errorf("TLS handshake: %w", err)}
}

// alertErr describes a TLS alert the server sent: it refused the client's
// certificate, or the lack of one.
func alertErr(err error) error {
	return &Error{CertRefused, fmt.Errorf("TLS: the server refused the connection: %w", err)}
}

// round rounds a wait for a message: whole seconds from a second up.
func round(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}

// Cause returns the cause of a network error without the addresses the
// caller names anyway: "connection refused", "i/o timeout", a DNS error.
func Cause(err error) error {
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

// IsTimeout reports whether err is a deadline's.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &ne) && ne.Timeout()
}
