package server

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/floeid/floe/internal/floev1"
	"github.com/floeid/floe/internal/tlstest"
	"github.com/floeid/floe/internal/wire"
	"github.com/floeid/floe/tlsfile"
)

// countLog counts log records by message.
type countLog struct {
	mu   sync.Mutex
	msgs map[string]int
}

func (h *countLog) Enabled(context.Context, slog.Level) bool { return true }
func (h *countLog) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs[r.Message]++
	return nil
}
func (h *countLog) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countLog) WithGroup(string) slog.Handler      { return h }
func (h *countLog) count(msg string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.msgs[msg]
}

// tlsServer is a server with its three listeners, over TLS or not.
type tlsServer struct {
	s             *Server
	reg           *prometheus.Registry
	log           *countLog
	bin, web, rpc string // addresses
	ca            *tlstest.CA
	watcher       *tlsfile.Watcher
	certDir       string // where the watched certificate and key are
	cert, key     string
	client        *tls.Config // a client of the CA, with a certificate
}

// newTLSServer starts a server whose listeners serve TLS, with client
// certificates of its CA required when mutual, or plain text when plain.
func newTLSServer(t *testing.T, plain, mutual bool) *tlsServer {
	t.Helper()
	ts := &tlsServer{reg: prometheus.NewRegistry(), log: &countLog{msgs: map[string]int{}}, ca: tlstest.NewCA(t, "ca")}
	cfg := Config{Registry: ts.reg, Logger: slog.New(ts.log), Store: newMemStore(), HTTPClientCert: mutual && !plain,
		Sequences: []SequenceConfig{{Name: "default"}}}
	var err error
	if ts.s, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	ts.client = ts.ca.ClientConfig(ts.ca.Issue(t, "client"))
	var binTLS, webTLS *tls.Config
	if !plain {
		ts.certDir = t.TempDir()
		ts.cert, ts.key = filepath.Join(ts.certDir, "tls.crt"), filepath.Join(ts.certDir, "tls.key")
		copyPair(t, ts.ca.Issue(t, "server"), ts.cert, ts.key)
		files := tlsfile.Files{Cert: ts.cert, Key: ts.key}
		if mutual {
			files.ClientCA = ts.ca.CertFile
		}
		if ts.watcher, err = tlsfile.New(files, nil); err != nil {
			t.Fatal(err)
		}
		binTLS = ts.watcher.ServerConfig(nil)
		web := &tls.Config{NextProtos: []string{"h2", "http/1.1"}}
		if mutual {
			web.ClientAuth = tls.VerifyClientCertIfGiven
		}
		webTLS = ts.watcher.ServerConfig(web)
	}
	listen := func() net.Listener {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	bl, wl, rl := listen(), listen(), listen()
	ts.bin, ts.web, ts.rpc = bl.Addr().String(), wl.Addr().String(), rl.Addr().String()
	hs := &http.Server{Handler: ts.s.Handler(), ErrorLog: ts.s.HTTPErrorLog(), ReadHeaderTimeout: 5 * time.Second}
	done := make(chan error, 3)
	if plain {
		go func() { done <- ts.s.Serve(bl) }()
		go func() { done <- hs.Serve(ts.s.PlaintextListener(wl, "http")) }()
		go func() { done <- ts.s.ServeGRPC(ts.s.PlaintextListener(rl, "grpc")) }()
	} else {
		go func() { done <- ts.s.ServeTLS(bl, binTLS) }()
		go func() { done <- hs.Serve(tls.NewListener(wl, webTLS)) }()
		go func() { done <- ts.s.ServeGRPCTLS(rl, binTLS) }()
	}
	t.Cleanup(func() {
		hs.Close()
		ts.s.Close()
		for range 3 {
			if err := <-done; !errors.Is(err, ErrServerClosed) && !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("a listener returned %v", err)
			}
		}
	})
	return ts
}

// copyPair copies pair's files to cert and key, each by a rename.
func copyPair(t *testing.T, pair tlstest.Pair, cert, key string) {
	t.Helper()
	for src, dst := range map[string]string{pair.CertFile: cert, pair.KeyFile: key} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst+".new", b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(dst+".new", dst); err != nil {
			t.Fatal(err)
		}
	}
}

