// Package pgtest starts real PostgreSQL servers for tests, each on a free
// loopback port with its own data directory, and stops them when the test
// ends. Tests talk to them through psql, or through database/sql with the
// pgx driver (DB), for what only a real driver shows: how a Go value goes
// into a column.
//
// Start runs the PostgreSQL that Debian ships (15 here). Start18 runs
// PostgreSQL 18, the first with uuidv7(), uuid_extract_version and
// uuid_extract_timestamp, from the binaries that scripts/pg18 fetches once
// into a cache directory outside the checkout (FLOE_PG18 names it; .ci/run
// runs the script). A developer gets the same with:
//
//	scripts/pg18
//
// PostgreSQL refuses to run as root, and CI runs as root: a test running as
// root starts initdb and postgres as the user postgres (which Debian's
// postgresql package creates), or nobody, on a data directory it owns.
package pgtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floeid/floe/internal/skiptest"
	"github.com/floeid/floe/internal/tcptest"
)

// superuser is the role initdb makes, which every connection uses. The
// server trusts every connection: it listens on 127.0.0.1 only.
const superuser = "floe"

// Timeouts, generous for a loaded machine: initdb alone takes seconds.
const (
	readyTimeout = 60 * time.Second // from the start of postgres to its first answer
	stopTimeout  = 30 * time.Second // from SIGINT (fast shutdown) to the end of postgres
)

// Server is one postgres process and its data directory.
type Server struct {
	Addr string // 127.0.0.1:port
	Port int
	dir  string // base directory: data, log
	bins bins
	cred *syscall.Credential // nil: run as the test's user
	cmd  *exec.Cmd
	done chan struct{}
}

// bins are the PostgreSQL programs.
type bins struct {
	initdb, postgres, psql string
	lib                    string // LD_LIBRARY_PATH for initdb and postgres; "": the system's
	major                  int    // the major version postgres must have; 0: any
}

// Start runs initdb and postgres on a free loopback port and waits until
// the server answers. The database cluster has UTF-8 encoding and ICU's
// root locale ("und") as its default collation, as many servers made with
// ICU have; the ICU collations (und-x-icu, en-x-icu, ...) and "C" are
// there too. Without PostgreSQL (initdb, postgres and psql; Debian: apt-get
// install postgresql) it skips the test, or fails it when CI is set, since
// CI must install it. The server stops when the test ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	return startWith(tb, lookPath(tb))
}

// startWith runs the programs b as Start says.
func startWith(tb testing.TB, b bins) *Server {
	tb.Helper()
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	s := &Server{dir: dir, bins: b}
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		tb.Fatal(err)
	}
	if os.Geteuid() == 0 {
		s.cred = unprivileged(tb)
		// The user must reach its data directory through dir.
		if err := os.Chmod(dir, 0o711); err != nil {
			tb.Fatal(err)
		}
		if err := os.Chown(data, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			tb.Fatal(err)
		}
	}
	s.checkVersion(tb)
	initdb := s.command(b.initdb, "-D", data, "-U", superuser, "-A", "trust", "-E", "UTF8",
		"--locale=C", "--locale-provider=icu", "--icu-locale=und", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		tb.Fatalf("initdb: %v\n%s", err, out)
	}
	var lastErr error
	for range 5 { // a freed port can be taken again before postgres binds it
		port, err := tcptest.FreePort()
		if err != nil {
			tb.Fatal(err)
		}
		if lastErr = s.start(port); lastErr == nil {
			tb.Cleanup(s.Stop)
			return s
		}
	}
	tb.Fatalf("postgres did not start: %v", lastErr)
	return nil
}

// command returns a command that runs as the server's user, in its own
// process group, in dir, with no PG* variable of the test's environment,
// and with the bins' lib as LD_LIBRARY_PATH when they have one.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = s.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: s.cred}
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "PG") || s.bins.lib != "" && strings.HasPrefix(kv, "LD_LIBRARY_PATH=")
	})
	if s.bins.lib != "" {
		cmd.Env = append(cmd.Env, "LD_LIBRARY_PATH="+s.bins.lib)
	}
	return cmd
}

