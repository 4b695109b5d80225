package id96

import "encoding/binary"

// EncodedLen is the length of an ID's text.
const EncodedLen = 16

// alphabet is guid's 64-character alphabet, in ASCII order, so that text
// sorts as the bits it encodes. Digit i of the text is 6 bits of the ID,
// most significant first.
const alphabet = ".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"

// invalid marks a byte outside the alphabet in decoding; any value above 63
// would do, and 0xff lets one OR over a group detect it.
const invalid = 0xff

// decoding maps a character to its 6-bit value, or to invalid.
var decoding = func() (t [256]byte) {
	for i := range t {
		t[i] = invalid
	}
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// encode writes the text of id to dst, 8 bytes at a time: a later 8-byte
// load of the text, as in string(dst[:]), is then forwarded from the store,
// where after single-byte stores it would wait for them to reach the cache.
func encode(dst *[EncodedLen]byte, id *ID) {
	head, tail := load(id)
	binary.LittleEndian.PutUint64(dst[0:8], quad(head>>40)|quad(head>>16)<<32)
	binary.LittleEndian.PutUint64(dst[8:16], quad(head<<8|tail>>24)|quad(tail)<<32)
}

// load returns the first 8 bytes of id and its last 4 as big-endian
// numbers. Each 3 bytes of id, 24 bits, are 4 characters of the text.
func load(id *ID) (head, tail uint64) {
	return binary.BigEndian.Uint64(id[0:8]), uint64(binary.BigEndian.Uint32(id[8:12]))
}

// quad returns the 4 characters of the low 24 bits of x, the first in the
// low byte, so that a word assembled from quads is in text order when
// stored little-endian.
func quad(x uint64) uint64 {
	return char(x>>18) | char(x>>12)<<8 | char(x>>6)<<16 | char(x)<<24
}

// char returns the character of the low 6 bits of x.
func char(x uint64) uint64 { return uint64(alphabet[x&0x3f]) }

// decode reads the text src of length EncodedLen into id. It reports false
// if a character is outside the alphabet. Every 16 characters of the
// alphabet are the text of exactly one ID: 16 × 6 bits are 96 bits.
func decode[T string | []byte](id *ID, src T) bool {
	if len(src) != EncodedLen {
		return false
	}
	var bad byte
	for i := 0; i < 4; i++ {
		a := decoding[src[4*i]]
		b := decoding[src[4*i+1]]
		c := decoding[src[4*i+2]]
		d := decoding[src[4*i+3]]
		bad |= a | b | c | d
		v := uint32(a)<<18 | uint32(b)<<12 | uint32(c)<<6 | uint32(d)
		id[3*i] = byte(v >> 16)
		id[3*i+1] = byte(v >> 8)
		id[3*i+2] = byte(v)
	}
	return bad&^0x3f == 0
}

// String returns the 16-character text of id: guid's String and the text
// guid's FromStringG reads. Its only allocation is the string.
func (id ID) String() string {
	// encode's body, written out: encode is too large to inline, and String
	// is the hot path.
	var b [EncodedLen]byte
	head, tail := load(&id)
	binary.LittleEndian.PutUint64(b[0:8], quad(head>>40)|quad(head>>16)<<32)
	binary.LittleEndian.PutUint64(b[8:16], quad(head<<8|tail>>24)|quad(tail)<<32)
	return string(b[:])
}

// AppendText appends the 16-character text of id to dst. It does not
// allocate when dst has room for 16 more bytes. The error is always nil.
func (id ID) AppendText(dst []byte) ([]byte, error) {
	head, tail := load(&id)
	dst = binary.LittleEndian.AppendUint64(dst, quad(head>>40)|quad(head>>16)<<32)
	return binary.LittleEndian.AppendUint64(dst, quad(head<<8|tail>>24)|quad(tail)<<32), nil
}
