package pgtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/floeid/floe/internal/skiptest"
)

// Start18 is Start with PostgreSQL 18, the first with uuidv7(),
// uuid_extract_version and uuid_extract_timestamp: initdb and postgres
// from Dir18, run with its lib directory as LD_LIBRARY_PATH, and Debian's
// psql (the npm package has none; a psql 15 runs plain SQL against 18).
// Without them it skips the test, or fails it when CI is set, since .ci/run
// fetches them with scripts/pg18.
func Start18(tb testing.TB) *Server {
	tb.Helper()
	return startWith(tb, lookPath18(tb))
}

// postgresql18 is what lookPath18 looks for. Installing npm lets
// scripts/pg18 fetch it.
var postgresql18 = &skiptest.Program{Helper: "pgtest", Need: "PostgreSQL 18", Install: "npm, then run scripts/pg18"}

// Dir18 returns the directory of PostgreSQL 18's bin, lib and share, as
// scripts/pg18 chooses it: $FLOE_PG18, else $XDG_CACHE_HOME/floe/pg18,
// else /var/cache/floe/pg18 for root (the user that runs the server when
// the tests run as root cannot enter /root), else $HOME/.cache/floe/pg18.
func Dir18() string {
	if d := os.Getenv("FLOE_PG18"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "floe", "pg18")
	}
	if os.Geteuid() == 0 {
		return "/var/cache/floe/pg18"
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "floe", "pg18")
}

// lookPath18 finds PostgreSQL 18 in Dir18, and psql as Start18 says.
func lookPath18(tb testing.TB) bins {
	tb.Helper()
	dir := Dir18()
	b := bins{
		initdb:   filepath.Join(dir, "bin", "initdb"),
		postgres: filepath.Join(dir, "bin", "postgres"),
		lib:      filepath.Join(dir, "lib"),
		major:    18,
	}
	for _, p := range []string{b.initdb, b.postgres} {
		if _, err := os.Stat(p); err != nil {
			err := fmt.Errorf("%w (FLOE_PG18 names the directory)", err)
			postgresql18.Missing(tb, err, fmt.Sprintf("PostgreSQL 18: %v; scripts/pg18 fetches it", err),
				fmt.Sprintf("PostgreSQL 18: %v; scripts/pg18 fetches it", err))
		}
	}
	b.psql = lookDebian(tb, "psql")
	return b
}
