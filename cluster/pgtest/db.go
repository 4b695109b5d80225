package pgtest

import (
	"database/sql"
	"fmt"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the driver "pgx"
)

// DSN returns the URL of the server's database postgres for the
// superuser, without TLS, for a Go driver (pgx, lib/pq).
func (s *Server) DSN() string {
	return fmt.Sprintf("postgres://%s@%s/postgres?sslmode=disable&connect_timeout=10", superuser, s.Addr)
}

// DB opens the server's database postgres through database/sql with the
// pgx driver, a real driver, for tests of what a Go value becomes in a
// column (an ID's Value into a uuid column). It fails tb unless the server
// answers, and closes the pool when the test ends.
func (s *Server) DB(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("pgx", s.DSN())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		tb.Fatalf("pgx: %s: %v", s.Addr, err)
	}
	return db
}
