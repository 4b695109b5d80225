package client_test

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/server"
	"github.com/floeid/floe/internal/server/servertest"
	"github.com/floeid/floe/internal/tlstest"
	"github.com/floeid/floe/tlsfile"
)

// startFloedTLS runs floed's server over TLS on loopback, requiring client
// certificates of ca when mutual.
func startFloedTLS(t *testing.T, ca *tlstest.CA, mutual bool) string {
	t.Helper()
	s, err := server.New(server.Config{
		Sequences: []server.SequenceConfig{{Name: "default"}},
		Store:     &servertest.Store{},
		Logger:    slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	pair := ca.Issue(t, "floed")
	files := tlsfile.Files{Cert: pair.CertFile, Key: pair.KeyFile}
	if mutual {
		files.ClientCA = ca.CertFile
	}
	w, err := tlsfile.New(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.ServeTLS(ln, w.ServerConfig(nil)) }()
	t.Cleanup(func() {
		s.Close()
		<-done
	})
	return ln.Addr().String()
}

// The client fetches IDs over TLS, with and without a client certificate,
// and fails against a server it does not trust or that refuses it.
func TestClient_TLS(t *testing.T) {
	ca, stranger := tlstest.NewCA(t, "ca"), tlstest.NewCA(t, "stranger")
	plain, mutual := startFloedTLS(t, ca, false), startFloedTLS(t, ca, true)
	plaintext := startFloed(t, 3, "")
	tests := []struct {
		name string
		addr string
		cfg  *tls.Config
		ok   bool
	}{
		{"TLS", plain, ca.ClientConfig(tlstest.Pair{}), true},
		{"TLS by the host name", "localhost:" + port(t, plain), ca.ClientConfig(tlstest.Pair{}), true},
		{"mutual TLS", mutual, ca.ClientConfig(ca.Issue(t, "app")), true},
		{"mutual TLS without a certificate", mutual, ca.ClientConfig(tlstest.Pair{}), false},
		{"mutual TLS with another CA's certificate", mutual, ca.ClientConfig(stranger.Issue(t, "app")), false},
		{"a server of another CA", plain, stranger.ClientConfig(tlstest.Pair{}), false},
		{"TLS to a plaintext port", plaintext, ca.ClientConfig(tlstest.Pair{}), false},
		{"plain text to a TLS port", plain, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := client.New([]string{tt.addr}, client.WithTLS(tt.cfg), client.WithMaxAttempts(2), client.WithTimeout(2*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ids := make([]id64.ID, 600) // a pipelined run and a batch
			n, err := c.NextN(ctx, ids)
			if !tt.ok {
				if err == nil {
					t.Fatalf("served %d IDs, want a failure", n)
				}
				if ctx.Err() != nil {
					t.Fatalf("failed only at the deadline: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := floetest.Increasing(ids, id64.ID.Compare); err != nil {
				t.Error(err)
			}
			one, err := c.Next(ctx)
			if err != nil || one <= ids[len(ids)-1] {
				t.Errorf("Next = %v, %v; want an ID above %v", one, err, ids[len(ids)-1])
			}
		})
	}
}

func port(t *testing.T, addr string) string {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
