package id128

import (
	"slices"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid"
)

const hexDigits = "0123456789abcdef"

// dashes are the offsets of the dashes in the canonical text.
var dashes = [4]int{8, 13, 18, 23}

// encode writes the canonical text of id into dst.
func encode(dst *[EncodedLen]byte, id *ID) {
	j := 0
	for i, b := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst[j] = '-'
			j++
		}
		dst[j] = hexDigits[b>>4]
		dst[j+1] = hexDigits[b&0xf]
		j += 2
	}
}

// String returns the canonical text of id: 32 lower-case hexadecimal digits
// in groups of 8-4-4-4-12, as RFC 9562 writes a UUID.
func (id ID) String() string {
	var b [EncodedLen]byte
	encode(&b, &id)
	return string(b[:])
}

// AppendText appends the canonical text of id to dst, without allocating
// when dst has room. The error is always nil.
func (id ID) AppendText(dst []byte) ([]byte, error) {
	n := len(dst)
	dst = slices.Grow(dst, EncodedLen)[:n+EncodedLen]
	encode((*[EncodedLen]byte)(dst[n:]), &id)
	return dst, nil
}

// MarshalText returns the canonical text of id. The error is always nil.
func (id ID) MarshalText() ([]byte, error) {
	b := make([]byte, EncodedLen)
	encode((*[EncodedLen]byte)(b), &id)
	return b, nil
}

// UnmarshalText reads the text of an ID as Parse does. On error id is left
// unchanged.
func (id *ID) UnmarshalText(text []byte) error {
	v, err := parseText(text)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// Parse reads the text of a version-7 UUID in any form google/uuid reads:
// the canonical 8-4-4-4-12 form, in braces ({...}), after "urn:uuid:", or
// 32 digits without dashes; hexadecimal digits in either case.
//
// It returns a *floe.ParseError wrapping floe.ErrInvalidLength,
// floe.ErrInvalidCharacter (with the offset of the first byte out of place)
// or a *VersionError, for a UUID of another version or variant, the nil
// UUID or the max UUID.
func Parse(s string) (ID, error) {
	id, err := parseText(s)
	if err != nil {
		return ID{}, err
	}
	return id, nil
}

// MustParse is like Parse but panics if s is not the text of an ID. It is
// for tests and package-level variables.
func MustParse(s string) ID {
	id, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return id
}

// parseText reads the text of an ID, returning the error decoders report
// for src; it does not allocate on success.
func parseText[T string | []byte](src T) (ID, *floe.ParseError) {
	u, e := parseUUID(format, src)
	if e != nil {
		return ID{}, e
	}
	if err := check(&u); err != nil {
		return ID{}, textid.Error(format, src, err, wantVersion)
	}
	return u, nil
}

// parseUUID reads the 16 bytes of a UUID of any version from its text in
// one of google/uuid's forms; its errors name the format name.
func parseUUID[T string | []byte](name string, src T) (ID, *floe.ParseError) {
	var u ID
	switch len(src) {
	case EncodedLen:
		if i, want := decodeDashed(&u, src); i >= 0 {
			return ID{}, textid.CharError(name, src, i, want)
		}
	case EncodedLen + 2:
		if src[0] != '{' {
			return ID{}, textid.CharError(name, src, 0, "{")
		}
		if i, want := decodeDashed(&u, src[1:EncodedLen+1]); i >= 0 {
			return ID{}, textid.CharError(name, src, 1+i, want)
		}
		if src[EncodedLen+1] != '}' {
			return ID{}, textid.CharError(name, src, EncodedLen+1, "}")
		}
	case len(urnPrefix) + EncodedLen:
		for i := range len(urnPrefix) {
			if lower(src[i]) != urnPrefix[i] {
				return ID{}, textid.CharError(name, src, i, wantURN)
			}
		}
		if i, want := decodeDashed(&u, src[len(urnPrefix):]); i >= 0 {
			return ID{}, textid.CharError(name, src, len(urnPrefix)+i, want)
		}
	case 2 * Size:
		for i := range Size {
			hi, lo := unhex(src[2*i]), unhex(src[2*i+1])
			switch {
			case hi == bad:
				return ID{}, textid.CharError(name, src, 2*i, wantHex)
			case lo == bad:
				return ID{}, textid.CharError(name, src, 2*i+1, wantHex)
			}
			u[i] = hi<<4 | lo
		}
	default:
		return ID{}, textid.LengthError(name, src, len(src), wantText)
	}
	return u, nil
}

const urnPrefix = "urn:uuid:"

// lower returns c in lower case, for ASCII letters.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// digitPairs are the offsets of the 16 pairs of digits in the canonical
// text, one a byte.
var digitPairs = [Size]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// decodeDashed reads the 8-4-4-4-12 text s, EncodedLen bytes, into u. It
// returns the offset of the first byte out of place and what belongs
// there, or -1; on error u holds no meaning.
func decodeDashed[T string | []byte](u *ID, s T) (int, string) {
	_ = s[EncodedLen-1]
	var all byte // every digit's value ORed: bad sets its high bits
	for i, o := range digitPairs {
		hi, lo := unhex(s[o]), unhex(s[o+1])
		all |= hi | lo
		u[i] = hi<<4 | lo
	}
	if all&0xf0 == 0 && s[dashes[0]] == '-' && s[dashes[1]] == '-' && s[dashes[2]] == '-' && s[dashes[3]] == '-' {
		return -1, ""
	}
	return firstWrong(s)
}

// firstWrong returns the offset of the first byte of the 8-4-4-4-12 text s
// that is out of place, and what belongs there, or -1.
func firstWrong[T string | []byte](s T) (int, string) {
	for i := range EncodedLen {
		if i == dashes[0] || i == dashes[1] || i == dashes[2] || i == dashes[3] {
			if s[i] != '-' {
				return i, "-"
			}
		} else if unhex(s[i]) == bad {
			return i, wantHex
		}
	}
	return -1, ""
}

// bad is what unhex returns for a byte that is no hexadecimal digit.
const bad = 0xff

// unhex returns the value of the hexadecimal digit c, or bad.
func unhex(c byte) byte { return unhexTable[c] }

var unhexTable = func() (t [256]byte) {
	for i := range t {
		t[i] = bad
	}
	for i := range 10 {
		t['0'+i] = byte(i)
	}
	for i := range 6 {
		t['a'+i] = byte(10 + i)
		t['A'+i] = byte(10 + i)
	}
	return t
}()
