package bench

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id128"
	gofrs "github.com/gofrs/uuid/v5"
	"github.com/google/uuid"
)

// googleUnixMilli returns the time google/uuid reads in u, a uuid.Time in
// 100 ns units since 1582-10-15, as Unix milliseconds.
func googleUnixMilli(u uuid.UUID) int64 {
	sec, nsec := u.Time().UnixTime()
	return sec*1000 + nsec/1e6
}

// floeUUIDs returns n IDs from id128 generators: half from Next on the real
// clock, half from NextN on a fake clock that crosses many milliseconds and
// fills some of them, with worker IDs at both ends of the range.
func floeUUIDs(t *testing.T, n int) []id128.ID {
	t.Helper()
	ids := make([]id128.ID, 0, n)
	g, err := id128.NewGenerator(id128.Config{Worker: 0xffff})
	if err != nil {
		t.Fatal(err)
	}
	for range n / 2 {
		id, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	clk := floetest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	g, err = id128.NewGenerator(id128.Config{Worker: 0, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	for len(ids) < n {
		batch := min(n-len(ids), 997)
		if ids, err = g.AppendNext(ids, batch); err != nil {
			t.Fatal(err)
		}
		clk.Step(3*time.Millisecond + 217*time.Microsecond)
	}
	return ids
}

// TestUUID_FloeInGoogle reads floe's IDs with google/uuid and gofrs/uuid:
// each parses, is version 7 of the RFC variant, and names the floe ID's
// millisecond; the text and bytes agree.
func TestUUID_FloeInGoogle(t *testing.T) {
	ids := floeUUIDs(t, 100_000)
	for _, id := range ids {
		u, err := uuid.Parse(id.String())
		if err != nil {
			t.Fatalf("google/uuid Parse(%v): %v", id, err)
		}
		if u.Version() != 7 || u.Variant() != uuid.RFC4122 {
			t.Fatalf("%v: google/uuid reads version %d, variant %v", id, u.Version(), u.Variant())
		}
		if u != uuid.UUID(id) || u.String() != id.String() {
			t.Fatalf("%v: google/uuid reads %v", id, u)
		}
		if got, want := googleUnixMilli(u), int64(id.Tick()); got != want {
			t.Fatalf("%v: google/uuid's time %d ms, floe's %d ms", id, got, want)
		}
		g, err := gofrs.FromString(id.String())
		if err != nil || g.Version() != gofrs.V7 || g.Variant() != gofrs.VariantRFC9562 {
			t.Fatalf("gofrs/uuid FromString(%v) = %v (version %d, variant %d), %v", id, g, g.Version(), g.Variant(), err)
		}
		ts, err := gofrs.TimestampFromV7(g)
		if err != nil {
			t.Fatal(err)
		}
		if tm, err := ts.Time(); err != nil || !tm.Equal(id.Time()) {
			t.Fatalf("%v: gofrs/uuid's time %v (%v), floe's %v", id, tm, err, id.Time())
		}
	}
	t.Logf("%d floe IDs read by google/uuid and gofrs/uuid as version 7 of their own millisecond", len(ids))
}

// TestUUID_GoogleInFloe reads google/uuid's and gofrs/uuid's version-7
// UUIDs with id128, in every text form google/uuid writes, and from bytes.
func TestUUID_GoogleInFloe(t *testing.T) {
	const n = 20_000
	for i := range n {
		u, err := uuid.NewV7()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{u.String(), u.URN(), strings.ToUpper(u.String()), "{" + u.String() + "}"} {
			id, err := id128.Parse(s)
			if err != nil {
				t.Fatalf("id128.Parse(%q): %v", s, err)
			}
			if id != id128.ID(u) || int64(id.Tick()) != googleUnixMilli(u) {
				t.Fatalf("%q read as %v, tick %d; google/uuid's time %d ms", s, id, id.Tick(), googleUnixMilli(u))
			}
		}
		if id, err := id128.FromBytes(u[:]); err != nil || id != id128.ID(u) {
			t.Fatalf("FromBytes(%x) = %v, %v", u[:], id, err)
		}
		if i%2 == 0 {
			g, err := gofrs.NewV7()
			if err != nil {
				t.Fatal(err)
			}
			ts, _ := gofrs.TimestampFromV7(g)
			tm, _ := ts.Time()
			if id, err := id128.Parse(g.String()); err != nil || !id.Time().Equal(tm) {
				t.Fatalf("id128.Parse(%v) = %v (time %v), %v; gofrs/uuid's time %v", g, id, id.Time(), err, tm)
			}
		}
	}
	t.Logf("%d google/uuid and %d gofrs/uuid version-7 UUIDs read by id128, with their time", n, n/2)
}

// TestUUID_OtherVersionsRefused gives id128 google/uuid's UUIDs of versions
// 1, 4 and 6: each is refused with an error that names its version.
func TestUUID_OtherVersionsRefused(t *testing.T) {
	makers := []struct {
		version int
		make    func() (uuid.UUID, error)
	}{
		{1, uuid.NewUUID},
		{4, uuid.NewRandom},
		{6, uuid.NewV6},
	}
	count := 0
	for _, m := range makers {
		for range 1000 {
			u, err := m.make()
			if err != nil {
				t.Fatal(err)
			}
			_, err = id128.Parse(u.String())
			var ve *id128.VersionError
			if !errors.As(err, &ve) || ve.Version != m.version || !errors.Is(err, floe.ErrOutOfRange) {
				t.Fatalf("id128.Parse(%v), version %d: %v", u, m.version, err)
			}
			want := `floe: cannot parse "` + u.String() + `" as id128: UUID version ` + string(rune('0'+m.version)) + ", want version 7, variant 10 (RFC 9562)"
			if err.Error() != want {
				t.Fatalf("error %q, want %q", err, want)
			}
			if _, err := id128.FromBytes(u[:]); !errors.Is(err, id128.ErrVersion) {
				t.Fatalf("FromBytes(%v): %v", u, err)
			}
			count++
		}
	}
	t.Logf("%d google/uuid UUIDs of versions 1, 4 and 6 refused by name", count)
}
