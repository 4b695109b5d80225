package id64

import (
	"strconv"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid"
)

// MarshalJSON implements json.Marshaler. The ID is written as a JSON string
// of its decimal form, "1541815603606036480", because JSON numbers above
// 2^53 lose precision in JavaScript and in other decoders that read numbers
// as float64.
func (id ID) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, maxDigits+2)
	b = append(b, '"')
	b = strconv.AppendUint(b, uint64(id), 10)
	return append(b, '"'), nil
}

// UnmarshalJSON implements json.Unmarshaler. It accepts a JSON string holding
// what Parse accepts, and a bare JSON number that is a non-negative integer
// of at most 20 digits (1541815603606036480), so that IDs written as numbers
// by other systems still read exactly.
//
// It rejects negative numbers (even -0) with floe.ErrOutOfRange, and
// fractions and exponents (1.0, 1e3) with floe.ErrInvalidCharacter, even when
// their value is a whole number. The literal null leaves id unchanged, as
// encoding/json does for other types; use a *ID field to tell a null from a
// missing value. On error id is left unchanged.
func (id *ID) UnmarshalJSON(b []byte) error {
	if textid.IsNull(b) {
		return nil
	}
	v, err := parseJSON(b)
	if err != nil {
		return err
	}
	*id = ID(v)
	return nil
}

// parseJSON reads a JSON string or number holding an ID. Errors are
// *floe.ParseError values for b; those about a string's contents count
// offsets in b and lengths in the contents.
func parseJSON(b []byte) (uint64, error) {
	if len(b) == 0 {
		return 0, textid.LengthError(format, b, 0, wantLength)
	}
	if b[0] == '"' {
		s, ok := textid.Unquote(b)
		if !ok {
			return 0, textid.CharError(format, b, textid.SyntaxOffset(b), wantJSON)
		}
		v, err := parseDecimal(s)
		if err != nil {
			return 0, textid.InString(decimalError(s, 0, err), b, 0)
		}
		return v, nil
	}
	if b[0]-'0' > 9 && b[0] != '-' {
		return 0, textid.CharError(format, b, textid.SyntaxOffset(b), wantJSON)
	}
	if b[0] == '-' {
		// A negative number, or not a number at all.
		if _, err := parseDecimal(b[1:]); err != nil && err != floe.ErrOutOfRange {
			return 0, decimalError(b, 1, err)
		}
		return 0, textid.Error(format, b, floe.ErrOutOfRange, wantRange)
	}
	if len(b) > 1 && b[0] == '0' {
		// JSON numbers have no leading zeros; 0.5 and 0e1 land here too.
		want := wantDigits
		if b[1]-'0' <= 9 {
			want = wantNoZero
		}
		return 0, textid.CharError(format, b, 1, want)
	}
	v, err := parseDecimal(b)
	if err != nil {
		return 0, decimalError(b, 0, err)
	}
	return v, nil
}