// checkVersion runs "postgres --version" as the server's user, which
// shows that the user can reach and run the binaries, and fails tb unless
// the major version is the one wanted.
func (s *Server) checkVersion(tb testing.TB) {
	tb.Helper()
	out, err := s.command(s.bins.postgres, "--version").CombinedOutput()
	if err != nil {
		who := "the test's user"
		if s.cred != nil {
			who = fmt.Sprintf("uid %d (the user the server runs as, since the test runs as root; every directory above it must be open to others: chmod o+x)", s.cred.Uid)
		}
		tb.Fatalf("%s --version as %s: %v\n%s", s.bins.postgres, who, err, out)
	}
	if s.bins.major == 0 {
		return
	}
	// "postgres (PostgreSQL) 18.4", "postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)"
	_, v, _ := strings.Cut(string(out), "(PostgreSQL) ")
	if major, _, _ := strings.Cut(v, "."); major != strconv.Itoa(s.bins.major) {
		tb.Fatalf("%s is not PostgreSQL %d: it says %q", s.bins.postgres, s.bins.major, strings.TrimSpace(string(out)))
	}
}

func (s *Server) start(port int) error {
	s.Port = port
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	logFile, err := os.Create(filepath.Join(s.dir, "log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd := s.command(s.bins.postgres, "-D", filepath.Join(s.dir, "data"), "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-F")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	s.cmd, s.done = cmd, done
	go func() { cmd.Wait(); close(done) }()
	deadline := time.Now().Add(readyTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return fmt.Errorf("postgres exited: %s", s.log())
		default:
		}
		if _, err := s.query("SELECT 1"); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.Stop()
	return fmt.Errorf("postgres on %s did not answer within %v: %s", s.Addr, readyTimeout, s.log())
}

// log returns the server's output so far.
func (s *Server) log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "log"))
	return string(b)
}

// Psql runs sql, one or more statements, with psql on the database
// postgres and returns what it prints: unaligned, tuples only, a line per
// row with columns separated by "|". The first failing statement fails
// the test, with psql's message.
func (s *Server) Psql(tb testing.TB, sql string) string {
	tb.Helper()
	out, err := s.query(sql)
	if err != nil {
		tb.Fatalf("psql: %v", err)
	}
	return out
}

// query runs sql through psql and returns its output.
func (s *Server) query(sql string) (string, error) {
	cmd := exec.Command(s.bins.psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
		"-h", "127.0.0.1", "-p", strconv.Itoa(s.Port), "-U", superuser, "-d", "postgres", "-f", "-")
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "PG") }),
		"PGCONNECT_TIMEOUT=10")
	cmd.Stdin = strings.NewReader(sql)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// Stop stops the server with a fast shutdown (SIGINT), or SIGKILL to its
// process group if it has not ended within 30 s, and waits for it.
// Stopping a stopped server does nothing.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(stopTimeout):
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}

// libDir is where Debian installs each major version of PostgreSQL, in
// VERSION/bin. Tests replace it.
var libDir = "/usr/lib/postgresql"

// postgresql is what lookPath looks for. Tests check how its absence
// ends a test.
var postgresql = &skiptest.Program{Helper: "pgtest", Need: "PostgreSQL", Install: "postgresql"}

// lookPath finds initdb, postgres and psql as lookDebian does.
func lookPath(tb testing.TB) bins {
	tb.Helper()
	return bins{initdb: lookDebian(tb, "initdb"), postgres: lookDebian(tb, "postgres"), psql: lookDebian(tb, "psql")}
}

// lookDebian finds a PostgreSQL program: in PATH, else in the newest
// libDir/VERSION/bin, where Debian installs initdb and postgres. Without
// it, it ends tb as postgresql.Missing does.
func lookDebian(tb testing.TB, name string) string {
	tb.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	dirs, _ := filepath.Glob(filepath.Join(libDir, "*", "bin"))
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	err := fmt.Errorf("%s not found in PATH or %s", name, filepath.Join(libDir, "*", "bin"))
	postgresql.Missing(tb, err, fmt.Sprintf("PostgreSQL: %v (apt-get install postgresql)", err),
		fmt.Sprintf("PostgreSQL: %v (Debian: apt-get install postgresql)", err))
	return ""
}

// version is the major version in a path /usr/lib/postgresql/VERSION/bin,
// 0 if none.
func version(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

// unprivileged returns the credential of the user postgres, or nobody,
// for running PostgreSQL when the test runs as root.
func unprivileged(tb testing.TB) *syscall.Credential {
	tb.Helper()
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil {
			continue
		}
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
	}
	tb.Fatal("running as root, and neither the user postgres nor nobody exists to run PostgreSQL as")
	return nil
}
