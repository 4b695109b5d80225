package id128

import (
	"encoding/binary"
	"time"
)

// ID is an RFC 9562 version-7 UUID whose 74 free bits carry a counter, a
// worker ID and random bits. Bit 127 is the most significant bit of byte 0:
//
//	127                    80 79  76 75           64 63 62 61       56 55      40 39        0
//	+------------------------+------+---------------+-----+-----------+----------+-----------+
//	| Unix milliseconds      | ver  | counter >> 6  | var | counter   | worker   | random    |
//	| 48 bits                | 0111 | 12 bits       | 10  | low 6     | 16 bits  | 40 bits   |
//	+------------------------+------+---------------+-----+-----------+----------+-----------+
//
// The zero ID (the nil UUID) has every bit zero; it is no version-7 UUID,
// so the decoders refuse its text. ID is a comparable value type; IDs order
// as unsigned 128-bit integers, which is also the order of their bytes and
// of their canonical text.
type ID [Size]byte

const (
	// Size is the length of an ID in bytes.
	Size = 16
	// EncodedLen is the length of the canonical text, 8-4-4-4-12 hexadecimal
	// digits.
	EncodedLen = 36

	// Version is the UUID version of every ID: 7, Unix time.
	Version = 7

	// MaxTick is the largest time field: 48 bits of Unix milliseconds.
	MaxTick = 1<<tickBits - 1
	// MaxCounter is the largest counter: the counter has 18 bits.
	MaxCounter = 1<<counterBits - 1
	// MaxWorker is the largest worker ID: the worker ID has 16 bits.
	MaxWorker = 1<<workerBits - 1
	// MaxRandom is the largest random field: it has 40 bits.
	MaxRandom = 1<<randomBits - 1
	// TickUnit is the duration of one tick of the time field.
	TickUnit = time.Millisecond
)

const (
	tickBits    = 48
	counterBits = 18
	workerBits  = 16
	randomBits  = 40

	// In the high 64-bit word: the time, the version, the counter's top.
	hiTickShift  = 16
	hiVersion    = Version << 12
	counterLoLen = 6 // counter bits below the variant, in the low word
	// In the low 64-bit word: the variant, the counter's bottom, the
	// worker, the random bits.
	loVariant      = 2 << 62
	loCounterShift = 56
	loWorkerShift  = randomBits
	counterLoMask  = 1<<counterLoLen - 1
	counterHiMask  = 1<<(counterBits-counterLoLen) - 1
)

// fromWords builds an ID from its high and low 64-bit words.
func fromWords(hi, lo uint64) ID {
	var id ID
	binary.BigEndian.PutUint64(id[0:8], hi)
	binary.BigEndian.PutUint64(id[8:16], lo)
	return id
}

// words returns the high and low 64-bit words of id.
func (id ID) words() (hi, lo uint64) {
	return binary.BigEndian.Uint64(id[0:8]), binary.BigEndian.Uint64(id[8:16])
}

// Tick returns the 48-bit time field of id: Unix milliseconds.
func (id ID) Tick() uint64 {
	hi, _ := id.words()
	return hi >> hiTickShift
}

// Time returns the millisecond of id as a UTC time.
func (id ID) Time() time.Time { return time.UnixMilli(int64(id.Tick())).UTC() }

// Counter returns the 18-bit counter of id.
func (id ID) Counter() uint32 {
	hi, lo := id.words()
	return uint32(hi&counterHiMask)<<counterLoLen | uint32(lo>>loCounterShift)&counterLoMask
}

// Worker returns the 16-bit worker ID of id.
func (id ID) Worker() uint16 { return binary.BigEndian.Uint16(id[9:11]) }

// Random returns the 40 random bits of id.
func (id ID) Random() uint64 {
	_, lo := id.words()
	return lo & MaxRandom
}

// Bytes returns the 16 bytes of id in a new slice.
func (id ID) Bytes() []byte {
	b := make([]byte, Size)
	copy(b, id[:])
	return b
}

// Compare returns -1, 0 or +1 as id sorts before, equal to or after other:
// unsigned 128-bit integers, the order of the bytes.
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

// IsZero reports whether id is the zero ID, the nil UUID.
func (id ID) IsZero() bool { return id == ID{} }
