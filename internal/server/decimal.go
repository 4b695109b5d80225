package server

import (
	"math"
	"slices"
	"strconv"

	"github.com/floeid/floe/id64"
)

// appendDecimals appends the decimal text of each of ids to dst, each as
// open, the digits, then end: `"` and `",` in a JSON array (whose caller
// drops the last comma), "" and "\n" in lines of text. open is at most one
// byte and end at most two.
//
// The IDs of one tick are consecutive numbers on a layout whose sequence
// is its lowest field, so the text of a hundred IDs from a multiple of a
// hundred differs only in the last two digits, and that of the next
// hundred only in the digits above them. Such a run of a hundred is
// written as the hundred before it, in one copy, with the digits above
// the last two added one to; a run of ten likewise from the ten before
// it. That costs a byte or two for each ID instead of a division for each
// digit. Any other ID is written on its own.
func appendDecimals(dst []byte, ids []id64.ID, open, end string) []byte {
	dst = slices.Grow(dst, len(ids)*(len(open)+20+len(end)))
	var buf [24]byte
	// The last runs of ten and of a hundred: where each starts in dst (or
	// -1), and its first ID. A run of a hundred is complete once its last
	// ten are written; all its IDs have as many digits, size bytes each
	// with open and end, as those of any run of ten.
	ten, tenFirst := -1, id64.ID(0)
	hundred, hundredFirst := -1, id64.ID(0)
	size := 0
	for i := 0; i < len(ids); {
		id := ids[i]
		if id%100 == 0 && hundred >= 0 && id == hundredFirst+100 && i+100 <= len(ids) && isRun(ids[i:i+100]) {
			s := len(dst)
			if next, ok := copyRun(dst, hundred, size, len(open), len(end), 2); ok {
				dst = next
				hundred, hundredFirst = s, id
				ten, tenFirst = s+90*size, id+90
				i += 100
				continue
			}
		}
		whole := id%10 == 0 && i+10 <= len(ids) && isRun(ids[i:i+10])
		if id%100 == 0 {
			// A run of a hundred starts here, unless a power of ten is
			// inside it (the run from 0).
			hundred = -1
			if whole && id >= 100 && i+100 <= len(ids) && isRun(ids[i:i+100]) {
				hundred, hundredFirst = len(dst), id
			}
		}
		if whole && ten >= 0 && id == tenFirst+10 {
			s := len(dst)
			if next, ok := copyRun(dst, ten, size, len(open), len(end), 1); ok {
				dst = next
				ten, tenFirst = s, id
				i += 10
				continue
			}
		}
		b := append(buf[:0], open...)
		b = strconv.AppendUint(b, uint64(id), 10)
		b = append(b, end...)
		if !whole {
			dst = append(dst, b...)
			ten = -1
			i++
			continue
		}
		ten, tenFirst, size = len(dst), id, len(b)
		last := len(b) - len(end) - 1
		for d := byte('0'); d <= '9'; d++ {
			b[last] = d
			dst = append(dst, b...)
		}
		i += 10
	}
	return dst
}

// copyRun appends to dst a copy of the run of IDs that starts at from and
// ends dst, each size bytes of open, digits and end, with the digits above
// the last low digits of each ID added one to. It fails, returning dst as
// it was, when those digits are all nines: the sum has one more digit.
func copyRun(dst []byte, from, size, open, end, low int) ([]byte, bool) {
	s := len(dst)
	dst = append(dst, dst[from:s]...)
	high := dst[s+open : s+size-end-low] // the first ID's digits above its last low
	j := increment(high)
	if j < 0 {
		return dst[:s], false
	}
	// The same digits change in the other IDs.
	patch(dst[s+open+j:], high[j:], size)
	return dst, true
}

// patch writes digits to dst every size bytes after its first, up to its
// end: the new digits of each of a run's IDs after the first.
func patch(dst, digits []byte, size int) {
	if len(digits) == 1 {
		d := digits[0]
		for at := size; at < len(dst); at += size {
			dst[at] = d
		}
		return
	}
	for at := size; at+len(digits) <= len(dst); at += size {
		for k, d := range digits {
			dst[at+k] = d
		}
	}
}

// isRun reports whether ids are consecutive numbers, without wrapping. It
// compares them all before it answers, which takes no branch for each ID.
func isRun(ids []id64.ID) bool {
	next := ids[0]
	if uint64(next) > math.MaxUint64-uint64(len(ids)-1) {
		return false
	}
	var diff id64.ID
	for _, id := range ids {
		diff |= id ^ next
		next++
	}
	return diff == 0
}

// increment adds one to the decimal digits d in place and returns the
// index of the highest digit it changed, or -1 when they were all nines
// (then all zeros: the sum has one more digit than d).
func increment(d []byte) int {
	for i := len(d) - 1; i >= 0; i-- {
		if d[i] != '9' {
			d[i]++
			return i
		}
		d[i] = '0'
	}
	return -1
}
