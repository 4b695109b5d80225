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
// is its lowest field: appendDecimals writes each run of consecutive IDs
// with appendRun.
func appendDecimals(dst []byte, ids []id64.ID, open, end string) []byte {
	dst = slices.Grow(dst, len(ids)*(len(open)+20+len(end)))
	for i := 0; i < len(ids); {
		j := i + 1 + runLen(ids[i:])
		dst = appendRun(dst, uint64(ids[i]), j-i, open, end)
		i = j
	}
	return dst
}

// decimalLen returns the number of decimal digits of x.
func decimalLen(x uint64) int {
	n := 1
	for ; x >= 10; x /= 10 {
		n++
	}
	return n
}

// runLen returns how many IDs after the first of ids follow on from it
// one by one, without wrapping. It compares four at a time where it can.
func runLen(ids []id64.ID) int {
	first := ids[0]
	j := 1
	for ; j+4 <= len(ids) && uint64(first) <= math.MaxUint64-uint64(j+3); j += 4 {
		next := first + id64.ID(j)
		if (ids[j]^next)|(ids[j+1]^(next+1))|(ids[j+2]^(next+2))|(ids[j+3]^(next+3)) != 0 {
			break
		}
	}
	for ; j < len(ids) && ids[j] == ids[j-1]+1 && ids[j] != 0; j++ {
	}
	return j - 1
}

// appendRun appends the text of count consecutive numbers from id, as
// appendDecimals does; id+count-1 must not wrap.
//
// The text of a hundred numbers from a multiple of a hundred differs only
// in the last two digits, and that of the next hundred only in the digits
// above them. Such a hundred is written as the hundred before it, in one
// copy, with the digits above the last two added one to; a ten likewise
// from the ten before it. That costs a byte or two for each number
// instead of a division for each digit.
func appendRun(dst []byte, id uint64, count int, open, end string) []byte {
	var buf [24]byte
	// The last ten and hundred written: where each starts in dst, or -1.
	// A hundred is complete once its last ten is written. All their
	// numbers have as many digits, size bytes each with open and end.
	ten, hundred, size := -1, -1, 0
	for count > 0 {
		if id%100 == 0 && count >= 100 && hundred >= 0 {
			s := len(dst)
			if next, ok := copyRun(dst, hundred, size, len(open), len(end), 2); ok {
				dst, hundred, ten = next, s, s+90*size
				id, count = id+100, count-100
				continue
			}
		}
		if id%100 == 0 {
			// A hundred starts here, unless a power of ten is inside it
			// (the hundred from 0).
			hundred = -1
			if count >= 100 && id >= 100 {
				hundred = len(dst)
			}
		}
		if id%10 == 0 && count >= 10 && ten >= 0 {
			s := len(dst)
			if next, ok := copyRun(dst, ten, size, len(open), len(end), 1); ok {
				dst, ten = next, s
				id, count = id+10, count-10
				continue
			}
		}
		b := append(buf[:0], open...)
		b = strconv.AppendUint(b, id, 10)
		b = append(b, end...)
		if id%10 != 0 || count < 10 {
			dst = append(dst, b...)
			ten = -1
			id, count = id+1, count-1
			continue
		}
		ten, size = len(dst), len(b)
		last := len(b) - len(end) - 1
		for d := byte('0'); d <= '9'; d++ {
			b[last] = d
			dst = append(dst, b...)
		}
		id, count = id+10, count-10
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
