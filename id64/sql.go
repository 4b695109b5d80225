package id64

import (
	"database/sql/driver"
	"math"
	"strconv"

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

// Scan implements sql.Scanner. It reads an int64 that is not negative, a
// uint64, and a string or []byte holding what Parse accepts; SQL NULL (nil)
// sets id to 0. A negative int64 is a *floe.ParseError wrapping
// floe.ErrOutOfRange, any other type one wrapping floe.ErrUnsupportedType.
// On error id is left unchanged.
func (id *ID) Scan(src any) error {
	var v uint64
	var err error
	switch s := src.(type) {
	case int64:
		if s < 0 {
			return textid.Error(format, strconv.AppendInt(nil, s, 10), floe.ErrOutOfRange, wantRange)
		}
		v = uint64(s)
	case uint64:
		v = s
	case string:
		if v, err = parseDecimal(s); err != nil {
			return decimalError(s, 0, err)
		}
	default:
		text, null, err := textid.ScanText(format, wantScanTypes, src)
		if err != nil {
			return err
		}
		if !null {
			if v, err = parseDecimal(text); err != nil {
				return decimalError(text, 0, err)
			}
		}
	}
	*id = ID(v)
	return nil
}
