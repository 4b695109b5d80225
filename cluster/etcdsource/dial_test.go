//go:build unix

package etcdsource_test

import (
	"context"
	"crypto/tls"
	"errors"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/tcptest"
	"github.com/floeid/floe/internal/tlstest"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/etcd"
)

// Against etcd with TLS and client certificates, Probe passes with the
// right CA and certificate, and otherwise fails at once with the address
// and the cause.
func TestProbe(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	other := tlstest.NewCA(t, "other")
	server := ca.Issue(t, "etcd")
	client := ca.Issue(t, "app")
	stranger := other.Issue(t, "app")
	secure := etcdtest.StartSecure(t, 1, etcdtest.Security{
		CertFile: server.CertFile, KeyFile: server.KeyFile, CAFile: ca.CertFile, Client: ca.ClientConfig(client),
	})
	ep := secure.Endpoints()[0]
	plain := etcdtest.Start(t, 1).Endpoints()[0]
	free := floetest.FreeAddrs(t, 1)[0]
	quiet := tcptest.Silent(t)
	web := tcptest.Serve(t, nil, tcptest.Answer("HTTP/1.1 400 Bad Request\r\n\r\n")) // an HTTP/1 server

	tests := []struct {
		name     string
		endpoint string
		tls      *tls.Config
		want     error    // nil: passes; else the sentinel it matches
		wantErr  []string // each is in the error
	}{
		{name: "right ca and certificate", endpoint: ep, tls: ca.ClientConfig(client)},
		{name: "https endpoint", endpoint: "https://" + ep, tls: ca.ClientConfig(client)},
		{name: "plain", endpoint: plain},
		{name: "http endpoint", endpoint: "http://" + plain + "/"},
		{name: "unknown ca", endpoint: ep, tls: other.ClientConfig(client), want: etcd.ErrNotTrusted,
			wantErr: []string{"etcd " + ep + ": ", "TLS handshake", "not trusted", "unknown authority"}},
		{name: "https endpoint with the system roots", endpoint: "https://" + ep, want: etcd.ErrNotTrusted,
			wantErr: []string{"etcd " + ep + ": ", "not trusted"}},
		{name: "client certificate of another ca", endpoint: ep, tls: ca.ClientConfig(stranger), want: etcd.ErrCertRefused,
			wantErr: []string{"etcd " + ep + ": ", "refused", "remote error: tls:"}},
		{name: "no client certificate", endpoint: ep, tls: ca.ClientConfig(tlstest.Pair{}), want: etcd.ErrCertRefused,
			wantErr: []string{"etcd " + ep + ": ", "refused", "remote error"}},
		{name: "tls off against the tls port", endpoint: ep, want: etcd.ErrTLSRequired,
			wantErr: []string{"etcd " + ep + ": ", "closed the connection", "TLS port"}},
		{name: "http endpoint against the tls port", endpoint: "http://" + ep, tls: ca.ClientConfig(client), want: etcd.ErrTLSRequired,
			wantErr: []string{"etcd " + ep + ": ", "TLS port"}},
		{name: "nothing listening", endpoint: free, want: etcd.ErrUnreachable,
			wantErr: []string{"etcd " + free + ": ", "cannot connect: connection refused"}},
		{name: "silent", endpoint: quiet, want: etcd.ErrNoReply,
			wantErr: []string{"etcd " + quiet + ": ", "no reply within 2s", "did not answer"}},
		{name: "not etcd", endpoint: web, want: etcd.ErrNotEtcd,
			wantErr: []string{"etcd " + web + ": ", `answered "HTTP/1.1 400 Bad"`, "not etcd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			err := etcd.Probe(ctx, tt.endpoint, tt.tls)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Probe: %v", err)
				}
				return
			}
			if ee, ok := errors.AsType[*etcd.EndpointError](err); !ok || ee.Endpoint != tt.endpoint || !errors.Is(err, tt.want) {
				t.Fatalf("Probe = %v, want an *EndpointError of %s matching %v", err, tt.endpoint, tt.want)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Probe = %v\nwant an error with %q", err, want)
				}
			}
		})
	}
}

