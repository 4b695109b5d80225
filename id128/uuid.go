package id128

import (
	"encoding/binary"
	"strconv"
	"time"
)

// uuidFormat names ParseUUID in the *floe.ParseError values it returns.
const uuidFormat = "uuid"

// UUID is a UUID of any version or variant, read for what it says: its
// version, variant and, for the versions that have one, its time. It is
// for inspecting UUIDs that others made, such as those ParseUUID reads;
// use ID for floe's own.
//
// Time-based versions keep their time in one of three layouts (RFC 9562
// §5):
//
//   - versions 1 and 6: a 60-bit count of 100 ns since 1582-10-15, the
//     Gregorian epoch; version 1 puts its low 32 bits first, version 6 its
//     high 48;
//   - version 2 (DCE Security): version 1's layout, with a local ID in place
//     of the low 32 bits of the time, so its time is truncated;
//   - version 7: 48 bits of Unix milliseconds.
//
// Versions 3 and 5 hold a hash of a name (MD5, SHA-1), version 4 random
// bits and version 8 bits of the maker's choice: none has a time.
type UUID [Size]byte

// ParseUUID reads the text of a UUID of any version or variant, in every
// form Parse reads: the canonical 8-4-4-4-12 form, in braces ({...}),
// after "urn:uuid:", or 32 digits without dashes; hexadecimal digits in
// either case.
//
// It returns a *floe.ParseError with Format "uuid", wrapping
// floe.ErrInvalidLength or floe.ErrInvalidCharacter (with the offset of the
// first byte out of place).
func ParseUUID(s string) (UUID, error) {
	u, err := parseUUID(uuidFormat, s)
	if err != nil {
		return UUID{}, err
	}
	return UUID(u), nil
}

// String returns the canonical text of u: 32 lower-case hexadecimal digits
// in groups of 8-4-4-4-12.
func (u UUID) String() string { return ID(u).String() }

// Version returns the version field of u, the high 4 bits of byte 6. It
// names a version of RFC 9562 only when u is of VariantRFC9562.
func (u UUID) Version() int { return int(u[6] >> 4) }

// Variant returns the variant of u, from the high bits of byte 8.
func (u UUID) Variant() Variant { return variantOf(u[8]) }

// IsNil reports whether u is the nil UUID, every bit 0.
func (u UUID) IsNil() bool { return u == UUID{} }

// IsMax reports whether u is the max UUID, every bit 1.
func (u UUID) IsMax() bool { return u == maxUUID }

var maxUUID = UUID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// gregorianOffset is the count of 100 ns from the Gregorian epoch,
// 1582-10-15, to the Unix epoch.
const gregorianOffset = 122_192_928_000_000_000

// dceUnit is the step of a version-2 UUID's time: its low 32 bits, in
// 100 ns, are not kept.
const dceUnit = (1 << 32) * 100 * time.Nanosecond

// hasTime reports whether u keeps a time: an RFC 9562 UUID of version 1,
// 2, 6 or 7.
func (u UUID) hasTime() bool {
	if u.Variant() != VariantRFC9562 {
		return false
	}
	switch u.Version() {
	case 1, 2, 6, 7:
		return true
	}
	return false
}

// Time returns the time u keeps, as a UTC time, and true; or the zero time
// and false when u keeps none. The time of version 1 and 6 is to 100 ns,
// that of version 7 to the millisecond, and that of version 2 the start of
// a step of TimeUnit, about 7 minutes.
func (u UUID) Time() (time.Time, bool) {
	if !u.hasTime() {
		return time.Time{}, false
	}
	var t uint64 // 100 ns since the Gregorian epoch
	switch u.Version() {
	case 7:
		ms := binary.BigEndian.Uint64(u[0:8]) >> 16
		return time.UnixMilli(int64(ms)).UTC(), true
	case 6:
		t = uint64(binary.BigEndian.Uint32(u[0:4]))<<28 | uint64(binary.BigEndian.Uint16(u[4:6]))<<12 |
			uint64(binary.BigEndian.Uint16(u[6:8])&0x0fff)
	case 1:
		t = uint64(binary.BigEndian.Uint16(u[6:8])&0x0fff)<<48 | uint64(binary.BigEndian.Uint16(u[4:6]))<<32 |
			uint64(binary.BigEndian.Uint32(u[0:4]))
	case 2:
		t = uint64(binary.BigEndian.Uint16(u[6:8])&0x0fff)<<48 | uint64(binary.BigEndian.Uint16(u[4:6]))<<32
	}
	// t < 2^60 fits an int64; a time before 1970 gives a negative d, and
	// time.Unix takes the negative nanoseconds as they are.
	d := int64(t) - gregorianOffset
	return time.Unix(d/10_000_000, d%10_000_000*100).UTC(), true
}

// TimeUnit returns the step of the time u keeps: 100 ns for versions 1 and
// 6, a millisecond for version 7, 2^32 × 100 ns (7m9.4967296s) for version
// 2, and 0 when u keeps no time.
func (u UUID) TimeUnit() time.Duration {
	if !u.hasTime() {
		return 0
	}
	switch u.Version() {
	case 7:
		return time.Millisecond
	case 2:
		return dceUnit
	}
	return 100 * time.Nanosecond
}

// Kind says in a few words what u is, after its version and variant:
// "random, no time" for version 4, "Unix time in milliseconds" for version
// 7, "the nil UUID", and so on.
func (u UUID) Kind() string {
	switch {
	case u.IsNil():
		return "the nil UUID"
	case u.IsMax():
		return "the max UUID"
	}
	switch v := u.Variant(); v {
	case VariantNCS:
		return "NCS variant (reserved), no version, no time"
	case VariantMicrosoft:
		return "Microsoft variant (reserved), no version, no time"
	case VariantFuture:
		return "variant reserved for the future, no version, no time"
	}
	switch v := u.Version(); v {
	case 1:
		return "Gregorian time and node"
	case 2:
		return "DCE Security, time truncated to 7m9.4967296s"
	case 3:
		return "name-based (MD5), no time"
	case 4:
		return "random, no time"
	case 5:
		return "name-based (SHA-1), no time"
	case 6:
		return "reordered Gregorian time and node"
	case 7:
		return "Unix time in milliseconds"
	case 8:
		return "custom, no time"
	default:
		return "unassigned version " + strconv.Itoa(v) + ", no time"
	}
}

// ID returns u as an ID when it is a version-7 UUID of RFC 9562's variant,
// and a *VersionError saying what it is otherwise.
func (u UUID) ID() (ID, error) {
	id := ID(u)
	if err := check(&id); err != nil {
		return ID{}, err
	}
	return id, nil
}
