package tlsfile_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/internal/tlstest"
	"github.com/floeid/floe/tlsfile"
)

// install copies pair's files to the watched paths cert and key.
func install(t *testing.T, pair tlstest.Pair, cert, key string) {
	t.Helper()
	for src, dst := range map[string]string{pair.CertFile: cert, pair.KeyFile: key} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst+".tmp", b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(dst+".tmp", dst); err != nil {
			t.Fatal(err)
		}
	}
}

// serve answers TLS handshakes on a loopback listener with cfg, writing
// "ok" on each connection, until the test ends.
func serve(t *testing.T, cfg *tls.Config) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				tc := tls.Server(c, cfg)
				tc.SetDeadline(time.Now().Add(5 * time.Second))
				if tc.Handshake() == nil {
					tc.Write([]byte("ok"))
				}
			}()
		}
	}()
	return l.Addr().String()
}

// handshake connects to addr with cfg and returns the serial number of the
// server's certificate.
func handshake(addr string, cfg *tls.Config) (string, error) {
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	var b [2]byte
	if _, err := c.Read(b[:]); err != nil {
		return "", err
	}
	return c.ConnectionState().PeerCertificates[0].SerialNumber.String(), nil
}

func TestNew(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	pair := ca.Issue(t, "server")
	other := ca.Issue(t, "other")
	notPEM, missing := tlstest.BadFiles(t)
	tests := []struct {
		name    string
		files   tlsfile.Files
		badFile string // the file the error names; "": no error
	}{
		{"a pair", tlsfile.Files{Cert: pair.CertFile, Key: pair.KeyFile}, ""},
		{"a pair and a client CA", tlsfile.Files{Cert: pair.CertFile, Key: pair.KeyFile, ClientCA: ca.CertFile}, ""},
		{"a missing certificate", tlsfile.Files{Cert: missing, Key: pair.KeyFile}, missing},
		{"a certificate file without PEM", tlsfile.Files{Cert: notPEM, Key: pair.KeyFile}, notPEM},
		{"a missing key", tlsfile.Files{Cert: pair.CertFile, Key: missing}, missing},
		{"a key that is not the certificate's", tlsfile.Files{Cert: pair.CertFile, Key: other.KeyFile}, other.KeyFile},
		{"a key file holding a certificate", tlsfile.Files{Cert: pair.CertFile, Key: pair.CertFile}, pair.CertFile},
		{"a client CA without PEM", tlsfile.Files{Cert: pair.CertFile, Key: pair.KeyFile, ClientCA: notPEM}, notPEM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := tlsfile.New(tt.files, nil)
			if tt.badFile == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if w.NotAfter().Before(time.Now()) {
					t.Errorf("NotAfter %v, want the certificate's, in the future", w.NotAfter())
				}
				return
			}
			fe, ok := errors.AsType[*tlsfile.FileError](err)
			if !ok || fe.Path != tt.badFile || !strings.Contains(err.Error(), tt.badFile) {
				t.Fatalf("New = %v, want a *FileError naming %s", err, tt.badFile)
			}
		})
	}
	if _, err := tlsfile.New(tlsfile.Files{Cert: pair.CertFile}, nil); err == nil {
		t.Error("New without a key: no error")
	}
}

// The handshakes that follow a reload get the new certificate; a reload
// that fails keeps the old one.
func TestWatcher_Reload(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	first, second := ca.Issue(t, "first"), ca.Issue(t, "second")
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	install(t, first, cert, key)
	w, err := tlsfile.New(tlsfile.Files{Cert: cert, Key: key}, nil)
	if err != nil {
		t.Fatal(err)
	}
	addr := serve(t, w.ServerConfig(nil))
	client := ca.ClientConfig(tlstest.Pair{})
	serial := func(p tlstest.Pair) string { return p.Cert.Leaf.SerialNumber.String() }

	steps := []struct {
		name    string
		change  func()
		wantErr bool
		want    tlstest.Pair
	}{
		{"unchanged", func() {}, false, first},
		{"a new pair", func() { install(t, second, cert, key) }, false, second},
		{"a key that does not match", func() {
			b, _ := os.ReadFile(first.KeyFile)
			os.WriteFile(key, b, 0o600)
		}, true, second},
		{"a missing certificate", func() { os.Remove(cert) }, true, second},
		{"the first pair again", func() { install(t, first, cert, key) }, false, first},
	}
	for _, st := range steps {
		st.change()
		err := w.Reload()
		if (err != nil) != st.wantErr {
			t.Errorf("%s: Reload = %v, want an error: %v", st.name, err, st.wantErr)
		}
		if fe, ok := errors.AsType[*tlsfile.FileError](err); err != nil && (!ok || !strings.Contains(fe.Path, dir)) {
			t.Errorf("%s: Reload = %v, want a *FileError naming a watched file", st.name, err)
		}
		got, err := handshake(addr, client)
		if err != nil {
			t.Fatalf("%s: handshake: %v", st.name, err)
		}
		if got != serial(st.want) {
			t.Errorf("%s: served serial %s, want %s", st.name, got, serial(st.want))
		}
	}
	if ok, failed := w.Reloads(); ok != 3 || failed != 2 {
		t.Errorf("Reloads = %d, %d; want 3, 2", ok, failed)
	}
}