// Dial returns a client when one endpoint of several answers, and
// otherwise each endpoint's cause, or the refused login.
func TestDial(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	server := ca.Issue(t, "etcd")
	client := ca.ClientConfig(ca.Issue(t, "root"))
	secure := etcdtest.StartSecure(t, 1, etcdtest.Security{
		CertFile: server.CertFile, KeyFile: server.KeyFile, CAFile: ca.CertFile, Client: client, RootPassword: "rootpw",
	})
	ep := secure.Endpoints()[0]
	plain := etcdtest.Start(t, 1).Endpoints()[0]
	free := floetest.FreeAddrs(t, 1)[0]
	quiet := tcptest.Silent(t)

	tests := []struct {
		name    string
		cfg     clientv3.Config
		wantErr []string // nil: a client; else each is in the error
		// defaultTimeout leaves cfg.DialTimeout zero: the case checks
		// Dial's default, ProbeTimeout. The others get successTimeout.
		defaultTimeout bool
	}{
		{name: "plain", cfg: clientv3.Config{Endpoints: []string{plain}}},
		{name: "one of two out of reach", cfg: clientv3.Config{Endpoints: []string{free, plain}}},
		{name: "tls and a user", cfg: clientv3.Config{Endpoints: []string{ep}, TLS: client, Username: "root", Password: "rootpw"}},
		{name: "wrong password", cfg: clientv3.Config{Endpoints: []string{ep}, TLS: client, Username: "root", Password: "wrong"},
			wantErr: []string{"etcd " + ep, `authentication as user "root" failed`}},
		{name: "none answers", cfg: clientv3.Config{Endpoints: []string{free, quiet}},
			wantErr: []string{"etcd " + free + ": cannot connect: connection refused", "etcd " + quiet + ": no reply within 5s"}, defaultTimeout: true},
		{name: "no endpoints", wantErr: []string{"no endpoints"}},
	}
	// successTimeout is the DialTimeout of the cases that do not check it:
	// it bounds the probe and the login, and a login's bcrypt, under -race
	// on a loaded machine, takes longer than the default 5 s. What these
	// cases check is a client, or the login's refusal, not how soon.
	const successTimeout = time.Minute
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*successTimeout)
			defer cancel()
			tt.cfg.Logger = zap.NewNop()
			if !tt.defaultTimeout {
				tt.cfg.DialTimeout = successTimeout
			}
			cli, err := etcd.Dial(ctx, tt.cfg)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Dial: %v", err)
				}
				defer cli.Close()
				if _, err := cli.Put(ctx, "/floe/dial", "x"); err != nil {
					t.Errorf("Put on the client of Dial: %v", err)
				}
				return
			}
			if err == nil {
				cli.Close()
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

// openOrders opens the sequence "orders" on cli as an application does: a
// Catalog and sequencer.Open.
func openOrders(ctx context.Context, cli *clientv3.Client) (*sequencer.Sequencer, error) {
	catalog := etcd.NewCatalog(cli, "/floe/v1/prod/")
	def, err := sequencer.Snowcast(time.Date(2014, 1, 1, 0, 0, 0, 0, time.UTC), 1024)
	if err != nil {
		return nil, err
	}
	return sequencer.Open(ctx, sequencer.Config{
		Name: "orders", Definition: def, Catalog: catalog,
		Sources: func(seq workerid.Sequence) (workerid.Source, error) {
			return catalog.Source(seq, etcd.Config{IDs: def.WorkerIDs(), Owner: "orders-test-1"})
		},
	})
}

// An application that opens a sequencer on an etcd endpoint that refuses,
// or that takes the connection and never answers, gets an error naming the
// endpoint and the cause within a bound, not a bare "context deadline
// exceeded": at once through Dial, and at its context's deadline with a
// client of its own.
func TestOpen_EndpointOutOfReach(t *testing.T) {
	ec := etcdtest.Start(t, 1)
	free := floetest.FreeAddrs(t, 1)[0]
	quiet := tcptest.Silent(t)
	const appDeadline = 3 * time.Second // the application's, with its own client

	tests := []struct {
		name     string
		endpoint string
		want     error    // nil: serves
		wantErr  []string // each is in the error
	}{
		{name: "serving", endpoint: ec.Endpoints()[0]},
		{name: "refused", endpoint: free, want: etcd.ErrUnreachable, wantErr: []string{"etcd " + free + ": ", "connection refused"}},
		{name: "silent", endpoint: quiet, want: etcd.ErrNoReply, wantErr: []string{"etcd " + quiet + ": ", "no reply within"}},
	}
	for _, tt := range tests {
		check := func(t *testing.T, err error, took, bound time.Duration) {
			t.Helper()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("open = a sequencer, want an error matching %v", tt.want)
			}
			if !errors.Is(err, tt.want) || err.Error() == context.DeadlineExceeded.Error() {
				t.Errorf("open = %v, want an error matching %v", err, tt.want)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("open = %v, want an error with %q", err, want)
				}
			}
			if took > bound {
				t.Errorf("open took %v, want the error within %v", took, bound)
			}
		}
		t.Run(tt.name+"/dial", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			cfg := clientv3.Config{Endpoints: []string{tt.endpoint}, Logger: zap.NewNop()}
			if tt.want == nil {
				// Serving: the probe's bound (ProbeTimeout) is not what
				// this case checks, and a loaded machine may exceed it.
				cfg.DialTimeout = time.Minute
			}
			cli, err := etcd.Dial(ctx, cfg)
			var sq *sequencer.Sequencer
			if err == nil {
				defer cli.Close()
				sq, err = openOrders(ctx, cli)
			}
			check(t, err, time.Since(start), etcd.ProbeTimeout+10*time.Second)
			if sq != nil {
				if _, err := sq.Next64(); err != nil {
					t.Errorf("Next64: %v", err)
				}
				sq.Close(ctx)
			}
		})
		t.Run(tt.name+"/own client", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), appDeadline)
			defer cancel()
			cli, err := clientv3.New(clientv3.Config{Endpoints: []string{tt.endpoint}, Logger: zap.NewNop()})
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			start := time.Now()
			sq, err := openOrders(ctx, cli)
			check(t, err, time.Since(start), appDeadline+10*time.Second)
			if sq != nil {
				sq.Close(context.Background())
			}
		})
	}
}
