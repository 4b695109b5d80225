package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/floeid/floe/id128"
)

// uuidLength reports whether s has the length of a UUID's text in one of
// the forms id128.ParseUUID reads.
func uuidLength(s string) bool {
	switch len(s) {
	case 32, id128.EncodedLen, id128.EncodedLen + 2, len("urn:uuid:") + id128.EncodedLen:
		return true
	}
	return false
}

// id128End is when id128's time runs out: 2^48 ms after the Unix epoch.
var id128End = time.UnixMilli(id128.MaxTick + 1)

// gregorianEnd is when the 60-bit time of UUID versions 1 and 6 runs out:
// 2^60 × 100 ns after 1582-10-15, in 5236.
var gregorianEnd = func() time.Time {
	last, _ := id128.ParseUUID("ffffffff-ffff-6fff-8000-000000000000")
	t, _ := last.Time()
	return t.Add(100 * time.Nanosecond)
}()

// read128 reads s as an id128: a version-7 UUID, with floe's parts.
func read128(s string) (reading, error) {
	id, err := id128.Parse(s)
	if err != nil {
		return reading{}, err
	}
	p := id.Parts()
	worker := uint64(p.Worker)
	return reading{
		text: fmt.Sprintf("id128 time=%s tick=%d counter=%d worker=%d random=%#x",
			stamp(p.Time), p.Tick, p.Counter, p.Worker, p.Random),
		json: readingJSON{ID: id.String(), Format: "id128", Time: stamp(p.Time), Tick: &p.Tick, Counter: &p.Counter,
			Worker: &worker, Random: &p.Random},
		time: p.Time,
		end:  id128End,
	}, nil
}

// readUUID reads s as a UUID of any version: its version, variant, kind
// and time, if it has one. With asID, a version-7 UUID is read as an id128
// instead.
func readUUID(s string, asID bool) (reading, error) {
	u, err := id128.ParseUUID(s)
	if err != nil {
		return reading{}, err
	}
	if asID {
		if _, err := u.ID(); err == nil {
			return read128(s)
		}
	}
	r := reading{end: gregorianEnd}
	r.json = readingJSON{ID: u.String(), Format: "uuid", Variant: variantBits(u.Variant()), Kind: u.Kind()}
	r.text = "uuid"
	if u.Variant() == id128.VariantRFC9562 {
		v := u.Version()
		r.json.Version = &v
		r.text += " version=" + strconv.Itoa(v)
	}
	r.text += " variant=" + r.json.Variant + " kind=" + strconv.Quote(u.Kind())
	if t, ok := u.Time(); ok {
		r.time = t
		r.json.Time = stamp(t)
		r.text += " time=" + stamp(t)
		if u.Version() == 7 {
			r.end = id128End
		}
	}
	return r, nil
}

// variantBits returns the bits that make v, as RFC 9562 §4.1 writes them.
func variantBits(v id128.Variant) string {
	switch v {
	case id128.VariantNCS:
		return "0"
	case id128.VariantRFC9562:
		return "10"
	case id128.VariantMicrosoft:
		return "110"
	default:
		return "111"
	}
}