// Run reloads files whose size or modification time changed.
func TestWatcher_Run(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	first, second := ca.Issue(t, "first"), ca.Issue(t, "second")
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	install(t, first, cert, key)
	w, err := tlsfile.New(tlsfile.Files{Cert: cert, Key: key}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx, 10*time.Millisecond); close(done) }()
	defer func() { cancel(); <-done }()

	install(t, second, cert, key)
	deadline := time.Now().Add(5 * time.Second)
	for w.Certificate().Leaf.SerialNumber.Cmp(second.Cert.Leaf.SerialNumber) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the new certificate is not served 5 s after its files changed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// With a client CA, a handshake needs a client certificate it signed.
func TestWatcher_ServerConfigMutual(t *testing.T) {
	ca, stranger := tlstest.NewCA(t, "ca"), tlstest.NewCA(t, "stranger")
	pair := ca.Issue(t, "server")
	w, err := tlsfile.New(tlsfile.Files{Cert: pair.CertFile, Key: pair.KeyFile, ClientCA: ca.CertFile}, nil)
	if err != nil {
		t.Fatal(err)
	}
	addr := serve(t, w.ServerConfig(nil))
	tests := []struct {
		name   string
		client tlstest.Pair
		ok     bool
	}{
		{"a certificate of the CA", ca.Issue(t, "client"), true},
		{"no certificate", tlstest.Pair{}, false},
		{"a certificate of another CA", stranger.Issue(t, "client"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ca.ClientConfig(tt.client)
			cfg.MaxVersion = tls.VersionTLS12 // TLS 1.3 reports a refused client certificate only at the first read
			_, err := handshake(addr, cfg)
			if (err == nil) != tt.ok {
				t.Errorf("handshake: %v, want success: %v", err, tt.ok)
			}
		})
	}
}

func TestClientConfig(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	pair := ca.Issue(t, "client")
	notPEM, missing := tlstest.BadFiles(t)
	tests := []struct {
		name     string
		files    tlsfile.ClientFiles
		wantCert bool
		badFile  string
	}{
		{"the system's roots", tlsfile.ClientFiles{}, false, ""},
		{"a CA and a certificate", tlsfile.ClientFiles{CA: ca.CertFile, Cert: pair.CertFile, Key: pair.KeyFile}, true, ""},
		{"a CA file without PEM", tlsfile.ClientFiles{CA: notPEM}, false, notPEM},
		{"a missing CA file", tlsfile.ClientFiles{CA: missing}, false, missing},
		{"a certificate without its key", tlsfile.ClientFiles{Cert: pair.CertFile}, false, pair.CertFile},
		{"a key without its certificate", tlsfile.ClientFiles{Key: pair.KeyFile}, false, pair.KeyFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := tlsfile.ClientConfig(tt.files, "floed")
			if tt.badFile != "" {
				if fe, ok := errors.AsType[*tlsfile.FileError](err); !ok || fe.Path != tt.badFile {
					t.Fatalf("ClientConfig = %v, want a *FileError naming %s", err, tt.badFile)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := len(cfg.Certificates) == 1; got != tt.wantCert || cfg.ServerName != "floed" || cfg.MinVersion != tls.VersionTLS12 {
				t.Errorf("certificate %v, ServerName %q, MinVersion %#x; want %v, floed, TLS 1.2", got, cfg.ServerName, cfg.MinVersion, tt.wantCert)
			}
		})
	}
}
