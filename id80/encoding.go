package id80

import "encoding/binary"

// The text form is base32 over the alphabet
//
//	23456789abcdefghijklmnopqrstuvwx
//
// applied to each 40-bit block of an ID: 8 characters of 5 bits, most
// significant first. The alphabet is two contiguous ASCII runs, '2'..'9' for
// 0..7 and 'a'..'x' for 8..31, which lets both directions work on eight
// characters at once in a uint64 (one character per byte) with adds and
// masks, without tables or branches. 16 characters hold exactly 80 bits, so
// there are no spare bits and no non-canonical spellings to reject.

// Per-byte constants for the eight-lane arithmetic below.
const (
	lanes = 0x0101010101010101 // 1 in every byte
	highs = 0x8080808080808080 // the high bit of every byte
)

// encode writes the text form of id into dst.
func encode(dst *[EncodedSize]byte, id *ID) {
	a, b := textWords(id)
	binary.BigEndian.PutUint64(dst[0:8], a)
	binary.BigEndian.PutUint64(dst[8:16], b)
}

// textWords returns the text form of id as two big-endian words of eight
// characters each.
func textWords(id *ID) (uint64, uint64) {
	// Two loads that match how an ID is usually stored (8 bytes, then 2):
	// one overlapping load across both would defeat store forwarding.
	head := binary.BigEndian.Uint64(id[0:8])
	tail := uint64(binary.BigEndian.Uint16(id[8:10]))
	hi := head >> 24               // bytes 0-4: time block
	lo := head&0xffffff<<16 | tail // bytes 5-9: payload
	return toChars(spread(hi)), toChars(spread(lo))
}

// spread returns the eight 5-bit groups of the 40-bit value h, one per byte,
// the most significant group in the most significant byte. It halves the
// width of the groups three times: 20 bits per 32-bit lane, 10 per 16-bit
// lane, 5 per byte.
func spread(h uint64) uint64 {
	x := h&0xfffff | h>>20<<32
	x = x&0x000003ff_000003ff | x&0x000ffc00_000ffc00<<6
	x = x&0x001f001f_001f001f | x&0x03e003e0_03e003e0<<3
	return x
}

// gather is the inverse of spread: it packs eight 5-bit bytes into 40 bits.
func gather(x uint64) uint64 {
	x = x&0x001f001f_001f001f | x&0x1f001f00_1f001f00>>3
	x = x&0x000003ff_000003ff | x&0x03ff0000_03ff0000>>6
	return x&0xfffff | x>>32<<20
}

// toChars maps each byte of x, a value in 0..31, to its character: '2'+v
// below 8, 'a'+v-8 from 8 on. Adding 0x78 sets a byte's high bit exactly when
// it holds 8 or more; no byte carries into the next.
func toChars(x uint64) uint64 {
	letters := (x + 0x78*lanes) & highs >> 7 // 1 in bytes holding 8..31
	return x + '2'*lanes + letters*('a'-'2'-8)
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