// binaryIDs asks for n IDs on a new binary connection, over TLS with cfg
// when not nil.
func binaryIDs(addr string, cfg *tls.Config, n int) ([]uint64, error) {
	nc, err := dialMaybeTLS(addr, cfg)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	return askIDs(nc, n)
}

func dialMaybeTLS(addr string, cfg *tls.Config) (net.Conn, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if cfg == nil {
		return d.Dial("tcp", addr)
	}
	return tls.DialWithDialer(d, "tcp", addr, cfg)
}

func askIDs(nc net.Conn, n int) ([]uint64, error) {
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := nc.Write([]byte{byte(n)}); err != nil {
		return nil, err
	}
	ids := make([]uint64, n)
	_, err := wire.ReadIDs(nc, ids, nil)
	return ids, err
}

// httpIDs fetches n IDs over HTTP(S), returning the status on a refusal.
func httpIDs(addr string, cfg *tls.Config, n int) ([]uint64, error) {
	scheme := "http"
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	if cfg != nil {
		tr.TLSClientConfig = cfg.Clone() // the transport adds its protocols
		scheme = "https"
		tr.ForceAttemptHTTP2 = true
	}
	hc := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	resp, err := hc.Get(fmt.Sprintf("%s://%s/v1/ids?n=%d", scheme, addr, n))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var body struct{ IDs []string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, err
	}
	var ids []uint64
	for _, s := range body.IDs {
		id, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// grpcIDs fetches n IDs over gRPC.
func grpcIDs(addr string, cfg *tls.Config, n int) ([]uint64, error) {
	creds := insecure.NewCredentials()
	if cfg != nil {
		creds = credentials.NewTLS(cfg)
	}
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		return nil, err
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := floev1.NewIDsClient(cc).Next(ctx, &floev1.NextRequest{Count: uint32(n)})
	if err != nil {
		return nil, err
	}
	return resp.GetIds64(), nil
}

type fetchFunc func(addr string, cfg *tls.Config, n int) ([]uint64, error)

func (ts *tlsServer) listeners() []struct {
	name  string
	addr  string
	fetch fetchFunc
} {
	return []struct {
		name  string
		addr  string
		fetch fetchFunc
	}{{"noeq", ts.bin, binaryIDs}, {"http", ts.web, httpIDs}, {"grpc", ts.rpc, grpcIDs}}
}

func increasing(ids []uint64) error {
	if len(ids) == 0 {
		return errors.New("no IDs")
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			return fmt.Errorf("ID %d (%d) not above the one before (%d)", i, ids[i], ids[i-1])
		}
	}
	return nil
}

// Every listener serves IDs over TLS; with mutual TLS, to a client with a
// certificate of the CA only.
func TestServer_TLS(t *testing.T) {
	for _, mutual := range []bool{false, true} {
		ts := newTLSServer(t, false, mutual)
		stranger := tlstest.NewCA(t, "stranger")
		clients := []struct {
			name string
			cfg  *tls.Config
			ok   bool // served
		}{
			{"a certificate of the CA", ts.client, true},
			{"no certificate", ts.ca.ClientConfig(tlstest.Pair{}), !mutual},
			{"a certificate of another CA", func() *tls.Config {
				c := ts.ca.ClientConfig(stranger.Issue(t, "intruder"))
				return c
			}(), !mutual},
		}
		for _, l := range ts.listeners() {
			for _, c := range clients {
				t.Run(fmt.Sprintf("mutual=%v/%s/%s", mutual, l.name, c.name), func(t *testing.T) {
					var last uint64
					for range 3 {
						ids, err := l.fetch(l.addr, c.cfg, 10)
						if !c.ok {
							if err == nil {
								t.Fatalf("served %d IDs, want a refusal", len(ids))
							}
							return
						}
						if err != nil {
							t.Fatal(err)
						}
						if err := increasing(ids); err != nil || ids[0] <= last {
							t.Fatalf("IDs %v after %d: %v", ids, last, err)
						}
						last = ids[len(ids)-1]
					}
				})
			}
		}
		if mutual {
			// The probes answer a client without a certificate.
			tr := &http.Transport{TLSClientConfig: ts.ca.ClientConfig(tlstest.Pair{})}
			resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get("https://" + ts.web + "/readyz")
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Errorf("GET /readyz without a certificate: %v %v, want 200", resp, err)
			}
			if resp != nil {
				resp.Body.Close()
			}
			tr.CloseIdleConnections()
		}
	}
}

