package id128

import (
	"errors"
	"strconv"

	"github.com/floeid/floe"
)

// format names this package in every *floe.ParseError it returns.
const format = "id128"

// What the decoders accept, as their *floe.ParseError values say it.
var (
	wantHex       = "0-9 a-f A-F"
	wantURN       = urnPrefix
	wantText      = "36 characters (8-4-4-4-12 hexadecimal digits), 38 in braces, 45 after urn:uuid: or 32 digits"
	wantBytes     = strconv.Itoa(Size) + " bytes"
	wantScanBytes = wantText + ", or " + wantBytes
	wantJSON      = "a JSON string or null"
	wantScanTypes = "string, []byte or nil"
	wantVersion   = "version 7, variant 10 (RFC 9562)"
)

// ErrVersion: a UUID that is not a version-7 UUID of RFC 9562's variant.
// Every *VersionError matches it.
var ErrVersion = errors.New("floe: not a version-7 UUID")

// VersionError reports a well-formed UUID that is not a version-7 UUID:
// another version, another variant, the nil UUID or the max UUID. The
// decoders return it inside a *floe.ParseError:
//
//	floe: cannot parse "6ba7b810-9dad-11d1-80b4-00c04fd430c8" as id128: UUID version 1, want version 7, variant 10 (RFC 9562)
//
// It matches ErrVersion and floe.ErrOutOfRange.
type VersionError struct {
	Version int     // the version field, the high 4 bits of byte 6
	Variant Variant // the variant, from the high bits of byte 8
	Nil     bool    // every bit is 0: the nil UUID
	Max     bool    // every bit is 1: the max UUID
}

func (e *VersionError) Error() string {
	switch {
	case e.Nil:
		return "floe: the nil UUID"
	case e.Max:
		return "floe: the max UUID"
	case e.Variant != VariantRFC9562:
		return "floe: UUID of variant " + e.Variant.String()
	default:
		return "floe: UUID version " + strconv.Itoa(e.Version)
	}
}

// Unwrap returns ErrVersion and floe.ErrOutOfRange.
func (e *VersionError) Unwrap() []error { return []error{ErrVersion, floe.ErrOutOfRange} }

// check returns nil when u is a version-7 UUID of RFC 9562's variant, and
// a *VersionError saying what it is otherwise.
func check(u *ID) error {
	if u[6]>>4 == Version && u[8]>>6 == 2 {
		return nil
	}
	return &VersionError{
		Version: int(u[6] >> 4),
		Variant: variantOf(u[8]),
		Nil:     *u == ID{},
		Max:     *u == ID{0: 0xff, 1: 0xff, 2: 0xff, 3: 0xff, 4: 0xff, 5: 0xff, 6: 0xff, 7: 0xff, 8: 0xff, 9: 0xff, 10: 0xff, 11: 0xff, 12: 0xff, 13: 0xff, 14: 0xff, 15: 0xff},
	}
}

// Variant is the variant field of a UUID (RFC 9562 §4.1), which decides how
// the rest of its bits are read.
type Variant uint8

// The variants of RFC 9562, named after the bits that make them.
const (
	VariantNCS       Variant = iota // 0xx: Apollo NCS, reserved for backward compatibility
	VariantRFC9562                  // 10x: RFC 9562 (and RFC 4122), the variant of versions 1 to 8
	VariantMicrosoft                // 110: reserved, Microsoft's GUIDs
	VariantFuture                   // 111: reserved for future definition
)

// variantOf returns the variant written in the high bits of b, byte 8 of a
// UUID.
func variantOf(b byte) Variant {
	switch {
	case b&0x80 == 0:
		return VariantNCS
	case b&0x40 == 0:
		return VariantRFC9562
	case b&0x20 == 0:
		return VariantMicrosoft
	default:
		return VariantFuture
	}
}

// String returns the variant's bits and name, such as "10 (RFC 9562)".
func (v Variant) String() string {
	switch v {
	case VariantNCS:
		return "0 (NCS)"
	case VariantRFC9562:
		return "10 (RFC 9562)"
	case VariantMicrosoft:
		return "110 (Microsoft)"
	case VariantFuture:
		return "111 (future)"
	}
	return "unknown " + strconv.Itoa(int(v))
}
