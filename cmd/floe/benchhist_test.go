package main

import (
	"slices"
	"testing"
	"time"
)

func TestBenchHist_Quantile(t *testing.T) {
	us := func(n int) time.Duration { return time.Duration(n) * time.Microsecond }
	tests := []struct {
		name                  string
		values                []time.Duration
		p50, p99, p999, maxim time.Duration
	}{
		{"empty", nil, 0, 0, 0, 0},
		{"one", []time.Duration{us(42)}, us(42), us(42), us(42), us(42)},
		{"exact below 256ns", []time.Duration{100, 100, 100, 200}, 100, 200, 200, 200},
		{"1..1000µs", benchSeries(1000, us), us(500), us(990), us(999), us(1000)},
		{"1..100000µs", benchSeries(100000, us), us(50000), us(99000), us(99900), us(100000)},
		{"outlier", append(slices.Repeat([]time.Duration{us(10)}, 999), time.Minute), us(10), us(10), us(10), time.Minute},
		{"negative counts as 0", []time.Duration{-5, 0, 0}, 0, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := new(benchHist)
			for _, v := range tc.values {
				h.record(v)
			}
			for _, q := range []struct {
				perMille  uint64
				got, want time.Duration
			}{
				{500, h.quantile(500), tc.p50},
				{990, h.quantile(990), tc.p99},
				{999, h.quantile(999), tc.p999},
				{1000, h.max, tc.maxim},
			} {
				// A quantile is the top of its bucket: at most 1/128 over.
				if q.got < q.want || q.got > q.want+q.want/128 {
					t.Errorf("quantile %d‰: got %v, want %v (+0.8%%)", q.perMille, q.got, q.want)
				}
			}
		})
	}
}

// benchSeries returns unit(1), unit(2) … unit(n).
func benchSeries(n int, unit func(int) time.Duration) []time.Duration {
	s := make([]time.Duration, n)
	for i := range s {
		s[i] = unit(i + 1)
	}
	return s
}

func TestBenchHist_Merge(t *testing.T) {
	a, b, all := new(benchHist), new(benchHist), new(benchHist)
	for i := range 1000 {
		d := time.Duration(i*i) * time.Nanosecond
		all.record(d)
		if i%3 == 0 {
			a.record(d)
		} else {
			b.record(d)
		}
	}
	a.merge(b)
	if *a != *all {
		t.Errorf("merged: n %d, max %v; want n %d, max %v", a.n, a.max, all.n, all.max)
	}
}

func TestBenchBucket(t *testing.T) {
	prev := -1
	for v := uint64(0); v <= benchHistMax; v += 1 + v/97 {
		i := benchBucket(v)
		if i < prev || i >= benchHistBuckets {
			t.Fatalf("bucket(%d) = %d after %d; want increasing, below %d", v, i, prev, benchHistBuckets)
		}
		prev = i
		top := benchBucketMax(i)
		var bottom uint64
		if i > 0 {
			bottom = benchBucketMax(i-1) + 1
		}
		if v < bottom || v > top || top-bottom > max(bottom/128, 1) {
			t.Fatalf("%d in bucket %d = [%d, %d], want it inside and the bucket within 1/128", v, i, bottom, top)
		}
	}
	if got := benchBucket(benchHistMax); got != benchHistBuckets-1 {
		t.Errorf("bucket of the largest value: got %d, want the last, %d", got, benchHistBuckets-1)
	}
}
