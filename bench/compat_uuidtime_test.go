package bench

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/floeid/floe/id128"
	gofrs "github.com/gofrs/uuid/v5"
	"github.com/google/uuid"
)

// timeN is how many UUIDs of each kind the time checks read.
const timeN = 5000

// googleTime returns the time google/uuid reads in u, to its 100 ns.
func googleTime(u uuid.UUID) time.Time {
	sec, nsec := u.Time().UnixTime()
	return time.Unix(sec, nsec).UTC()
}

// gofrsTime returns the time gofrs/uuid reads in u, a UUID of version 1, 6
// or 7.
func gofrsTime(t *testing.T, u gofrs.UUID) time.Time {
	t.Helper()
	var ts gofrs.Timestamp
	var err error
	switch u.Version() {
	case 1:
		ts, err = gofrs.TimestampFromV1(u)
	case 6:
		ts, err = gofrs.TimestampFromV6(u)
	case 7:
		ts, err = gofrs.TimestampFromV7(u)
	}
	if err != nil {
		t.Fatal(err)
	}
	tm, err := ts.Time()
	if err != nil {
		t.Fatal(err)
	}
	return tm.UTC()
}

// readUUID reads s with id128.ParseUUID and fails unless it is of version
// and RFC 9562's variant.
func readUUID(t *testing.T, s string, version int) id128.UUID {
	t.Helper()
	u, err := id128.ParseUUID(s)
	if err != nil {
		t.Fatalf("ParseUUID(%q): %v", s, err)
	}
	if u.Version() != version || u.Variant() != id128.VariantRFC9562 {
		t.Fatalf("%s: version %d, variant %v; want %d, RFC 9562", s, u.Version(), u.Variant(), version)
	}
	return u
}

// checkTime fails unless u keeps the time want, to the step unit.
func checkTime(t *testing.T, u id128.UUID, want time.Time, unit time.Duration, maker string) {
	t.Helper()
	got, ok := u.Time()
	if !ok || !got.Equal(want) || u.TimeUnit() != unit {
		t.Fatalf("%v: floe reads %v (%t) to %v; %s's time %v to %v", u, got, ok, u.TimeUnit(), maker, want, unit)
	}
}

// between fails unless tm lies in [before, after], before cut to step.
func between(t *testing.T, u id128.UUID, tm, before, after time.Time, step time.Duration) {
	t.Helper()
	if tm.Before(before.Truncate(step)) || tm.After(after) {
		t.Fatalf("%v: time %v outside the call's %v..%v", u, tm, before, after)
	}
}

// TestUUIDTime_V1 reads google/uuid's and gofrs/uuid's version-1 UUIDs:
// floe's time is theirs, to the 100 ns, and the time of the call.
func TestUUIDTime_V1(t *testing.T) {
	for range timeN {
		before := time.Now()
		g, err := uuid.NewUUID()
		if err != nil {
			t.Fatal(err)
		}
		f, err := gofrs.NewV1()
		if err != nil {
			t.Fatal(err)
		}
		after := time.Now()
		u := readUUID(t, g.String(), 1)
		checkTime(t, u, googleTime(g), 100*time.Nanosecond, "google/uuid")
		between(t, u, googleTime(g), before, after, 100*time.Nanosecond)
		v := readUUID(t, f.String(), 1)
		checkTime(t, v, gofrsTime(t, f), 100*time.Nanosecond, "gofrs/uuid")
		between(t, v, gofrsTime(t, f), before, after, 100*time.Nanosecond)
	}
	t.Logf("%d google/uuid and %d gofrs/uuid version-1 UUIDs: the same time to the 100 ns", timeN, timeN)
}

// v1ToV6 reorders the time of the version-1 UUID u as RFC 9562 §5.6 does:
// the high 48 of its 60 bits first, then the low 12 after the version.
func v1ToV6(u uuid.UUID) uuid.UUID {
	ts := uint64(binary.BigEndian.Uint16(u[6:8])&0x0fff)<<48 | uint64(binary.BigEndian.Uint16(u[4:6]))<<32 |
		uint64(binary.BigEndian.Uint32(u[0:4]))
	v := u
	binary.BigEndian.PutUint64(v[0:8], ts>>12<<16|6<<12|ts&0x0fff)
	return v
}

