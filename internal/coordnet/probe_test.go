package coordnet

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/tcptest"
	"github.com/floeid/floe/internal/tlstest"
)

// The handlers of the test servers.
var (
	// hangUp closes the connection at once.
	hangUp = func(c net.Conn) { c.Close() }
)

func TestProbe_Run(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	other := tlstest.NewCA(t, "other")
	server := ca.Issue(t, "server")
	client := ca.Issue(t, "client")
	stranger := other.Issue(t, "client")
	tlsServer := func(auth tls.ClientAuthType) *tls.Config {
		return &tls.Config{Certificates: []tls.Certificate{server.Cert}, ClientCAs: ca.Pool, ClientAuth: auth}
	}
	isPlus := func(b []byte) bool { return b[0] == '+' }

	tests := []struct {
		name     string
		addr     string
		tls      *tls.Config
		wantKind Kind     // 0: nil
		wantErr  []string // each is in the error
	}{
		{name: "answers", addr: tcptest.Serve(t, nil, tcptest.Answer("+PONG\r\n"))},
		{name: "answers over tls", addr: tcptest.Serve(t, tlsServer(tls.NoClientCert), tcptest.Answer("+PONG\r\n")), tls: ca.ClientConfig(tlstest.Pair{})},
		{name: "answers a client certificate", addr: tcptest.Serve(t, tlsServer(tls.RequireAndVerifyClientCert), tcptest.Answer("+PONG\r\n")), tls: ca.ClientConfig(client)},
		{name: "nothing listening", addr: floetest.FreeAddrs(t, 1)[0], wantKind: Unreachable, wantErr: []string{"cannot connect", "connection refused"}},
		{name: "silent", addr: tcptest.Silent(t), wantKind: NoReply, wantErr: []string{"no reply within 1s", "took the connection", "stalled", "not redis"}},
		{name: "another protocol", addr: tcptest.Serve(t, nil, tcptest.Answer("HTTP/1.1 400 Bad Request\r\n")), wantKind: Unexpected, wantErr: []string{`answered "HTTP/1.1 400 Bad"`, "not redis", "right port"}},
		{name: "tls port, plain client", addr: tcptest.Serve(t, nil, hangUp), wantKind: TLSRequired, wantErr: []string{"closed the connection at once", "TLS port"}},
		{name: "plain port, tls client", addr: tcptest.Serve(t, nil, tcptest.Answer("-ERR unknown command\r\n")), tls: ca.ClientConfig(tlstest.Pair{}), wantKind: NotTLS, wantErr: []string{"TLS handshake", "plain, non-TLS port"}},
		{name: "plain port closing, tls client", addr: tcptest.Serve(t, nil, hangUp), tls: ca.ClientConfig(tlstest.Pair{}), wantKind: NotTLS, wantErr: []string{"TLS handshake", "plain, non-TLS port"}},
		{name: "silent plain port, tls client", addr: tcptest.Silent(t), tls: ca.ClientConfig(tlstest.Pair{}), wantKind: NoReply, wantErr: []string{"TLS handshake", "no reply within 1s", "stalled", "plain, non-TLS port"}},
		{name: "unknown ca", addr: tcptest.Serve(t, tlsServer(tls.NoClientCert), tcptest.Answer("+PONG\r\n")), tls: other.ClientConfig(tlstest.Pair{}), wantKind: NotTrusted, wantErr: []string{"TLS handshake", "not trusted", "unknown authority"}},
		{name: "no client certificate", addr: tcptest.Serve(t, tlsServer(tls.RequireAndVerifyClientCert), tcptest.Answer("+PONG\r\n")), tls: ca.ClientConfig(tlstest.Pair{}), wantKind: CertRefused, wantErr: []string{"refused", "remote error"}},
		{name: "client certificate of another ca", addr: tcptest.Serve(t, tlsServer(tls.RequireAndVerifyClientCert), tcptest.Answer("+PONG\r\n")), tls: ca.ClientConfig(stranger), wantKind: CertRefused, wantErr: []string{"refused", "remote error"}},
		{name: "closed after the handshake", addr: tcptest.Serve(t, tlsServer(tls.NoClientCert), func(c net.Conn) { c.(*tls.Conn).Handshake(); c.Close() }), tls: ca.ClientConfig(tlstest.Pair{}), wantKind: CertRefused, wantErr: []string{"closed the connection after the TLS handshake"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			p := Probe{Addr: tt.addr, TLS: tt.tls, Hello: []byte("PING\r\n"), Reply: isPlus, Name: "redis"}
			start := time.Now()
			err := p.Run(ctx)
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("Run took %v, past its context's 1 s", took)
			}
			if tt.wantKind == 0 {
				if err != nil {
					t.Fatalf("Run = %v, want nil", err)
				}
				return
			}
			pe, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("Run = %v (%T), want an *Error of kind %d", err, err, tt.wantKind)
			}
			if pe.Kind != tt.wantKind {
				t.Errorf("Run = %v: kind %d, want %d", err, pe.Kind, tt.wantKind)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Run = %v\nwant an error with %q", err, want)
				}
			}
		})
	}
}

// Without a deadline of its context, a probe of a silent server ends after
// Timeout, and says so.
func TestProbe_RunTimeout(t *testing.T) {
	addr := tcptest.Silent(t)
	start := time.Now()
	err := Probe{Addr: addr, Hello: []byte("PING\r\n"), Name: "redis"}.Run(context.Background())
	took := time.Since(start)
	if pe, ok := errors.AsType[*Error](err); !ok || pe.Kind != NoReply || !strings.Contains(err.Error(), "no reply within 5s") {
		t.Fatalf("Run = %v, want a NoReply error within 5s", err)
	}
	if took < Timeout-100*time.Millisecond || took > Timeout+5*time.Second {
		t.Errorf("Run took %v, want about %v", took, Timeout)
	}
}
