package pgtest

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/internal/skiptest"
)

func TestStart_PsqlStop(t *testing.T) {
	s := Start(t)
	got := s.Psql(t, "CREATE TABLE t (x int); INSERT INTO t VALUES (2), (1); SELECT x, x * 10 FROM t ORDER BY x;")
	if want := "1|10\n2|20\n"; got != want {
		t.Errorf("psql printed %q, want %q", got, want)
	}
	if got := s.Psql(t, "SELECT datlocprovider, daticulocale FROM pg_database WHERE datname = 'postgres';"); got != "i|und\n" {
		t.Errorf("default collation %q, want ICU's und", got)
	}
	if _, err := s.query("SELECT * FROM missing;"); err == nil || !strings.Contains(err.Error(), `relation "missing" does not exist`) {
		t.Errorf("query of a missing table: %v, want psql's error", err)
	}
	s.Stop()
	s.Stop() // does nothing
	if c, err := net.DialTimeout("tcp", s.Addr, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still answers after Stop", s.Addr)
	}
}

func TestLookPath_NoPostgreSQL(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	saved := libDir
	libDir = t.TempDir()
	t.Cleanup(func() { libDir = saved })
	skiptest.Check(t, postgresql, func(tb testing.TB) { lookPath(tb) }, []skiptest.Case{
		{Name: "skips with a notice", WantSkip: true, WantNotice: "SKIPPING the tests that need PostgreSQL", WantMsg: "apt-get install postgresql"},
		{Name: "fails under CI", CI: "true", WantMsg: "apt-get install postgresql"},
	})
}
