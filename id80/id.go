package id80

import (
	"encoding/binary"
	"time"
	"unsafe"
)

const (
	// Size is the length of an ID in bytes.
	Size = 10
	// EncodedSize is the length of an ID's text form.
	EncodedSize = 16

	// TimeUnit is the resolution of an ID's timestamp.
	TimeUnit = 4 * time.Millisecond
	// MaxTimestamp is the largest timestamp an ID can hold, in TimeUnit
	// since Epoch: 2079-09-07 15:47:35.548 UTC.
	MaxTimestamp = 1<<39 - 1
	// MaxSequence is the largest sequence number.
	MaxSequence = 1<<16 - 1
)

// Epoch is the time of timestamp 0: 2010-01-01 00:00:00 UTC, as in sno. The
// package reads its own constant, not this variable.
var Epoch = epoch

// epoch is Epoch, out of the reach of callers.
var epoch = time.UnixMilli(epochMilli).UTC()

const (
	epochMilli = 1262304000 * 1000 // 2010-01-01 00:00:00 UTC in Unix milliseconds
	unitMilli  = int64(TimeUnit / time.Millisecond)
	blockBits  = 40 // the time block: timestamp and tick-tock bit
	blockMask  = 1<<blockBits - 1
)

// ID is an 80-bit ID, laid out as sno lays it out: 10 bytes, big-endian.
//
//	byte  0        1        2        3        4        5        6        7        8        9
//	     tttttttt tttttttt tttttttt tttttttt tttttttk mmmmmmmm pppppppp pppppppp ssssssss ssssssss
//
//	t  39-bit timestamp in 4 ms units since Epoch
//	k  tick-tock bit
//	m  metabyte
//	p  16-bit partition
//	s  16-bit sequence
//
// The zero ID is all zero bytes; its text is "2222222222222222". IDs are
// comparable with == and sort by Compare in time order. An ID is a value and
// is safe for concurrent use.
type ID [Size]byte

// newID builds an ID from the 40-bit time block (the timestamp shifted left
// by one, or-ed with the tick-tock bit), the metabyte, the partition and the
// sequence. Bits of block above the 40th are dropped. It does no other
// checking: it is the generator's fast path.
func newID(block uint64, meta byte, partition uint16, seq uint16) ID {
	var id ID
	binary.BigEndian.PutUint64(id[0:8], block<<(64-blockBits)|uint64(meta)<<16|uint64(partition))
	binary.BigEndian.PutUint16(id[8:10], seq)
	return id
}

// block returns the 40-bit time block: timestamp and tick-tock bit.
func (id ID) block() uint64 {
	return binary.BigEndian.Uint64(id[0:8]) >> (64 - blockBits)
}

// Timestamp returns the ID's timestamp in 4 ms units (TimeUnit) since Epoch.
func (id ID) Timestamp() uint64 {
	return id.block() >> 1
}

// Time returns the ID's time in UTC, a multiple of 4 ms after Epoch.
func (id ID) Time() time.Time {
	return timeOf(id.Timestamp())
}

// TickTock reports whether the ID's tick-tock bit is set: whether it was
// issued on the generator's second timeline.
func (id ID) TickTock() bool {
	return id[4]&1 == 1
}

// Meta returns the ID's metabyte.
func (id ID) Meta() byte {
	return id[5]
}

// Partition returns the ID's partition.
func (id ID) Partition() Partition {
	return Partition{id[6], id[7]}
}

// Sequence returns the ID's sequence number.
func (id ID) Sequence() uint16 {
	return binary.BigEndian.Uint16(id[8:10])
}

// Bytes returns the ID's 10 bytes in a new slice.
func (id ID) Bytes() []byte {
	return id[:]
}

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool {
	return id == ID{}
}

// Compare returns -1, 0 or +1 as id sorts before, equal to or after other.
// Byte order, text order and time order (timestamp, then tick-tock) agree.
func (id ID) Compare(other ID) int {
	a, b := binary.BigEndian.Uint64(id[0:8]), binary.BigEndian.Uint64(other[0:8])
	if a == b {
		a, b = uint64(binary.BigEndian.Uint16(id[8:10])), uint64(binary.BigEndian.Uint16(other[8:10]))
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return +1
	}
	return 0
}

// String returns the ID's 16-character text form. Its only allocation is
// the string.
func (id ID) String() string {
	// encode's body, written out: encode is too large to inline, and String
	// is the hot path. The text is built in the string's own memory, the
	// one allocation, instead of being copied there from the stack.
	b := new([EncodedSize]byte)
	hi, lo := blocks(&id)
	binary.LittleEndian.PutUint64(b[0:8], textWord(hi))
	binary.LittleEndian.PutUint64(b[8:16], textWord(lo))
	return unsafe.String(&b[0], EncodedSize)
}

// timeOf returns the time of timestamp ts, which must not exceed
// MaxTimestamp.
func timeOf(ts uint64) time.Time {
	return time.UnixMilli(epochMilli + int64(ts)*unitMilli).UTC()
}

// timestampOf returns the timestamp of t, rounded down to TimeUnit. ok is
// false when t lies before Epoch or after the last time an ID can hold.
func timestampOf(t time.Time) (ts uint64, ok bool) {
	d := t.Sub(epoch) // saturates far outside the range, which stays out of range
	if d < 0 {
		return 0, false
	}
	ts = uint64(d / TimeUnit)
	return ts, ts <= MaxTimestamp
}
