package id96

import (
	"encoding/binary"
	"time"
)

// ID is a 96-bit k-ordered identifier, bit-compatible with the 96-bit (G)
// form of github.com/fogfish/guid/v2: the 12 bytes are the big-endian bits
// of guid's K, the 32 used bits of K.Hi followed by K.Lo.
//
// With c the drift code (see [Drift]) and d = 18+c, the fields are laid out
// as follows (bit 95 is the most significant bit of byte 0):
//
//	95     93 92          64+c 63+c          32+c 31+c         14 13      0
//	+--------+---------------+-----------------+---------------+---------+
//	| drift  | tick >> d     | node            | tick mod 2^d  | seq     |
//	| 3 bits | 29-c bits     | 32 bits         | d = 18+c bits | 14 bits |
//	+--------+---------------+-----------------+---------------+---------+
//
// The tick is the 47-bit time in units of 2^17 ns (Unix nanoseconds >> 17),
// the node is the 32-bit identifier of the allocator and seq is a 14-bit
// sequence. The high 29-c bits of the tick sort before the node and the low
// d bits after it, so IDs of different nodes sort by time only at the
// precision of a drift window (2^d ticks).
//
// The zero ID has every bit zero. ID is a comparable value type; IDs order
// as unsigned 96-bit integers, which is also the order of their bytes and of
// their text.
type ID [Size]byte

const (
	// Size is the length of an ID in bytes.
	Size = 12

	// MaxTick is the largest tick: the tick has 47 bits.
	MaxTick = 1<<tickBits - 1
	// MaxSequence is the largest sequence: the sequence has 14 bits.
	MaxSequence = 1<<seqBits - 1
	// TickUnit is the duration of one tick, 2^17 ns (about 131 µs).
	TickUnit = time.Duration(1) << tickShift
)

const (
	tickBits  = 47 // bits of the tick
	tickShift = 17 // Unix nanoseconds >> tickShift = tick
	seqBits   = 14 // bits of the sequence
	nodeBits  = 32 // bits of the node
	driftZero = 18 // low tick bits below the node for drift code 0

	hiDriftShift = 29          // drift code position in the high 32-bit word
	hiTickMask   = 1<<29 - 1   // high 32-bit word without the drift code
	seqMask      = MaxSequence // low bits of the low word
)

// newID builds an ID from its fields without checks: the drift keeps its
// low 3 bits, the tick its low 47 bits and the sequence its low 14 bits.
// tick is Unix nanoseconds >> 17. It is the constructor of the generator's
// hot path.
func newID(drift Drift, tick uint64, node uint32, seq uint16) ID {
	c := uint64(drift) & driftMask
	d := c + driftZero
	tick &= MaxTick
	n := uint64(node)
	hi := c<<hiDriftShift | (tick>>d)<<c | n>>(nodeBits-c)
	lo := n<<(nodeBits+c) | (tick&(1<<d-1))<<seqBits | uint64(seq)&seqMask
	return fromWords(hi, lo)
}

// fromWords builds an ID from guid's K.Hi (low 32 bits) and K.Lo. It
// writes bytes 0-7 and 8-11, the pieces in which the compiler copies an
// ID: a copy that read 8 bytes across two narrower writes would wait for
// both to reach memory instead of taking the bytes from one.
func fromWords(hi, lo uint64) ID {
	var id ID
	binary.BigEndian.PutUint64(id[0:8], hi<<32|lo>>32)
	binary.BigEndian.PutUint32(id[8:12], uint32(lo))
	return id
}

// words returns guid's K.Hi and K.Lo of id.
func (id ID) words() (hi, lo uint64) {
	return uint64(binary.BigEndian.Uint32(id[0:4])), binary.BigEndian.Uint64(id[4:12])
}

// Drift returns the drift code of id.
func (id ID) Drift() Drift { return Drift(id[0] >> 5) }

// Tick returns the 47-bit time of id in units of [TickUnit] (Unix
// nanoseconds >> 17).
func (id ID) Tick() uint64 {
	hi, lo := id.words()
	c := hi >> hiDriftShift
	d := c + driftZero
	return (hi&hiTickMask)>>c<<d | lo>>seqBits&(1<<d-1)
}

// Time returns the time of id in UTC, at the precision of a tick. The tick
// is read as unsigned, so times past the year 2262 are returned as they are
// (up to the year 2554), not wrapped.
func (id ID) Time() time.Time { return timeOf(id.Tick()) }

// Node returns the 32-bit node (allocator) identifier of id.
func (id ID) Node() uint32 {
	hi, lo := id.words()
	c := hi >> hiDriftShift
	return uint32(lo>>(nodeBits+c)) | uint32(hi&(1<<c-1))<<(nodeBits-c)
}

// Sequence returns the 14-bit sequence of id.
func (id ID) Sequence() uint16 {
	return uint16(binary.BigEndian.Uint16(id[10:12]) & seqMask)
}

// Bytes returns the 12 bytes of id in a new slice.
func (id ID) Bytes() []byte {
	b := make([]byte, Size)
	copy(b, id[:])
	return b
}

// Compare returns -1, 0 or +1 as id sorts before, equal to or after other.
// It is guid's order (Before, After): unsigned 96-bit integers.
func (id ID) Compare(other ID) int {
	ah, al := id.words()
	bh, bl := other.words()
	switch {
	case ah < bh || ah == bh && al < bl:
		return -1
	case ah == bh && al == bl:
		return 0
	default:
		return +1
	}
}

// IsZero reports whether every bit of id is zero.
func (id ID) IsZero() bool { return id == ID{} }

// timeOf converts a tick to a UTC time, reading tick<<17 as unsigned
// nanoseconds.
func timeOf(tick uint64) time.Time {
	ns := (tick & MaxTick) << tickShift
	return time.Unix(int64(ns/1e9), int64(ns%1e9)).UTC()
}

// tickOf converts t to a tick: Unix nanoseconds >> 17, as guid does. The
// nanoseconds are unsigned, so times past 2262 keep their tick; times before
// 1970 wrap, as they do in guid.
func tickOf(t time.Time) uint64 {
	return (uint64(t.Unix())*1e9 + uint64(t.Nanosecond())) >> tickShift
}
