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
// is its lowest field, so the text of ten IDs from a multiple of ten
// differs only in the last digit, and that of the next ten only in the
// digits above it. Such a run of ten is written as the ten before it, in
// one copy, with the digits above the last one added one to, which costs
// a byte or two for each ID instead of a division for each digit. Any
// other ID is written on its own.
func appendDecimals(dst []byte, ids []id64.ID, open, end string) []byte {
	dst = slices.Grow(dst, len(ids)*(len(open)+20+len(end)))
	var buf [24]byte
	run, first, size := -1, id64.ID(0), 0 // the last run of ten written: where, its first ID, one ID's size
	for i := 0; i < len(ids); {
		id := ids[i]
		whole := id%10 == 0 && i+10 <= len(ids) && isRun(ids[i:i+10])
		if whole && run >= 0 && id == first+10 {
			s := len(dst)
			dst = append(dst, dst[run:s]...)
			tens := dst[s+len(open) : s+size-len(end)-1] // the first ID's digits above its last
			if j := increment(tens); j >= 0 {
				// The same digits change in the other nine.
				if j == len(tens)-1 {
					d := tens[j]
					for k := 1; k < 10; k++ {
						dst[s+k*size+len(open)+j] = d
					}
				} else {
					for k := 1; k < 10; k++ {
						at := s + k*size + len(open)
						copy(dst[at+j:at+len(tens)], tens[j:])
					}
				}
				run, first = s, id
				i += 10
				continue
			}
			dst = dst[:s] // all nines: one more digit, written afresh
		}
		b := append(buf[:0], open...)
		b = strconv.AppendUint(b, uint64(id), 10)
		b = append(b, end...)
		if !whole {
			dst = append(dst, b...)
			run = -1
			i++
			continue
		}
		run, first, size = len(dst), id, len(b)
		last := len(b) - len(end) - 1
		for d := byte('0'); d <= '9'; d++ {
			b[last] = d
			dst = append(dst, b...)
		}
		i += 10
	}
	return dst
}

// isRun reports whether ids are consecutive numbers, without wrapping.
func isRun(ids []id64.ID) bool {
	if uint64(ids[0]) > math.MaxUint64-uint64(len(ids)-1) {
		return false
	}
	for k, id := range ids {
		if id != ids[0]+id64.ID(k) {
			return false
		}
	}
	return true
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
