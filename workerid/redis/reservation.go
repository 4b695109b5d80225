package redis

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxOwner bounds the owner name, which every reservation and token carries.
const maxOwner = 255

// reservation is the value of a reservation key: "R:last:owner". R and last
// are decimal uint64s without leading zeros, last is at most R (zero when
// no clean release recorded one), and owner, the rest of the value, names
// the host that held the worker ID last (at most 255 bytes of UTF-8).
type reservation struct {
	R     uint64
	Last  uint64
	Owner string
}

func (r reservation) String() string {
	return strconv.FormatUint(r.R, 10) + ":" + strconv.FormatUint(r.Last, 10) + ":" + r.Owner
}

// decodeReservation parses a reservation value strictly: it accepts only
// what String writes.
func decodeReservation(s string) (reservation, error) {
	fail := func(why string) (reservation, error) {
		return reservation{}, fmt.Errorf("%w %q: %s", ErrBadReservation, s, why)
	}
	rs, rest, ok := strings.Cut(s, ":")
	if !ok {
		return fail("no R")
	}
	ls, owner, ok := strings.Cut(rest, ":")
	if !ok {
		return fail("no last tick")
	}
	r, ok := parseDecimal(rs)
	if !ok {
		return fail("R is not a decimal uint64")
	}
	last, ok := parseDecimal(ls)
	if !ok {
		return fail("last tick is not a decimal uint64")
	}
	if last > r {
		return fail("last tick above R")
	}
	if len(owner) > maxOwner || !utf8.ValidString(owner) {
		return fail("owner is not up to 255 bytes of UTF-8")
	}
	return reservation{R: r, Last: last, Owner: owner}, nil
}

// parseDecimal parses a uint64 written in decimal without sign or leading
// zeros.
func parseDecimal(s string) (uint64, bool) {
	if s == "" || len(s) > 1 && s[0] == '0' || s[0] < '0' || s[0] > '9' {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}