// TestUUIDTime_V6 reads version-6 UUIDs: gofrs/uuid's, whose time floe
// reads as gofrs/uuid does; google/uuid's version-1 UUIDs reordered into
// version 6, whose time floe reads as google/uuid's Time gives it for the
// version-1 UUID.
//
// google/uuid v1.6.0's own NewV6 and Time do not follow RFC 9562: they
// write and read the 64-bit count of 100 ns as it is, the version over 4
// of its bits (fixed upstream by google/uuid pull request 161, unreleased;
// issues 199 and 203). So its Time misreads RFC 9562's example, and
// floe, like gofrs/uuid, reads another time in its NewV6's UUIDs; this
// test says so, and stops the day a google/uuid release reads RFC 9562's
// example right.
func TestUUIDTime_V6(t *testing.T) {
	for range timeN {
		before := time.Now()
		f, err := gofrs.NewV6()
		if err != nil {
			t.Fatal(err)
		}
		g, err := uuid.NewUUID()
		if err != nil {
			t.Fatal(err)
		}
		after := time.Now()
		u := readUUID(t, f.String(), 6)
		checkTime(t, u, gofrsTime(t, f), 100*time.Nanosecond, "gofrs/uuid")
		between(t, u, gofrsTime(t, f), before, after, 100*time.Nanosecond)
		v := readUUID(t, v1ToV6(g).String(), 6)
		checkTime(t, v, googleTime(g), 100*time.Nanosecond, "google/uuid (version 1)")
	}

	// RFC 9562's example of version 6, 2022-02-22T19:22:22Z.
	rfc := uuid.MustParse("1EC9414C-232A-6B00-B3C8-9F6BDECED846")
	want := time.Date(2022, 2, 22, 19, 22, 22, 0, time.UTC)
	checkTime(t, readUUID(t, rfc.String(), 6), want, 100*time.Nanosecond, "RFC 9562")
	if googleTime(rfc).Equal(want) {
		t.Fatalf("google/uuid now reads RFC 9562's version-6 example right: compare its NewV6 with its Time here directly")
	}
	misread := 0
	for range timeN {
		g, err := uuid.NewV6()
		if err != nil {
			t.Fatal(err)
		}
		u := readUUID(t, g.String(), 6)
		got, _ := u.Time()
		if want := gofrsTime(t, gofrs.UUID(g)); !got.Equal(want) {
			t.Fatalf("%v: floe reads %v, gofrs/uuid %v", g, got, want)
		}
		if !got.Equal(googleTime(g)) {
			misread++
		}
	}
	if misread != timeN {
		t.Fatalf("google/uuid's Time agrees with RFC 9562's layout on %d of its %d NewV6 UUIDs", timeN-misread, timeN)
	}
	t.Logf("%d gofrs/uuid version-6 UUIDs and %d google/uuid version-1 UUIDs reordered: the same time to the 100 ns; "+
		"google/uuid v1.6.0's NewV6 is not RFC 9562's layout (its Time reads RFC 9562's example as %v), "+
		"floe and gofrs/uuid agree on all %d of them", timeN, timeN, googleTime(rfc), timeN)
}

// TestUUIDTime_V2 reads google/uuid's DCE Security UUIDs: floe's time is
// google/uuid's without the low 32 bits, which hold the local ID instead
// (google/uuid's Time reads them as time).
func TestUUIDTime_V2(t *testing.T) {
	const unit = (1 << 32) * 100 * time.Nanosecond
	for range timeN {
		before := time.Now()
		g, err := uuid.NewDCEPerson()
		if err != nil {
			t.Fatal(err)
		}
		u := readUUID(t, g.String(), 2)
		got, ok := u.Time()
		want := g.Time() &^ (1<<32 - 1)
		sec, nsec := want.UnixTime()
		if !ok || !got.Equal(time.Unix(sec, nsec)) || u.TimeUnit() != unit {
			t.Fatalf("%v: floe reads %v (%t) to %v; google/uuid's time without its low 32 bits %v", g, got, ok, u.TimeUnit(), time.Unix(sec, nsec).UTC())
		}
		if got.After(before) || before.Sub(got) >= unit {
			t.Fatalf("%v: time %v not in the %v before %v", g, got, unit, before)
		}
	}
	t.Logf("%d google/uuid version-2 UUIDs: google/uuid's time, truncated", timeN)
}

// TestUUIDTime_V4 reads google/uuid's and gofrs/uuid's random UUIDs: no
// time.
func TestUUIDTime_V4(t *testing.T) {
	for range timeN {
		g, err := uuid.NewRandom()
		if err != nil {
			t.Fatal(err)
		}
		f, err := gofrs.NewV4()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{g.String(), f.String()} {
			u := readUUID(t, s, 4)
			if tm, ok := u.Time(); ok || !tm.IsZero() || u.TimeUnit() != 0 || u.Kind() != "random, no time" {
				t.Fatalf("%v: time %v (%t) to %v, kind %q; want none, random", u, tm, ok, u.TimeUnit(), u.Kind())
			}
		}
	}
	t.Logf("%d google/uuid and %d gofrs/uuid version-4 UUIDs: no time", timeN, timeN)
}

// TestUUIDTime_V7 reads google/uuid's and gofrs/uuid's version-7 UUIDs:
// floe's time is their millisecond, and the ID's.
func TestUUIDTime_V7(t *testing.T) {
	for range timeN {
		before := time.Now()
		g, err := uuid.NewV7()
		if err != nil {
			t.Fatal(err)
		}
		f, err := gofrs.NewV7()
		if err != nil {
			t.Fatal(err)
		}
		after := time.Now()
		u := readUUID(t, g.String(), 7)
		checkTime(t, u, googleTime(g), time.Millisecond, "google/uuid")
		between(t, u, googleTime(g), before, after, time.Millisecond)
		if id, err := u.ID(); err != nil || !id.Time().Equal(googleTime(g)) {
			t.Fatalf("%v: ID() = %v, %v", g, id, err)
		}
		v := readUUID(t, f.String(), 7)
		checkTime(t, v, gofrsTime(t, f), time.Millisecond, "gofrs/uuid")
		between(t, v, gofrsTime(t, f), before, after, time.Millisecond)
	}
	t.Logf("%d google/uuid and %d gofrs/uuid version-7 UUIDs: the same millisecond", timeN, timeN)
}
