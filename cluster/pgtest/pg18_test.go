package pgtest

import (
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/internal/skiptest"
)

func TestStart18_UUIDv7(t *testing.T) {
	s := Start18(t)
	if got := s.Psql(t, "SELECT version();"); !strings.HasPrefix(got, "PostgreSQL 18.") {
		t.Errorf("version() = %q, want PostgreSQL 18.x", got)
	}
	num, err := strconv.Atoi(strings.TrimSpace(s.Psql(t, "SHOW server_version_num;")))
	if err != nil || num < 180000 || num >= 190000 {
		t.Errorf("server_version_num %d (%v), want 18xxxx", num, err)
	}
	for _, tc := range []struct{ sql, want string }{
		{"SELECT uuid_extract_version(uuidv7());", "7\n"},
		{"SELECT uuid_extract_version(gen_random_uuid());", "4\n"},
		// The server's own clock, in the same statement: no race with a loaded machine.
		{"SELECT abs(extract(epoch FROM uuid_extract_timestamp(uuidv7()) - clock_timestamp())) < 1;", "t\n"},
		// A UUID of another version has no time to extract.
		{"SELECT uuid_extract_timestamp(gen_random_uuid()) IS NULL;", "t\n"},
		// uuidv7() is monotonic within a backend (RFC 9562 §6.2, method 3).
		{"SELECT bool_and(a < b) FROM (SELECT uuidv7() AS a, uuidv7() AS b FROM generate_series(1, 1000));", "t\n"},
	} {
		if got := s.Psql(t, tc.sql); got != tc.want {
			t.Errorf("%s printed %q, want %q", tc.sql, got, tc.want)
		}
	}
}

// v7 is a UUIDv7 made by hand, as RFC 9562 §5.7 draws it: 48 bits of
// Unix milliseconds, version 7, a 12-bit counter that restarts each
// millisecond (rand_a used as RFC 9562 §6.2 method 1 allows), variant 10,
// 62 random bits.
type v7 struct {
	ms   int64
	text string
}

// v7s returns n increasing UUIDv7s while a fake time moves 0 to 2 ms
// between them, so that they span many milliseconds and counters.
func v7s(n int) []v7 {
	rng := rand.New(rand.NewPCG(22, 18))
	ms := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC).UnixMilli()
	counter := uint64(0)
	out := make([]v7, n)
	for i := range out {
		if step := rng.Int64N(3); step > 0 {
			ms, counter = ms+step, 0
		} else {
			counter++
		}
		var b [16]byte
		binary.BigEndian.PutUint64(b[0:], uint64(ms)<<16|0x7000|counter)
		binary.BigEndian.PutUint64(b[8:], 0x8000_0000_0000_0000|rng.Uint64()>>2)
		h := hex.EncodeToString(b[:])
		out[i] = v7{ms, h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]}
	}
	return out
}

// uuidCount is how many UUIDs go through the driver.
const uuidCount = 5000

