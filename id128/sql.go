package id128

import (
	"database/sql/driver"

	"github.com/floeid/floe/internal/textid"
)

// Value returns the canonical text of id, for database/sql: drivers such
// as lib/pq and pgx store it in a PostgreSQL uuid column as it is, and in a
// text column it sorts as the IDs do. The error is always nil.
func (id ID) Value() (driver.Value, error) {
	return id.String(), nil
}

// Scan reads an ID from a database value: a string or []byte holding its
// text in any form Parse reads (PostgreSQL's uuid columns come back as
// canonical text), a []byte of its 16 raw bytes, or nil, which sets the
// zero ID. Other types and malformed values return a *floe.ParseError. On
// error id is left unchanged.
func (id *ID) Scan(src any) error {
	if b, ok := src.([]byte); ok && len(b) == Size {
		return id.UnmarshalBinary(b)
	}
	text, null, err := textid.ScanText(format, wantScanTypes, src)
	switch {
	case err != nil:
		return err
	case null:
		*id = ID{}
		return nil
	}
	v, e := parseText(text)
	if e != nil {
		if _, raw := src.([]byte); raw && e.Length >= 0 {
			e.Want = wantScanBytes
		}
		return e
	}
	*id = v
	return nil
}
