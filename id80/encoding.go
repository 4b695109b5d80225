package id80

import "encoding/binary"

// The text form is base32 over the alphabet
//
//	23456789abcdefghijklmnopqrstuvwx
//
// applied to each 40-bit block of an ID: 8 characters of 5 bits, most
// significant first. 16 characters hold exactly 80 bits, so there are no
// spare bits and no non-canonical spellings to reject.
//
// Encoding looks up two characters at a time, for 10 bits, in a table of
// 2 KiB, and assembles each half of the text in a register: eight lookups
// per ID, fewer instructions and a shorter dependency chain than spreading
// the bits over the bytes with shifts and masks and mapping them to
// characters arithmetically.
//
// Decoding needs no table: the alphabet is two contiguous ASCII runs, '2'..'9'
// for 0..7 and 'a'..'x' for 8..31, which lets it check and convert eight
// characters at once in a uint64 (one character per byte) with adds and
// masks, without branches.
const alphabet = "23456789abcdefghijklmnopqrstuvwx"

// pairs holds the text of every 10-bit value: the character of its high 5
// bits in the low byte, that of its low 5 bits in the high byte, so that
// pairs assembled from the low end of a word are stored little-endian in
// text order.
var pairs = func() (t [1 << 10]uint16) {
	for v := range t {
		t[v] = uint16(alphabet[v>>5]) | uint16(alphabet[v&0x1f])<<8
	}
	return t
}()

// pair returns the two characters of the low 10 bits of v, as in pairs.
func pair(v uint64) uint64 { return uint64(pairs[v&0x3ff]) }

// Per-byte constants for the eight-lane arithmetic of decoding.
const (
	lanes = 0x0101010101010101 // 1 in every byte
	highs = 0x8080808080808080 // the high bit of every byte
)

// encode writes the text form of id into dst.
func encode(dst *[EncodedSize]byte, id *ID) {
	hi, lo := blocks(id)
	binary.LittleEndian.PutUint64(dst[0:8], textWord(hi))
	binary.LittleEndian.PutUint64(dst[8:16], textWord(lo))
}

// blocks returns the two 40-bit blocks of id, the time block and the
// payload, in the low bits of hi and lo; the bits above them are not cleared.
func blocks(id *ID) (hi, lo uint64) {
	// Two loads that match how an ID is usually stored (8 bytes, then 2):
	// one overlapping load across both would defeat store forwarding.
	head := binary.BigEndian.Uint64(id[0:8])
	tail := uint64(binary.BigEndian.Uint16(id[8:10]))
	return head >> 24, head<<16 | tail
}

// textWord returns the 8 characters of the 40 low bits of x as a
// little-endian word: stored with binary.LittleEndian, its bytes are in text
// order.
func textWord(x uint64) uint64 {
	return pair(x>>30) | pair(x>>20)<<16 | pair(x>>10)<<32 | pair(x)<<48
}

// gather packs eight 5-bit values, one per byte, the most significant in the
// most significant byte, into 40 bits. It halves the number of lanes three
// times: 10 bits per 16-bit lane, 20 per 32-bit lane, then 40.
func gather(x uint64) uint64 {
	x = x&0x001f001f_001f001f | x&0x1f001f00_1f001f00>>3
	x = x&0x000003ff_000003ff | x&0x03ff0000_03ff0000>>6
	return x&0xfffff | x>>32<<20
}

// fromChars maps eight characters, one per byte, back to their 5-bit values.
// ok is false when any byte is outside the alphabet.
//
// For an ASCII byte c, c + 0x80 - k has its high bit set exactly when c >= k,
// and never carries out of the byte; that gives the four range edges of the
// alphabet in parallel. Bytes at or above 0x80 may carry into their neighbour,
// but they fail the ASCII test whatever the edges say.
func fromChars(c uint64) (v uint64, ok bool) {
	from2 := c + (0x80-'2')*lanes
	past9 := c + (0x80-'9'-1)*lanes
	fromA := c + (0x80-'a')*lanes
	pastX := c + (0x80-'x'-1)*lanes
	in := (from2&^past9 | fromA&^pastX) & highs
	ok = c&highs == 0 && in == highs
	v = c - '2'*lanes - (fromA&highs>>7)*('a'-'2'-8)
	return v, ok
}

// load8 returns the 8 bytes of s from i on as a big-endian number.
func load8[T string | []byte](s T, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
		uint64(s[4])<<24 | uint64(s[5])<<16 | uint64(s[6])<<8 | uint64(s[7])
}

// decode returns the ID whose text form is src. ok is false when src is not
// EncodedSize characters of the alphabet.
func decode[T string | []byte](src T) (id ID, ok bool) {
	if len(src) != EncodedSize {
		return ID{}, false
	}
	hi, ok1 := fromChars(load8(src, 0))
	lo, ok2 := fromChars(load8(src, 8))
	if !ok1 || !ok2 {
		return ID{}, false
	}
	hi, lo = gather(hi), gather(lo)
	binary.BigEndian.PutUint64(id[0:8], hi<<24|lo>>16)
	binary.BigEndian.PutUint16(id[8:10], uint16(lo))
	return id, true
}
