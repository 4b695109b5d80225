package id64

import (
	"cmp"
	"database/sql"
	"database/sql/driver"
	"encoding"
	"encoding/json"
	"strconv"
	"time"
)

// ID is a 64-bit Snowflake ID. Its fields depend on the Layout that made it,
// which the ID does not record: methods that read fields take the layout.
// With Twitter:
//
//	 63 62                                  22 21    17 16    12 11          0
//	+--+--------------------------------------+--------+--------+-------------+
//	|0 | time: 41 bits of ms since the epoch  | dc: 5  | wkr: 5 | seq: 12     |
//	+--+--------------------------------------+--------+--------+-------------+
//
// The time field is on top, so IDs sort by time as unsigned integers, as
// big-endian bytes (Bytes, MarshalBinary) and as PaddedString; IDs of one
// tick sort by node, then sequence.
//
// The text form is the decimal number (String, MarshalText). JSON carries it
// as a string, because JavaScript numbers lose precision above 2^53. The zero
// ID is valid but never made by a generator at a time after the epoch; IsZero
// tests for it. An ID is a plain integer, safe to copy and share.
type ID uint64

// format names id64 in *floe.ParseError.
const format = "id64"

// Interfaces ID implements.
var (
	_ encoding.TextAppender        = ID(0)
	_ encoding.TextMarshaler       = ID(0)
	_ encoding.TextUnmarshaler     = (*ID)(nil)
	_ encoding.BinaryAppender      = ID(0)
	_ encoding.BinaryMarshaler     = ID(0)
	_ encoding.BinaryUnmarshaler   = (*ID)(nil)
	_ json.Marshaler               = ID(0)
	_ json.Unmarshaler             = (*ID)(nil)
	_ driver.Valuer                = ID(0)
	_ sql.Scanner                  = (*ID)(nil)
	_ interface{ String() string } = ID(0)
)

// String returns id in decimal, without padding: "1541815603606036480".
//
// Decimal strings sort like the numbers only when they have the same number
// of digits: "999" sorts after "1000". IDs of one layout keep the same digit
// count for decades (every Twitter ID made from 2018-05-25T13:05:53.759Z
// until the layout's end in 2080 has 19 digits), but where text order must
// match numeric order for all IDs, use PaddedString.
func (id ID) String() string { return strconv.FormatUint(uint64(id), 10) }

// paddedLen is the number of decimal digits of the largest ID, 2^64-1.
const paddedLen = 20

// PaddedString returns id in decimal, zero-padded to 20 digits:
// "01541815603606036480". Padded strings sort like the IDs for every ID.
func (id ID) PaddedString() string {
	var buf [paddedLen]byte
	return string(id.AppendPadded(buf[:0]))
}

// AppendPadded appends the 20-digit zero-padded decimal form of id to dst
// and returns the extended slice. It does not allocate when dst has room.
func (id ID) AppendPadded(dst []byte) []byte {
	var buf [paddedLen]byte
	v := uint64(id)
	for i := paddedLen - 1; i >= 0; i-- {
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, buf[:]...)
}

// Int64 returns id as a signed integer. IDs of signed layouts are never
// negative; an ID with the top bit set (only Unsigned layouts make them)
// comes out negative, as the same 64 bits.
func (id ID) Int64() int64 { return int64(id) }

// Uint64 returns id as an unsigned integer.
func (id ID) Uint64() uint64 { return uint64(id) }

// Compare returns -1, 0 or +1 as id is less than, equal to or greater than
// other. For IDs of one layout made at different ticks this is time order.
func (id ID) Compare(other ID) int { return cmp.Compare(id, other) }

// IsZero reports whether id is 0.
func (id ID) IsZero() bool { return id == 0 }

// Time returns the start of id's tick under layout l. It is l.Time(id).
func (id ID) Time(l Layout) time.Time { return l.Time(id) }

// Parts returns id's fields under layout l. It is l.Parts(id).
func (id ID) Parts(l Layout) Parts { return l.Parts(id) }
