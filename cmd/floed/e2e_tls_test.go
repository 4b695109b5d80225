package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/floev1"
	"github.com/floeid/floe/internal/tlstest"
	"github.com/floeid/floe/internal/wire"
)

// tlsFloed is a floed serving TLS with a certificate whose files the test
// may replace, requiring client certificates of ca.
type tlsFloed struct {
	*floed
	grpc      string
	ca        *tlstest.CA
	client    tlstest.Pair // a client certificate of ca
	cert, key string       // the files floed watches
}

func startTLSFloed(t *testing.T) *tlsFloed {
	t.Helper()
	ca := tlstest.NewCA(t, "ca")
	dir := t.TempDir()
	tf := &tlsFloed{ca: ca, client: ca.Issue(t, "client"), cert: filepath.Join(dir, "tls.crt"), key: filepath.Join(dir, "tls.key")}
	tf.install(t, ca.Issue(t, "floed"))
	tf.grpc = floetest.FreeAddrs(t, 1)[0]
	tf.floed = startFloed(t, "--tls-cert", tf.cert, "--tls-key", tf.key, "--tls-client-ca", ca.CertFile,
		"--tls-reload-interval", "50ms", "--grpc", tf.grpc)
	return tf
}

// install replaces the watched files with pair's, each by a rename.
func (tf *tlsFloed) install(t *testing.T, pair tlstest.Pair) {
	t.Helper()
	for src, dst := range map[string]string{pair.CertFile: tf.cert, pair.KeyFile: tf.key} {
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

// dial opens a binary connection over TLS with a client certificate.
func (tf *tlsFloed) dial(t *testing.T) *tls.Conn {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", tf.Bin, tf.ca.ClientConfig(tf.client))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func serial(c *tls.Conn) string {
	return c.ConnectionState().PeerCertificates[0].SerialNumber.String()
}

func ask(t *testing.T, c net.Conn, n int) []uint64 {
	t.Helper()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte{byte(n)}); err != nil {
		t.Fatal(err)
	}
	ids := make([]uint64, n)
	if _, err := wire.ReadIDs(c, ids, nil); err != nil {
		t.Fatal(err)
	}
	return ids
}

// httpsGet fetches path over HTTPS with a client certificate.
func (tf *tlsFloed) httpsGet(t *testing.T, path string) string {
	t.Helper()
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: tf.ca.ClientConfig(tf.client), DisableKeepAlives: true}}
	resp, err := hc.Get("https://" + tf.HTTP + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s %v", path, resp.StatusCode, b, err)
	}
	return string(b)
}