// A plaintext client on a TLS port and a TLS client on a plaintext port
// are closed at once, each counted, and logged once however many come;
// other clients are served meanwhile.
func TestServer_TLSMismatch(t *testing.T) {
	const conns = 20
	tlsSrv, plainSrv := newTLSServer(t, false, false), newTLSServer(t, true, false)
	cases := []struct {
		name    string
		srv     *tlsServer
		client  *tls.Config // nil: plain text
		reason  string
		message string
	}{
		{"plaintext on TLS", tlsSrv, nil, tlsPlaintext, tlsMessages[tlsPlaintext]},
		{"TLS on plaintext", plainSrv, tlsSrv.client, tlsOnPlain, tlsMessages[tlsOnPlain]},
	}
	for _, tc := range cases {
		good := tc.srv.client
		if tc.srv == plainSrv {
			good = nil
		}
		for _, l := range tc.srv.listeners() {
			t.Run(tc.name+"/"+l.name, func(t *testing.T) {
				var wg sync.WaitGroup
				for range conns {
					wg.Go(func() {
						start := time.Now()
						_, err := l.fetch(l.addr, tc.client, 1)
						if err == nil {
							t.Error("served, want a refusal")
						}
						if d := time.Since(start); d > 3*time.Second {
							t.Errorf("refused after %v, want at once", d)
						}
					})
				}
				// Others are served meanwhile.
				ids, err := l.fetch(l.addr, good, 5)
				if err == nil {
					err = increasing(ids)
				}
				if err != nil {
					t.Errorf("a good client: %v", err)
				}
				wg.Wait()
				// The server may count a connection after its client gave up.
				for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
					got := counterValue(t, tc.srv.reg, "floe_tls_errors_total", "proto", l.name, "reason", tc.reason)
					if got >= conns {
						break
					}
					if time.Now().After(deadline) {
						t.Errorf("floe_tls_errors_total{proto=%s,reason=%s} = %v, want %d or more", l.name, tc.reason, got, conns)
						break
					}
				}
			})
		}
		if n := tc.srv.log.count(tc.message); n < 1 || n > 3 {
			t.Errorf("%s: %d lines %q, want 1 per listener within 5 s", tc.name, n, tc.message)
		}
	}
}

// counterValue returns the value of the series of name with labels kv.
func counterValue(t *testing.T, reg *prometheus.Registry, name string, kv ...string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for i := 0; i < len(kv); i += 2 {
				if labels[kv[i]] != kv[i+1] {
					continue series
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

// A connection made before a reload keeps working; new ones get the new
// certificate; a reload that fails keeps it.
func TestServer_TLSReload(t *testing.T) {
	ts := newTLSServer(t, false, false)
	serial := func(nc net.Conn) string {
		return nc.(*tls.Conn).ConnectionState().PeerCertificates[0].SerialNumber.String()
	}
	old, err := dialMaybeTLS(ts.bin, ts.client)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if _, err := askIDs(old, 1); err != nil {
		t.Fatal(err)
	}
	next := ts.ca.Issue(t, "renewed")
	copyPair(t, next, ts.cert, ts.key)
	if err := ts.watcher.Reload(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(ts.key, []byte("garbage"), 0o600)
	if err := ts.watcher.Reload(); err == nil {
		t.Fatal("a reload of a garbage key: no error")
	}
	for _, l := range ts.listeners() {
		if _, err := l.fetch(l.addr, ts.client, 3); err != nil {
			t.Errorf("%s after the reloads: %v", l.name, err)
		}
	}
	fresh, err := dialMaybeTLS(ts.bin, ts.client)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if got, want := serial(fresh), next.Cert.Leaf.SerialNumber.String(); got != want {
		t.Errorf("a new connection sees serial %s, want the renewed %s", got, want)
	}
	if got := serial(old); got == serial(fresh) {
		t.Errorf("the old connection's serial changed")
	}
	if _, err := askIDs(old, 5); err != nil {
		t.Errorf("the connection made before the reload: %v", err)
	}
	if _, err := io.ReadAll(io.LimitReader(fresh, 0)); err != nil {
		t.Error(err)
	}
}
