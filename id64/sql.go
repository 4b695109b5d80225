package id64

import (
	"database/sql/driver"
	"math"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid"
)

// Value implements driver.Valuer. An ID up to 2^63-1, which covers every ID
// of a signed layout, is an int64 for a BIGINT column. A larger ID (only
// Unsigned layouts make them) is its decimal string, for a NUMERIC(20),
// DECIMAL(20,0) or unsigned BIGINT column; a signed BIGINT column rejects it
// rather than store a negative number.
func (id ID) Value() (driver.Value, error) {
	if id <= math.MaxInt64 {
		return int64(id), nil
	}
	return id.String(), nil
}

// Scan implements sql.Scanner. It reads an int64, a uint64, and a string or
// []byte holding what Parse accepts or a negative decimal down to
// -9223372036854775808; SQL NULL (nil) sets id to 0.
//
// A negative int64 or decimal is read as its two's complement: the ID with
// the same 64 bits. That is how a signed BIGINT holds the IDs of an
// Unsigned layout once its time reaches the top bit: Instagram's next_id
// returns negative BIGINTs from 2046-06-27T17:00:49.497Z on, and Scan reads
// them as the IDs id64.Instagram decodes (id.Int64 gives the BIGINT back).
// A layout that is not Unsigned never sets the top bit, so for it such a
// value is no ID: Layout.CheckID refuses it, naming the top bit. Check IDs
// read from a database with CheckID before decoding them.
//
// Any other type is a *floe.ParseError wrapping floe.ErrUnsupportedType,
// and text that is not a decimal of 64 bits one wrapping
// floe.ErrInvalidCharacter, floe.ErrInvalidLength or floe.ErrOutOfRange. On
// error id is left unchanged.
func (id *ID) Scan(src any) error {
	var v uint64
	var err error
	switch s := src.(type) {
	case int64:
		v = uint64(s)
	case uint64:
		v = s
	case string:
		if v, err = scanDecimal(s); err != nil {
			return err
		}
	default:
		text, null, err := textid.ScanText(format, wantScanTypes, src)
		if err != nil {
			return err
		}
		if !null {
			if v, err = scanDecimal(text); err != nil {
				return err
			}
		}
	}
	*id = ID(v)
	return nil
}

// scanDecimal reads what Parse reads, or a negative decimal from
// -9223372036854775808 to -1 as its two's complement.
func scanDecimal[T string | []byte](s T) (uint64, error) {
	if len(s) == 0 || s[0] != '-' {
		v, err := parseDecimal(s)
		if err != nil {
			return 0, decimalError(s, 0, err)
		}
		return v, nil
	}
	u, err := parseDecimal(s[1:])
	if err == nil && u > 1<<63 {
		err = floe.ErrOutOfRange
	}
	if err != nil {
		if err == floe.ErrOutOfRange {
			return 0, textid.Error(format, s, err, wantNegative)
		}
		return 0, decimalError(s, 1, err)
	}
	return -u, nil
}
