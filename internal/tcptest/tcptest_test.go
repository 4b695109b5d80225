package tcptest

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/floeid/floe/internal/tlstest"
)

// A silent server takes the connection, reads what the client writes and
// never answers; when the test ends, it closes the connection.
func TestSilent(t *testing.T) {
	var addr string
	var c net.Conn
	t.Run("server", func(t *testing.T) {
		addr = Silent(t)
		var err error
		if c, err = net.Dial("tcp", addr); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write([]byte("PING\r\n")); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		if n, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("read %d bytes, err %v; want no answer", n, err)
		}
	})
	defer c.Close()
	// The subtest has ended: its server has closed the connection.
	c.SetReadDeadline(time.Now().Add(time.Minute))
	if n, err := c.Read(make([]byte, 1)); err != io.EOF && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("after the test: read %d bytes, err %v; want the connection closed", n, err)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("%s still takes connections after the test", addr)
	}
}

// Serve hands each connection, TLS or not, to the handler; Answer's
// handler answers the client's first bytes.
func TestServe_Answer(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	tests := []struct {
		name   string
		server *tls.Config
		client *tls.Config // nil: plain TCP
	}{
		{name: "plain"},
		{name: "tls", server: &tls.Config{Certificates: []tls.Certificate{ca.Issue(t, "server").Cert}}, client: ca.ClientConfig(tlstest.Pair{})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := Serve(t, tt.server, Answer("hello"))
			var c net.Conn
			var err error
			if tt.client != nil {
				c, err = tls.Dial("tcp", addr, tt.client)
			} else {
				c, err = net.Dial("tcp", addr)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Write([]byte("PING\r\n")); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, 5)
			if _, err := io.ReadFull(c, got); err != nil || string(got) != "hello" {
				t.Errorf("read %q, %v; want %q", got, err, "hello")
			}
		})
	}
}

// Nothing listens on the address Refused returns.
func TestRefused(t *testing.T) {
	addr, err := Refused()
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", addr)
	if err == nil {
		c.Close()
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial %s: %v, want connection refused", addr, err)
	}
}

// A server can listen on the port FreePort returns.
func TestFreePort(t *testing.T) {
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("listen on the free port %d: %v", port, err)
	}
	l.Close()
}
