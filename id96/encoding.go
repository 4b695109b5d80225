package id96

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

// encode writes the text of id to dst: each 3 bytes become 4 characters.
func encode(dst *[EncodedLen]byte, id *ID) {
	for i := 0; i < 4; i++ {
		v := uint32(id[3*i])<<16 | uint32(id[3*i+1])<<8 | uint32(id[3*i+2])
		dst[4*i] = alphabet[v>>18]
		dst[4*i+1] = alphabet[v>>12&0x3f]
		dst[4*i+2] = alphabet[v>>6&0x3f]
		dst[4*i+3] = alphabet[v&0x3f]
	}
}

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
// guid's FromStringG reads.
func (id ID) String() string {
	var buf [EncodedLen]byte
	encode(&buf, &id)
	return string(buf[:])
}

// AppendText appends the 16-character text of id to dst. It does not
// allocate when dst has room for 16 more bytes. The error is always nil.
func (id ID) AppendText(dst []byte) ([]byte, error) {
	var buf [EncodedLen]byte
	encode(&buf, &id)
	return append(dst, buf[:]...), nil
}
