//go:build unix

package redis

import (
	"context"
	"crypto/tls"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/internal/tcptest"
	"github.com/floeid/floe/internal/tlstest"
	goredis "github.com/redis/go-redis/v9"
)

// secureRedis starts a Redis server that speaks TLS only, wants a client
// certificate signed by ca, and has one user, floe, of password "s3cret".
func secureRedis(t *testing.T, ca *tlstest.CA) *redistest.Server {
	t.Helper()
	server := ca.Issue(t, "redis")
	harness := ca.Issue(t, "harness")
	return redistest.StartTLS(t, redistest.TLS{
		CertFile: server.CertFile, KeyFile: server.KeyFile, CAFile: ca.CertFile,
		Client: ca.ClientConfig(harness),
	}, "--user", "default", "off", "--user", "floe", "on", ">s3cret", "~*", "&*", "+@all")
}

func TestTLSConfig(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	pair := ca.Issue(t, "floed")
	notPEM, missing := tlstest.BadFiles(t)
	tests := []struct {
		name      string
		files     TLSFiles
		check     func(*tls.Config) bool
		wantField string   // "": no error
		wantErr   []string // each is in the error
	}{
		{name: "system roots", check: func(c *tls.Config) bool { return c.RootCAs == nil && len(c.Certificates) == 0 }},
		{name: "ca", files: TLSFiles{CA: ca.CertFile}, check: func(c *tls.Config) bool { return c.RootCAs != nil }},
		{name: "client certificate", files: TLSFiles{CA: ca.CertFile, Cert: pair.CertFile, Key: pair.KeyFile, ServerName: "redis-0"},
			check: func(c *tls.Config) bool { return len(c.Certificates) == 1 && c.ServerName == "redis-0" }},
		{name: "unreadable ca", files: TLSFiles{CA: missing}, wantField: "CA", wantErr: []string{"floe: redis TLSFiles.CA", "no such file"}},
		{name: "ca without pem", files: TLSFiles{CA: notPEM}, wantField: "CA", wantErr: []string{notPEM, "no PEM certificate"}},
		{name: "cert without key", files: TLSFiles{Cert: pair.CertFile}, wantField: "Key", wantErr: []string{"TLSFiles.Key"}},
		{name: "unreadable key", files: TLSFiles{Cert: pair.CertFile, Key: missing}, wantField: "Key", wantErr: []string{missing}},
		{name: "a key that is not the cert's", files: TLSFiles{Cert: pair.CertFile, Key: ca.Issue(t, "other").KeyFile}, wantField: "Cert and Key", wantErr: []string{"does not match"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := TLSConfig(tt.files)
			if tt.wantField == "" {
				if err != nil || !tt.check(cfg) {
					t.Fatalf("TLSConfig(%+v) = %+v, %v", tt.files, cfg, err)
				}
				return
			}
			if fe, ok := errors.AsType[*TLSFileError](err); !ok || fe.Field != tt.wantField {
				t.Fatalf("TLSConfig(%+v) = %v, want a *TLSFileError of %s", tt.files, err, tt.wantField)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("TLSConfig(%+v) = %v, want an error with %q", tt.files, err, want)
				}
			}
		})
	}
}

// Against a Redis server with TLS and client certificates, Probe passes
// with the right CA and certificate, and otherwise fails at once with the
// address and the cause.
func TestProbe(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	other := tlstest.NewCA(t, "other")
	srv := secureRedis(t, ca)
	client := ca.Issue(t, "floed")
	stranger := other.Issue(t, "floed")
	plain := redistest.Start(t)
	free := floetest.FreeAddrs(t, 1)[0]
	silent := tcptest.Silent(t)
	tests := []struct {
		name    string
		addr    string
		tls     *tls.Config
		want    error    // nil: passes; else the sentinel it matches
		wantErr []string // each is in the error
	}{
		{name: "right ca and certificate", addr: srv.Addr, tls: ca.ClientConfig(client)},
		{name: "plain", addr: plain.Addr},
		{name: "unknown ca", addr: srv.Addr, tls: other.ClientConfig(client), want: ErrNotTrusted,
			wantErr: []string{"redis " + srv.Addr + ": ", "TLS handshake", "not trusted", "unknown authority"}},
		{name: "client certificate of another ca", addr: srv.Addr, tls: ca.ClientConfig(stranger), want: ErrCertRefused,
			wantErr: []string{"redis " + srv.Addr + ": ", "refused", "remote error"}},
		{name: "no client certificate", addr: srv.Addr, tls: ca.ClientConfig(tlstest.Pair{}), want: ErrCertRefused,
			wantErr: []string{"redis " + srv.Addr + ": ", "refused", "remote error"}},
		{name: "tls off against the tls port", addr: srv.Addr, want: ErrTLSRequired,
			wantErr: []string{"redis " + srv.Addr + ": ", "closed the connection", "TLS port"}},
		{name: "tls on against a plain port", addr: plain.Addr, tls: ca.ClientConfig(client), want: ErrNoReply,
			wantErr: []string{"redis " + plain.Addr + ": ", "TLS handshake", "plain, non-TLS port"}},
		{name: "nothing listening", addr: free, want: ErrUnreachable,
			wantErr: []string{"redis " + free + ": ", "cannot connect", "connection refused"}},
		{name: "silent", addr: silent, want: ErrNoReply,
			wantErr: []string{"redis " + silent + ": ", "no reply within 2s", "did not answer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			err := Probe(ctx, tt.addr, tt.tls)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Probe: %v", err)
				}
				return
			}
			if ee, ok := errors.AsType[*EndpointError](err); !ok || ee.Addr != tt.addr || !errors.Is(err, tt.want) {
				t.Fatalf("Probe = %v, want an *EndpointError of %s matching %v", err, tt.addr, tt.want)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Probe = %v\nwant an error with %q", err, want)
				}
			}
		})
	}
}

// Dial returns a client that answers, or an error naming the address, the
// user and the server's refusal.
func TestDial(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	srv := secureRedis(t, ca)
	client := ca.ClientConfig(ca.Issue(t, "floed"))
	free := floetest.FreeAddrs(t, 1)[0]
	tests := []struct {
		name    string
		opts    goredis.Options
		wantErr []string // nil: connects; else each is in the error
	}{
		{name: "right password", opts: goredis.Options{Addr: srv.Addr, TLSConfig: client, Username: "floe", Password: "s3cret"}},
		{name: "wrong password", opts: goredis.Options{Addr: srv.Addr, TLSConfig: client, Username: "floe", Password: "wrong"},
			wantErr: []string{"redis " + srv.Addr, `authentication as user "floe" failed`, "WRONGPASS"}},
		{name: "no password", opts: goredis.Options{Addr: srv.Addr, TLSConfig: client},
			wantErr: []string{"redis " + srv.Addr, "wants a password", "NOAUTH"}},
		{name: "nothing listening", opts: goredis.Options{Addr: free},
			wantErr: []string{"redis " + free, "cannot connect", "connection refused"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			rdb, err := Dial(ctx, &tt.opts)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Dial: %v", err)
				}
				if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
					t.Errorf("SET on the client of Dial: %v", err)
				}
				rdb.Close()
				return
			}
			if err == nil {
				rdb.Close()
				t.Fatalf("Dial = a client, want an error with %q", tt.wantErr)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Dial = %v\nwant an error with %q", err, want)
				}
			}
		})
	}
}
