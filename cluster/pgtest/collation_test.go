package pgtest_test

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/pgtest"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
)

// idCount is how many increasing IDs of each format go into the table.
const idCount = 20000

// ids returns idCount increasing IDs of a format as text and bytes, made by
// next while a fake clock moves 0 to 2 ms between IDs, so that they span
// many ticks and many sequence numbers.
func ids(t *testing.T, next func(clock *floetest.Clock) (text string, raw []byte, err error)) (texts []string, raws [][]byte) {
	t.Helper()
	clock := floetest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	rng := rand.New(rand.NewPCG(21, 15))
	for range idCount {
		clock.Step(time.Duration(rng.Int64N(int64(2 * time.Millisecond))))
		text, raw, err := next(clock)
		if err != nil {
			t.Fatal(err)
		}
		texts, raws = append(texts, text), append(raws, raw)
	}
	return texts, raws
}

// TestTextOrder loads increasing IDs of each format into a real
// PostgreSQL and checks which orderings keep them in ID order. Text
// ordered under the "C" collation, declared on the column or in ORDER BY,
// and the bytes in a bytea column are in ID order for every format: the
// alphabets are in ASCII order. Under ICU's collations, the default of
// many servers, id96's text is not ("." and "_" are ignored at first and
// case is secondary), and neither is id80's under a locale where "aa" is
// a letter of its own (Danish); id64's digits sort alike under all of
// them. The package docs and docs/formats.md say so, and this test backs them.
func TestTextOrder(t *testing.T) {
	s := pgtest.Start(t)
	formats := []struct {
		name     string
		gen      func(t *testing.T) ([]string, [][]byte)
		misorder []string // orderings that move IDs; every other one keeps ID order
	}{
		{"id96", gen96, []string{`txt`, `txt COLLATE "und-x-icu"`, `txt COLLATE "en-x-icu"`, `txt COLLATE "da-x-icu"`}},
		{"id80", gen80, []string{`txt COLLATE "da-x-icu"`}},
		{"id64", gen64, nil},
	}
	orderings := []string{
		`c`,                       // a column declared COLLATE "C"
		`txt COLLATE "C"`,         // "C" in ORDER BY
		`b`,                       // bytea of Bytes()
		`txt`,                     // the database's default: ICU's root locale
		`txt COLLATE "und-x-icu"`, // ICU's root locale
		`txt COLLATE "en-x-icu"`,
		`txt COLLATE "da-x-icu"`, // "aa" sorts as "å", after "z"
	}
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			texts, raws := f.gen(t)
			var b strings.Builder
			b.WriteString("DROP TABLE IF EXISTS ids;\n" +
				"CREATE TABLE ids (pos int, txt text, c text COLLATE \"C\", b bytea);\n" +
				"COPY ids (pos, txt, c, b) FROM STDIN;\n")
			// Rows go in shuffled, so that no order comes from the table.
			for _, i := range rand.New(rand.NewPCG(1, 2)).Perm(len(texts)) {
				fmt.Fprintf(&b, "%d\t%s\t%s\t\\\\x%s\n", i, texts[i], texts[i], hex.EncodeToString(raws[i]))
			}
			b.WriteString("\\.\n")
			s.Psql(t, b.String())
			for _, o := range orderings {
				// pos is the rank of the ID; r its rank in the ordering.
				out := s.Psql(t, "SELECT count(*) FILTER (WHERE pos <> r) FROM "+
					"(SELECT pos, row_number() OVER (ORDER BY "+o+") - 1 AS r FROM ids) x;")
				moved, err := strconv.Atoi(strings.TrimSpace(out))
				if err != nil {
					t.Fatalf("ORDER BY %s: psql printed %q", o, out)
				}
				if slices.Contains(f.misorder, o) {
					if moved == 0 {
						t.Errorf("ORDER BY %s: all %d IDs in ID order, want some moved (the docs say this collation breaks the order)", o, len(texts))
					}
					t.Logf("ORDER BY %s: %d of %d IDs moved", o, moved, len(texts))
					continue
				}
				if moved != 0 {
					t.Errorf("ORDER BY %s: %d of %d IDs moved, want none", o, moved, len(texts))
				}
			}
		})
	}
}

func gen96(t *testing.T) ([]string, [][]byte) {
	var g *id96.Generator
	return ids(t, func(c *floetest.Clock) (string, []byte, error) {
		if g == nil {
			var err error
			if g, err = id96.NewGenerator(id96.Config{Node: 0xcafe, Clock: c}); err != nil {
				return "", nil, err
			}
		}
		id, err := g.Next()
		return id.String(), id.Bytes(), err
	})
}

func gen80(t *testing.T) ([]string, [][]byte) {
	var g *id80.Generator
	return ids(t, func(c *floetest.Clock) (string, []byte, error) {
		if g == nil {
			var err error
			if g, err = id80.NewGenerator(id80.Config{Partition: id80.Partition{0x41, 0x0a}, Clock: c}); err != nil {
				return "", nil, err
			}
		}
		id, err := g.New(1)
		return id.String(), id.Bytes(), err
	})
}

func gen64(t *testing.T) ([]string, [][]byte) {
	var g *id64.Generator
	return ids(t, func(c *floetest.Clock) (string, []byte, error) {
		if g == nil {
			var err error
			if g, err = id64.NewGenerator(id64.Config{Worker: 3, Clock: c}); err != nil {
				return "", nil, err
			}
		}
		id, err := g.Next()
		return id.String(), id.Bytes(), err
	})
}

// TestTextOrder_Documented: where docs/formats.md and the packages promise that
// text sorts in ID order, they name the collation that TestTextOrder shows
// it takes.
func TestTextOrder_Documented(t *testing.T) {
	for _, path := range []string{"../../docs/formats.md", "../../id96/doc.go", "../../id80/doc.go"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`COLLATE "C"`, "bytea"} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s does not mention %s", path, want)
			}
		}
	}
}