// TestE2E_TLS runs floed with TLS and mutual TLS: the three listeners
// and the CLI serve and fetch IDs, which increase; clients without a
// certificate and plaintext clients are refused at once; a reload on
// SIGHUP and one on a file change keep a connection made before them and
// serve the new certificate to new ones; a reload that fails keeps the
// certificate.
func TestE2E_TLS(t *testing.T) {
	tf := startTLSFloed(t)
	floe := floeBinary(t)
	tlsArgs := []string{"-tls-ca", tf.ca.CertFile, "-tls-cert", tf.client.CertFile, "-tls-key", tf.client.KeyFile}

	var last uint64
	next := func(name string, ids []uint64) {
		t.Helper()
		for _, id := range ids {
			if id <= last {
				t.Fatalf("%s: ID %d after %d", name, id, last)
			}
			last = id
		}
	}
	// The binary protocol, the CLI, HTTP and gRPC, turn by turn.
	long := tf.dial(t)
	next("binary", ask(t, long, 5))
	out, err := exec.Command(floe, append([]string{"get", "-n", "5", "-addr", tf.Bin}, tlsArgs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("floe get over TLS: %v\n%s", err, out)
	}
	var ids []uint64
	for _, f := range strings.Fields(string(out)) {
		id, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			t.Fatalf("floe get printed %q", out)
		}
		ids = append(ids, id)
	}
	next("floe get", ids)
	var body struct{ IDs []string }
	if err := json.Unmarshal([]byte(tf.httpsGet(t, "/v1/ids?n=3")), &body); err != nil || len(body.IDs) != 3 {
		t.Fatalf("GET /v1/ids over HTTPS: %v %v", body, err)
	}
	for _, s := range body.IDs {
		id, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		next("https", []uint64{id})
	}
	cc, err := grpc.NewClient(tf.grpc, grpc.WithTransportCredentials(credentials.NewTLS(tf.ca.ClientConfig(tf.client))))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := floev1.NewIDsClient(cc).Next(ctx, &floev1.NextRequest{Count: 4})
	if err != nil {
		t.Fatal(err)
	}
	next("grpc", resp.GetIds64())

	// floe bench over TLS, binary and HTTPS; floe seq reaches the admin
	// API over HTTPS (closed without an admin token).
	for _, args := range [][]string{
		{"bench", "-addr", tf.Bin, "-c", "2", "-b", "10", "-d", "0", "-n", "200"},
		{"bench", "-http", tf.HTTP, "-b", "10", "-d", "0", "-n", "50"},
	} {
		if out, err := exec.Command(floe, append(args, tlsArgs...)...).CombinedOutput(); err != nil || !strings.Contains(string(out), " 0 duplicates, 0 order violations") {
			t.Errorf("floe %v: %v\n%s", args, err, out)
		}
	}
	out, _ = exec.Command(floe, append([]string{"seq", "list", "-addr", tf.HTTP}, tlsArgs...)...).CombinedOutput()
	if !strings.Contains(string(out), "the admin API is closed") {
		t.Errorf("floe seq list over HTTPS: %s, want floed's refusal of a closed admin API", out)
	}

	// Refused: the CLI without a client certificate, and a plaintext client.
	start := time.Now()
	if out, err := exec.Command(floe, "get", "-addr", tf.Bin, "-timeout", "20s", "-tls-ca", tf.ca.CertFile).CombinedOutput(); err == nil {
		t.Errorf("floe get without a client certificate: %s, want a failure", out)
	}
	plain, err := net.DialTimeout("tcp", tf.Bin, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	plain.SetDeadline(time.Now().Add(10 * time.Second))
	plain.Write([]byte{1})
	if n, err := bufio.NewReader(plain).Read(make([]byte, 8)); err == nil {
		t.Errorf("a plaintext client read %d bytes, want the connection closed", n)
	}
	plain.Close()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the refusals took %v, want them at once", d)
	}

	// SIGHUP: a renewed certificate for new connections, the long one kept.
	renewed := tf.ca.Issue(t, "renewed")
	tf.install(t, renewed)
	if err := tf.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	want := renewed.Cert.Leaf.SerialNumber.String()
	waitServed := func(what, want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			c := tf.dial(t)
			got := serial(c)
			c.Close()
			if got == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: new connections see serial %s, want %s", what, got, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitServed("after SIGHUP", want)
	next("the connection made before the reload", ask(t, long, 3))

	// A reload that fails keeps the certificate and names the file.
	if err := os.WriteFile(tf.key, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	tf.cmd.Process.Signal(syscall.SIGHUP)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(tf.stderr.String(), "TLS reload failed") {
		if time.Now().After(deadline) {
			t.Fatalf("no log line of the failed reload:\n%s", tf.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(tf.stderr.String(), tf.key) {
		t.Errorf("the failed reload's log does not name %s:\n%s", tf.key, tf.stderr.String())
	}
	if c := tf.dial(t); serial(c) != want {
		t.Errorf("after a failed reload new connections see serial %s, want %s still", serial(c), want)
	}

	// A change of the files alone, polled every 50 ms.
	third := tf.ca.Issue(t, "third")
	tf.install(t, third)
	waitServed("after the files changed", third.Cert.Leaf.SerialNumber.String())
	next("the connection made before both reloads", ask(t, long, 3))

	m := tf.httpsGet(t, "/metrics")
	for _, series := range []string{
		`floe_tls_errors_total{proto="noeq",reason="plaintext_on_tls"}`,
		`floe_tls_reloads_total{result="ok"}`,
		`floe_tls_reloads_total{result="error"}`,
		`floe_tls_certificate_expiry_timestamp_seconds`,
	} {
		if !strings.Contains(m, series+" ") {
			t.Errorf("/metrics has no %s", series)
		}
	}
	tf.stop()
}
