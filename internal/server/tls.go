package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// TLS on every listener: ServeTLS (the binary protocol), ServeGRPCTLS and
// HTTPListener. Every listener tells the other kind of client: a plaintext
// client on a TLS port and a TLS client on a plaintext port are closed at
// their first bytes, each counted by reason in floe_tls_errors_total and
// logged at most once per 5 s per listener and reason.

// The reasons of floe_tls_errors_total, also close reasons of binary
// connections (floe_connections_closed_total).
const (
	tlsPlaintext = "plaintext_on_tls" // a plaintext client on a TLS port
	tlsOnPlain   = "tls_on_plaintext" // a TLS client on a plaintext port
	tlsCert      = "client_cert"      // a client certificate missing or refused
	tlsHandshake = "tls_handshake"    // any other failed handshake
)

// tlsMessages are the log lines of the reasons.
var tlsMessages = map[string]string{
	tlsPlaintext: "plaintext client on a TLS port: closed",
	tlsOnPlain:   "TLS client on a plaintext port: closed",
	tlsCert:      "TLS handshake refused: client certificate missing or not signed by the client CA",
	tlsHandshake: "TLS handshake failed",
}

// recordHandshake is the first byte of a TLS connection: a handshake
// record.
const recordHandshake = 0x16

// looksLikeTLS reports whether b, the first bytes of a connection, begin a
// TLS ClientHello: a handshake record of version 3.x (SSL 3 to TLS 1.3 use
// 3.0 to 3.4) whose first message is a ClientHello (type 1). As noeq
// requests these would be six pipelined requests for 22, 3, 0 to 4, any,
// any and 1 IDs, which no noeq client sends first.
func looksLikeTLS(b []byte) bool {
	return len(b) >= 6 && b[0] == recordHandshake && b[1] == 3 && b[2] <= 4 && b[5] == 1
}

// tlsFailed counts and logs a TLS mismatch or failed handshake on the
// listener proto ("noeq", "http", "grpc") from remote.
func (s *Server) tlsFailed(proto, reason string, remote net.Addr, err error) {
	s.m.tlsErrors.WithLabelValues(proto, reason).Inc()
	args := []any{"proto", proto, "remote", remote}
	if err != nil {
		args = append(args, "err", err)
	}
	s.logs.warn("tls/"+proto+"/"+reason, tlsMessages[reason], args...)
}

// handshakeReason classifies the error of a failed server handshake; ""
// for a client that closed before sending anything, which is no error (a
// TCP probe).
func handshakeReason(err error, plain bool) string {
	var verr *tls.CertificateVerificationError
	var uerr x509.UnknownAuthorityError
	switch {
	case plain:
		return tlsPlaintext
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return ""
	case errors.As(err, &verr), errors.As(err, &uerr), strings.Contains(err.Error(), "client didn't provide a certificate"):
		return tlsCert
	}
	return tlsHandshake
}

// errPlaintext ends the handshake of a connection whose first byte is not
// a TLS record's.
var errPlaintext = errors.New("not TLS: the first byte is not a TLS handshake record")

// sniffConn is a connection a TLS server reads: its first read fails with
// errPlaintext unless it begins with a handshake record, so that a
// plaintext client is closed at once instead of left waiting for the
// handshake's deadline (a noeq client's request is one byte).
type sniffConn struct {
	net.Conn
	read  bool        // owned by the reader
	plain atomic.Bool // the first byte was not a TLS record's
}

func (c *sniffConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if !c.read && n > 0 {
		c.read = true
		if p[0] != recordHandshake {
			c.plain.Store(true)
			return 0, errPlaintext
		}
	}
	return n, err
}

// ServeTLS is Serve over TLS with cfg: each connection's handshake, which
// must complete within Config.AuthTimeout, comes before its auth frame and
// requests. A client whose first byte does not begin a TLS record is
// closed at once (a plaintext noeq client). cfg is used as it is: for
// client certificates, its ClientAuth and ClientCAs.
func (s *Server) ServeTLS(l net.Listener, cfg *tls.Config) error {
	if cfg == nil {
		l.Close()
		return errors.New("server: ServeTLS without a TLS configuration")
	}
	return s.serve(l, cfg)
}

// handshake runs a binary connection's TLS handshake, within AuthTimeout,
// and returns the reason to close on failure.
func (c *conn) handshake() string {
	c.tc.SetDeadline(time.Now().Add(c.s.cfg.AuthTimeout))
	if reason := c.ending(); reason != "" {
		return reason
	}
	err := c.tc.Handshake()
	if reason := c.ending(); reason != "" {
		return reason
	}
	if err == nil {
		c.tc.SetWriteDeadline(time.Time{})
		c.tc.SetReadDeadline(time.Now().Add(c.s.firstRead()))
		return c.ending()
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		c.s.tlsFailed("noeq", tlsHandshake, c.nc.RemoteAddr(), err)
		return tlsHandshake
	}
	reason := handshakeReason(err, c.sniff.plain.Load())
	if reason == "" {
		return "eof"
	}
	c.s.tlsFailed("noeq", reason, c.nc.RemoteAddr(), err)
	return reason
}

