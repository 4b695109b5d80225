package id64

import (
	"math/bits"
	"strconv"

	"github.com/floeid/floe"
)

// maxDigits is the longest decimal text accepted: 2^64-1 has 20 digits, and
// leading zeros may pad shorter numbers to that width (PaddedString).
const maxDigits = 20

// Parse returns the ID written in decimal in s. It accepts 1 to 20 ASCII
// digits, leading zeros included (so it reads both String and PaddedString),
// and nothing else: no sign, space, underscore or base prefix. Failures are
// *floe.ParseError values wrapping floe.ErrInvalidCharacter (with the
// offset of the first byte that is not a digit), floe.ErrInvalidLength
// (empty or longer than 20 digits) or floe.ErrOutOfRange (above 2^64-1).
func Parse(s string) (ID, error) {
	v, err := parseDecimal(s)
	if err != nil {
		return 0, decimalError(s, 0, err)
	}
	return ID(v), nil
}

// MustParse is like Parse but panics if s is not a valid ID. It is meant for
// tests and package-level variables.
func MustParse(s string) ID {
	id, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return id
}

// parseDecimal reads 1..maxDigits ASCII digits. It returns the bare reason
// for the caller to wrap.
func parseDecimal[T string | []byte](s T) (uint64, error) {
	if len(s) == 0 {
		return 0, floe.ErrInvalidLength
	}
	for i := 0; i < len(s); i++ {
		if s[i]-'0' > 9 {
			return 0, floe.ErrInvalidCharacter
		}
	}
	if len(s) > maxDigits {
		return 0, floe.ErrInvalidLength
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		hi, lo := bits.Mul64(v, 10)
		lo, carry := bits.Add64(lo, uint64(s[i]-'0'), 0)
		if hi|carry != 0 {
			return 0, floe.ErrOutOfRange
		}
		v = lo
	}
	return v, nil
}

// AppendText implements encoding.TextAppender: it appends String's decimal
// form to dst. It does not allocate when dst has room for 20 more bytes, and
// never fails.
func (id ID) AppendText(dst []byte) ([]byte, error) {
	return strconv.AppendUint(dst, uint64(id), 10), nil
}

// MarshalText implements encoding.TextMarshaler with String's decimal form.
func (id ID) MarshalText() ([]byte, error) {
	return id.AppendText(make([]byte, 0, maxDigits))
}

// UnmarshalText implements encoding.TextUnmarshaler. It accepts what Parse
// accepts; on error id is left unchanged.
func (id *ID) UnmarshalText(text []byte) error {
	v, err := parseDecimal(text)
	if err != nil {
		return decimalError(text, 0, err)
	}
	*id = ID(v)
	return nil
}
