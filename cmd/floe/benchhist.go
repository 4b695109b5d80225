package main

import (
	"math/bits"
	"time"
)

// Shape of benchHist. Each power of two of nanoseconds from 256ns up is
// split into 1<<benchHistSubBits buckets, so a bucket is at most 1/128
// (0.8%) of its values wide; values below 256ns each have a bucket of their
// own. 2^34ns (about 17s) is past any latency worth telling apart, and keeps
// the histogram at 28 KiB per connection.
const (
	benchHistSubBits = 7
	benchHistTopBits = 34
	benchHistMax     = 1<<benchHistTopBits - 1 // in ns; longer latencies count here
	benchHistBuckets = (benchHistTopBits - benchHistSubBits + 1) << benchHistSubBits
)

// benchHist is a log-linear latency histogram in the manner of
// HdrHistogram: recording is an index computation and an increment, and
// its size does not depend on how many latencies it holds. It is not safe
// for concurrent use: each connection has its own, merged at the end.
type benchHist struct {
	counts [benchHistBuckets]uint64
	n      uint64        // latencies recorded
	max    time.Duration // the longest, exact
}

// benchBucket returns the bucket of v nanoseconds, v ≤ benchHistMax.
func benchBucket(v uint64) int {
	if v < 1<<(benchHistSubBits+1) {
		return int(v)
	}
	shift := bits.Len64(v) - (benchHistSubBits + 1)
	return shift<<benchHistSubBits + int(v>>shift)
}

// benchBucketMax returns the largest value of bucket i, in nanoseconds.
func benchBucketMax(i int) uint64 {
	if i < 1<<(benchHistSubBits+1) {
		return uint64(i)
	}
	shift := i>>benchHistSubBits - 1
	mantissa := uint64(i - shift<<benchHistSubBits)
	return (mantissa+1)<<shift - 1
}

// record adds one latency.
func (h *benchHist) record(d time.Duration) {
	v := uint64(max(d, 0))
	if v > benchHistMax {
		v = benchHistMax
	}
	h.counts[benchBucket(v)]++
	h.n++
	h.max = max(h.max, d)
}

// merge adds the latencies of o.
func (h *benchHist) merge(o *benchHist) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}

// quantile returns the latency that perMille thousandths of the recorded
// ones do not exceed: 500 is the median, 999 the 99.9th percentile. It is
// the top of that latency's bucket (so at most 0.8% over, never under),
// capped at the exact maximum; 0 when nothing was recorded.
func (h *benchHist) quantile(perMille uint64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := max((h.n*perMille+999)/1000, 1)
	var seen uint64
	for i, c := range h.counts {
		if seen += c; seen >= rank {
			return min(time.Duration(benchBucketMax(i)), h.max)
		}
	}
	return h.max
}