// tlsOnPlaintext closes a connection to a plaintext port that began with
// a TLS ClientHello.
func (c *conn) tlsOnPlaintext() string {
	c.s.tlsFailed("noeq", tlsOnPlain, c.nc.RemoteAddr(), nil)
	return tlsOnPlain
}

// ServeGRPCTLS is ServeGRPC over TLS with cfg (with "h2" among the
// NextProtos of the configurations it gives handshakes): its failed
// handshakes, a plaintext client's among them, count and log as those of
// ServeTLS.
func (s *Server) ServeGRPCTLS(l net.Listener, cfg *tls.Config, opts ...grpc.ServerOption) error {
	if cfg == nil {
		l.Close()
		return errors.New("server: ServeGRPCTLS without a TLS configuration")
	}
	creds := &observedCreds{TransportCredentials: credentials.NewTLS(cfg), s: s}
	return s.ServeGRPC(l, append([]grpc.ServerOption{grpc.Creds(creds)}, opts...)...)
}

// observedCreds are TLS credentials whose failed handshakes count and log.
type observedCreds struct {
	credentials.TransportCredentials
	s *Server
}

func (c *observedCreds) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	sc := &sniffConn{Conn: raw}
	conn, info, err := c.TransportCredentials.ServerHandshake(sc)
	if err != nil {
		if reason := handshakeReason(err, sc.plain.Load()); reason != "" {
			c.s.tlsFailed("grpc", reason, raw.RemoteAddr(), err)
		}
	}
	return conn, info, err
}

func (c *observedCreds) Clone() credentials.TransportCredentials {
	return &observedCreds{TransportCredentials: c.TransportCredentials.Clone(), s: c.s}
}

// PlaintextListener returns l, for a plaintext HTTP or gRPC server (proto
// "http" or "grpc"), with its connections closed at their first read when
// they begin with a TLS ClientHello: a TLS client on a plaintext port
// counts and logs as on the binary protocol's (see ServeTLS).
func (s *Server) PlaintextListener(l net.Listener, proto string) net.Listener {
	return &plainListener{Listener: l, s: s, proto: proto}
}

type plainListener struct {
	net.Listener
	s     *Server
	proto string
}

func (l *plainListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &plainConn{Conn: c, l: l}, nil
}

// plainConn is a connection to a plaintext port: its first read fails
// when it begins a TLS ClientHello.
type plainConn struct {
	net.Conn
	l    *plainListener
	read bool // owned by the reader
}

func (c *plainConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if !c.read && n > 0 {
		c.read = true
		if n >= 1 && p[0] == recordHandshake && (n < 6 || looksLikeTLS(p[:n])) {
			// HTTP and HTTP/2 begin with a letter: 0x16 is never theirs.
			c.l.s.tlsFailed(c.l.proto, tlsOnPlain, c.RemoteAddr(), nil)
			return 0, errors.New("a TLS client on a plaintext port")
		}
	}
	return n, err
}

// HTTPErrorLog returns a logger for http.Server.ErrorLog. Its lines about
// failed TLS handshakes (a plaintext client among them, which net/http
// answers with 400) count in floe_tls_errors_total and log as those of
// ServeTLS; its other lines go to the server's log at level Warn, at most
// once per 5 s.
func (s *Server) HTTPErrorLog() *log.Logger {
	return log.New(httpLogWriter{s}, "", 0)
}

type httpLogWriter struct{ s *Server }

func (w httpLogWriter) Write(p []byte) (int, error) {
	line := strings.TrimSpace(string(p))
	rest, ok := strings.CutPrefix(line, "http: TLS handshake error from ")
	if !ok {
		w.s.logs.warn("http/error", "HTTP server", "err", line)
		return len(p), nil
	}
	remote, cause, _ := strings.Cut(rest, ": ")
	var reason string
	switch {
	case strings.Contains(cause, "client sent an HTTP request to an HTTPS server"):
		reason = tlsPlaintext
	case cause == "EOF" || strings.Contains(cause, "connection reset"):
		return len(p), nil // a TCP probe
	case strings.Contains(cause, "client didn't provide a certificate"), strings.Contains(cause, "certificate signed by unknown authority"),
		strings.Contains(cause, "failed to verify certificate"):
		reason = tlsCert
	case strings.Contains(cause, errPlaintext.Error()):
		reason = tlsPlaintext
	default:
		reason = tlsHandshake
	}
	w.s.tlsFailed("http", reason, textAddr(remote), errors.New(cause))
	return len(p), nil
}

// textAddr is a remote address known by its text.
type textAddr string

func (a textAddr) Network() string { return "tcp" }
func (a textAddr) String() string  { return string(a) }

// requireClientCert refuses the HTTP requests that came without a
// verified client certificate, but for the probes (see
// Config.HTTPClientCert).
func (s *Server) requireClientCert(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || r.TLS != nil && len(r.TLS.VerifiedChains) > 0 {
			next.ServeHTTP(w, r)
			return
		}
		s.m.httpRequest("", "client_cert_required")
		writeError(w, http.StatusForbidden, "client_cert_required", "this server requires a client certificate signed by its client CA (mutual TLS)")
	})
}
