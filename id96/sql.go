package id96

import (
	"database/sql/driver"

	"github.com/floeid/floe/internal/textid"
)

// Value returns the 16-character text of id, for database/sql. Text columns
// then sort as the IDs do. The error is always nil.
func (id ID) Value() (driver.Value, error) {
	return id.String(), nil
}

// Scan reads an ID from a database value: a string or []byte holding its
// text, a []byte of its 12 raw bytes, or nil, which sets the zero ID. Other
// types and malformed values return a *floe.ParseError. On error id is left
// unchanged.
func (id *ID) Scan(src any) error {
	if b, ok := src.([]byte); ok && len(b) == Size {
		copy(id[:], b)
		return nil
	}
	text, null, err := textid.ScanText(format, wantScanTypes, src)
	switch {
	case err != nil:
		return err
	case null:
		*id = ID{}
		return nil
	}
	var v ID
	if !decode(&v, text) {
		e := textError(text)
		if _, raw := src.([]byte); raw && e.Length >= 0 {
			e.Want = wantScanBytes
		}
		return e
	}
	*id = v
	return nil
}