// TestDB_UUIDText puts UUIDv7s, as text, into a uuid column through a
// real driver (pgx, through database/sql, with placeholders), as an ID's
// Value does, and reads them back: the same text, version 7, the
// millisecond they carry, and ORDER BY id in the order they were made.
func TestDB_UUIDText(t *testing.T) {
	s := Start18(t)
	db := s.DB(t)
	if _, err := db.Exec("CREATE TABLE u (n int PRIMARY KEY, id uuid NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	want := v7s(uuidCount)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	insert, err := tx.Prepare("INSERT INTO u (n, id) VALUES ($1, $2)")
	if err != nil {
		t.Fatal(err)
	}
	for i, u := range want {
		if _, err := insert.Exec(i, u.text); err != nil {
			t.Fatalf("insert %s: %v", u.text, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	rows, err := db.Query("SELECT n, id, uuid_extract_version(id), uuid_extract_timestamp(id) FROM u ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := 0
	for ; rows.Next(); got++ {
		var n, version int
		var id string
		var ts sql.NullTime // NULL for a UUID of another version
		if err := rows.Scan(&n, &id, &version, &ts); err != nil {
			t.Fatal(err)
		}
		if n != got {
			t.Fatalf("row %d of ORDER BY id is UUID %d (%s), want them in the order made", got, n, id)
		}
		u := want[n]
		if id != u.text || version != 7 || !ts.Valid || !ts.Time.Equal(time.UnixMilli(u.ms)) {
			t.Fatalf("UUID %d: read %s, version %d, time %v; want %s, 7, %v", n, id, version, ts.Time, u.text, time.UnixMilli(u.ms).UTC())
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if got != uuidCount {
		t.Errorf("read %d rows, want %d", got, uuidCount)
	}
}

func TestLookPath18_NoPostgreSQL18(t *testing.T) {
	t.Setenv("FLOE_PG18", t.TempDir())
	skiptest.Check(t, postgresql18, func(tb testing.TB) { lookPath18(tb) }, []skiptest.Case{
		{Name: "skips with a notice", WantSkip: true, WantNotice: "SKIPPING the tests that need PostgreSQL 18", WantMsg: "scripts/pg18 fetches it"},
		{Name: "fails under CI", CI: "true", WantMsg: "scripts/pg18 fetches it"},
	})
}

// TestDir18_Script checks that Dir18 looks where scripts/pg18 puts
// PostgreSQL 18.
func TestDir18_Script(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to run scripts/pg18")
	}
	script, err := filepath.Abs("../../scripts/pg18")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, pg18, xdg, home string }{
		{"FLOE_PG18 first", "/opt/pg18", "/xdg", "/home/dev"},
		{"then XDG_CACHE_HOME", "", "/xdg", "/home/dev"},
		{"then root's or the home's cache", "", "", "/home/dev"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("FLOE_PG18", tc.pg18)
			t.Setenv("XDG_CACHE_HOME", tc.xdg)
			t.Setenv("HOME", tc.home)
			out, err := exec.Command("bash", script, "--dir").CombinedOutput()
			if err != nil {
				t.Fatalf("scripts/pg18 --dir: %v\n%s", err, out)
			}
			if got, want := Dir18(), strings.TrimSpace(string(out)); got != want {
				t.Errorf("Dir18() = %q, scripts/pg18 --dir = %q", got, want)
			}
		})
	}
}

// fatal is a testing.TB whose Fatalf ends the call of run, not the test.
type fatal struct {
	testing.TB
	msg string
}

func (f *fatal) Helper() {}

func (f *fatal) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

func (f *fatal) run(call func(testing.TB)) {
	defer func() {
		if p := recover(); p != nil && p != f {
			panic(p)
		}
	}()
	call(f)
}

func TestServer_CheckVersion(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		says    string // what postgres --version prints
		exit    int
		major   int
		wantMsg string // "": no failure
	}{
		{"18 wanted and found", "postgres (PostgreSQL) 18.4", 0, 18, ""},
		{"any version", "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)", 0, 0, ""},
		{"15 where 18 is wanted", "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)", 0, 18, `is not PostgreSQL 18: it says "postgres (PostgreSQL) 15.18`},
		{"no version", "something else", 0, 18, "is not PostgreSQL 18"},
		{"cannot run", "error while loading shared libraries", 127, 18, "--version as the test's user: exit status 127"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			postgres := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			script := fmt.Sprintf("#!/bin/sh\necho '%s'\nexit %d\n", tc.says, tc.exit)
			if err := os.WriteFile(postgres, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			s := &Server{dir: dir, bins: bins{postgres: postgres, major: tc.major}}
			f := &fatal{TB: t}
			f.run(s.checkVersion)
			if tc.wantMsg == "" && f.msg != "" || !strings.Contains(f.msg, tc.wantMsg) {
				t.Errorf("checkVersion failed with %q, want %q", f.msg, tc.wantMsg)
			}
		})
	}
}

// BenchmarkStart measures a start of each server, initdb included, to
// its first answer, and its stop: Debian's PostgreSQL and PostgreSQL 18.
func BenchmarkStart(b *testing.B) {
	for _, bc := range []struct {
		name  string
		start func(testing.TB) *Server
	}{{"debian", Start}, {"pg18", Start18}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				bc.start(b).Stop()
			}
		})
	}
}
