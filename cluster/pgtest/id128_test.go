package pgtest

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid/workeridtest"
)

// id128Count is how many IDs the two sequencers issue between them.
const id128Count = 10000

// TestDB_ID128Sequencers puts the IDs of two id128 sequencers, each on a
// worker ID leased from one catalog, into a PostgreSQL 18 uuid column
// through a real driver (pgx through database/sql, placeholders, the ID's
// Value), and reads them back: PostgreSQL's uuid_extract_version is 7 and
// uuid_extract_timestamp the ID's own millisecond for every row, Scan
// gives each ID back, and ORDER BY id lists each sequencer's IDs in the
// order it issued them.
func TestDB_ID128Sequencers(t *testing.T) {
	s := Start18(t)
	db := s.DB(t)
	ctx := context.Background()

	// A fake clock that moves 0 to 2 ms between IDs, so that they span
	// thousands of milliseconds and many counters of one millisecond.
	clock := floetest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	catalog := workeridtest.NewMemCatalog(8)
	var seqs [2]*sequencer.Sequencer
	for g := range seqs {
		sq, err := sequencer.Open(ctx, sequencer.Config{
			Name:       "events",
			Definition: sequencer.Definition{Format: sequencer.Format128},
			Catalog:    catalog,
			Sources:    catalog.Source,
			Clock:      clock,
			Window:     time.Hour, // no wait for the keeper while the clock jumps
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sq.Close(ctx) })
		seqs[g] = sq
	}
	if a, b := seqs[0].Stats().WorkerID, seqs[1].Stats().WorkerID; a == b || a < 0 || b < 0 {
		t.Fatalf("worker IDs %d and %d, want two distinct ones", a, b)
	}

	if _, err := db.Exec("CREATE TABLE ids (gen int NOT NULL, n int NOT NULL, id uuid PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(22, 128))
	var issued [2][]id128.ID
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	insert, err := tx.Prepare("INSERT INTO ids (gen, n, id) VALUES ($1, $2, $3)")
	if err != nil {
		t.Fatal(err)
	}
	for range id128Count {
		if step := rng.IntN(4); step > 1 {
			clock.Step(time.Duration(step-1) * time.Millisecond)
		}
		g := rng.IntN(2)
		id, err := seqs[g].Next128()
		if err != nil {
			t.Fatal(err)
		}
		// The ID itself as the argument: database/sql calls its Value.
		if _, err := insert.Exec(g, len(issued[g]), id); err != nil {
			t.Fatalf("insert %s: %v", id, err)
		}
		issued[g] = append(issued[g], id)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	rows, err := db.Query("SELECT gen, n, id, uuid_extract_version(id), extract(epoch FROM uuid_extract_timestamp(id)) * 1000 FROM ids ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var next [2]int // the n each generator's next row must have
	got, maxCounter := 0, uint32(0)
	for ; rows.Next(); got++ {
		var g, n, version int
		var id id128.ID
		var ms float64
		if err := rows.Scan(&g, &n, &id, &version, &ms); err != nil {
			t.Fatal(err)
		}
		if g < 0 || g > 1 || n != next[g] {
			t.Fatalf("row %d of ORDER BY id is ID %d of generator %d, want ID %d: each generator's IDs in the order issued", got, n, g, next[g])
		}
		next[g]++
		want := issued[g][n]
		if id != want {
			t.Fatalf("row %d: Scan gave %s, want %s", got, id, want)
		}
		if version != 7 {
			t.Fatalf("row %d: uuid_extract_version(%s) = %d, want 7", got, id, version)
		}
		if int64(ms) != want.Time().UnixMilli() || float64(int64(ms)) != ms {
			t.Fatalf("row %d: uuid_extract_timestamp(%s) = %v ms, want the ID's millisecond %d (%v)", got, id, ms, want.Time().UnixMilli(), want.Time())
		}
		maxCounter = max(maxCounter, id.Counter())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if got != id128Count || next[0]+next[1] != id128Count {
		t.Errorf("read %d rows (%d and %d per generator), want %d", got, next[0], next[1], id128Count)
	}
	if maxCounter == 0 {
		t.Errorf("every ID was the first of its millisecond: the test never reached a counter above 0")
	}
	t.Logf("%d IDs of workers %d and %d (%d and %d), counters up to %d, up to %v", got,
		issued[0][0].Worker(), issued[1][0].Worker(), next[0], next[1], maxCounter, clock.Now())
}
