package id80

import (
	"database/sql/driver"

	"github.com/floeid/floe/internal/textid"
)

// Value implements driver.Valuer: it returns the ID's 10 raw bytes, as sno
// does, so columns that sno writes (BINARY(10), BYTEA) take floe's IDs too.
// The bytes sort in time order. To store the text form instead, pass
// id.String() to the database.
func (id ID) Value() (driver.Value, error) {
	return id.Bytes(), nil
}

// Scan implements sql.Scanner. It accepts:
//
//   - a string or []byte holding the 16-character text form;
//   - a []byte holding the 10 raw bytes, as sno's Value writes them;
//   - nil (SQL NULL), which sets the zero ID;
//   - an empty string or []byte (an empty TEXT or BYTEA), which also sets
//     the zero ID, as sno's Scan does.
//
// Any other length is a *floe.ParseError wrapping floe.ErrInvalidLength, and
// any other type one wrapping floe.ErrUnsupportedType. On error id is left
// unchanged.
func (id *ID) Scan(value any) error {
	if b, ok := value.([]byte); ok && len(b) == Size {
		*id = ID(b)
		return nil
	}
	text, null, err := textid.ScanText(format, wantScanTypes, value)
	switch {
	case err != nil:
		return err
	case null || len(text) == 0:
		*id = ID{}
		return nil
	}
	v, ok := decode(text)
	if !ok {
		e := textError(text)
		if _, raw := value.([]byte); raw && e.Length >= 0 {
			e.Want = wantScanBytes
		}
		return e
	}
	*id = v
	return nil
}
