// Package redistest starts real redis-server processes for tests, each on a
// free loopback port with its own directory, and stops them when the test
// ends.
package redistest

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floeid/floe/internal/skiptest"
	"github.com/floeid/floe/internal/tcptest"
)

// Server is one redis-server process.
type Server struct {
	Addr string // 127.0.0.1:port
	Dir  string // working directory (dump and AOF files)
	cmd  *exec.Cmd
	done chan struct{}
	args []string
	tls  *TLS // nil: plain TCP
	tb   testing.TB
}

// TLS makes a server speak TLS only: its port is a --tls-port and it has
// no plain one. Its clients must present a certificate that CAFile signed.
type TLS struct {
	CertFile string      // the server's certificate, PEM
	KeyFile  string      // its key, PEM
	CAFile   string      // the CA of the clients' certificates, PEM
	Client   *tls.Config // how the harness itself connects to see the server up
}

// Start runs redis-server on a free loopback port with persistence off and
// args appended (for example "--requirepass", "secret"). Without a
// redis-server binary it skips the test, or fails it when CI is set, since
// CI must install one.
func Start(tb testing.TB, args ...string) *Server {
	tb.Helper()
	return start(tb, nil, args)
}

// StartTLS is Start with TLS on the server's port (and no plain port).
func StartTLS(tb testing.TB, t TLS, args ...string) *Server {
	tb.Helper()
	return start(tb, &t, args)
}

func start(tb testing.TB, t *TLS, args []string) *Server {
	tb.Helper()
	bin := lookPath(tb)
	s := &Server{Dir: tb.TempDir(), args: args, tls: t, tb: tb}
	var lastErr error
	for range 5 { // a freed port can be taken again before redis binds it
		port, err := tcptest.FreePort()
		if err != nil {
			tb.Fatal(err)
		}
		if lastErr = s.start(bin, port); lastErr == nil {
			tb.Cleanup(s.Kill)
			return s
		}
	}
	tb.Fatalf("redis-server did not start: %v", lastErr)
	return nil
}

// Restart kills the server (SIGKILL, as a crash would) unless it is
// stopped already, and starts it again on the same address with the same
// directory and arguments: with AOF on, it loads what it made durable;
// without persistence, it starts empty. It fails the test if the server
// does not answer within 5 s.
func (s *Server) Restart() {
	s.tb.Helper()
	s.Kill()
	bin := lookPath(s.tb)
	_, p, err := net.SplitHostPort(s.Addr)
	if err != nil {
		s.tb.Fatal(err)
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		s.tb.Fatal(err)
	}
	var lastErr error
	for range 10 { // the killed server's port can stay busy a moment
		if lastErr = s.start(bin, port); lastErr == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.tb.Fatalf("redis-server did not restart on %s: %v", s.Addr, lastErr)
}

// redisServer is what lookPath looks for. Tests check how its absence ends
// a test.
var redisServer = &skiptest.Program{Helper: "redistest", Need: "Redis", Install: "redis-server"}

// lookPath returns the path of redis-server, or ends tb without it.
func lookPath(tb testing.TB) string {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		redisServer.Missing(tb, err, fmt.Sprintf("redis-server not found (apt-get install redis-server): %v", err),
			fmt.Sprintf("redis-server not found: %v", err))
	}
	return bin
}

func (s *Server) start(bin string, port int) error {
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	argv := []string{"--port", strconv.Itoa(port)}
	if s.tls != nil {
		argv = []string{
			"--port", "0", "--tls-port", strconv.Itoa(port),
			"--tls-cert-file", s.tls.CertFile, "--tls-key-file", s.tls.KeyFile,
			"--tls-ca-cert-file", s.tls.CAFile,
		}
	}
	argv = append(append(argv,
		"--bind", "127.0.0.1",
		"--dir", s.Dir, "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--logfile", "",
	), s.args...)
	cmd := exec.Command(bin, argv...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	s.cmd, s.done = cmd, done
	go func() { cmd.Wait(); close(done) }()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return fmt.Errorf("redis-server exited: %s", out.String())
		default:
		}
		if s.ping() == nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.Kill()
	return fmt.Errorf("redis-server on %s did not answer within 5s: %s", s.Addr, out.String())
}

// ping sends PING and accepts +PONG or an authentication error (the server
// is up, it just wants a password).
func (s *Server) ping() error {
	var (
		conn net.Conn
		err  error
	)
	d := &net.Dialer{Timeout: time.Second}
	if s.tls != nil {
		conn, err = tls.DialWithDialer(d, "tcp", s.Addr, s.tls.Client)
	} else {
		conn, err = d.Dial("tcp", s.Addr)
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.HasPrefix(line, "+PONG") || strings.HasPrefix(line, "-NOAUTH") {
		return nil
	}
	return fmt.Errorf("unexpected reply %q", line)
}

// Kill stops the server at once (SIGKILL) and waits for it. Killing a
// stopped server does nothing.
func (s *Server) Kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	select {
	case <-s.done:
		return
	default:
	}
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.done
}

// Pause stops the server with SIGSTOP; Resume continues it.
func (s *Server) Pause() { syscall.Kill(-s.cmd.Process.Pid, syscall.SIGSTOP) }

// Resume continues a paused server.
func (s *Server) Resume() { syscall.Kill(-s.cmd.Process.Pid, syscall.SIGCONT) }
