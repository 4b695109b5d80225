package tsc

import (
	"strings"
	"testing"
	"time"
)

// fake is a source whose monotonic clock advances by step on every
// reading, and whose counter runs at hz counts per second of it, plus jump.
type fake struct {
	why  string
	t    int64   // monotonic nanoseconds
	step int64   // advance per mono reading
	hz   float64 // counts per second
	c    float64 // counter at t
	jump uint64  // added to every counter reading
}

func (f *fake) check() string { return f.why }
func (f *fake) mono() int64 {
	f.advance(f.step)
	return f.t
}
func (f *fake) count() uint64 { return uint64(f.c) + f.jump }

// advance moves both clocks on by ns of monotonic time.
func (f *fake) advance(ns int64) {
	f.t += ns
	f.c += float64(ns) * f.hz / 1e9
}

func newFake() *fake { return &fake{t: 1e9, step: 20, hz: 3e9, c: 1 << 40} }

// read is Now for a line over a fake source.
func read(l *line) int64 {
	if l.win.Load() != 0 {
		if ns, ok := l.at(l.src.count()); ok {
			return ns
		}
	}
	return l.slow()
}

func TestLine_Calibrate(t *testing.T) {
	tests := []struct {
		name    string
		src     *fake
		wantOn  bool
		wantWhy string
	}{
		{"counter usable", newFake(), true, ""},
		{"counter refused", &fake{why: "no counter", step: 20, hz: 3e9}, false, "no counter"},
		{"brackets too wide", &fake{step: 300, hz: 3e9}, false, "200 ns apart"},
		{"counter at 500 kHz", &fake{step: 20, hz: 5e5}, false, "implausible"},
		{"counter at 24 MHz", &fake{step: 20, hz: 24e6}, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := &line{src: tc.src}
			read(l)
			on, why := l.using()
			if on != tc.wantOn || !strings.Contains(why, tc.wantWhy) {
				t.Errorf("using() = %v, %q; want %v, %q", on, why, tc.wantOn, tc.wantWhy)
			}
		})
	}
}

// TestLine_Track runs a line over a fake counter whose rate, against the
// monotonic clock, changes as the kernel slews its clock, or jumps, and
// checks every reading against the fake monotonic time: within Bound while
// the counter behaves as the kernel's clock source must, never decreasing
// unless the counter itself goes back, and the counter turned off when it
// strays.
func TestLine_Track(t *testing.T) {
	tests := []struct {
		name    string
		change  func(f *fake, i int) // called before reading i
		every   int64                // monotonic ns between readings
		back    bool                 // the counter goes back: readings may too, once
		wantOn  bool
		wantWhy string
	}{
		{"steady", func(*fake, int) {}, 50, false, true, ""},
		{"sparse readings", func(*fake, int) {}, 100_000, false, true, ""},
		{"kernel slews 10% faster", func(f *fake, i int) {
			if i == 5000 {
				f.hz *= 0.9 // the counter runs 10% slow against the kernel's clock
			}
		}, 50, false, true, ""},
		{"kernel slews 10% slower", func(f *fake, i int) {
			if i == 5000 {
				f.hz *= 1.1
			}
		}, 50, false, true, ""},
		{"counter jumps ahead", func(f *fake, i int) {
			if i == 5000 {
				f.jump = 30_000 // 10 µs at 3 GHz
			}
		}, 50, false, false, "strayed"},
		{"counter jumps back", func(f *fake, i int) {
			if i == 5000 {
				f.c -= 30_000
			}
		}, 50, true, false, "strayed"},
		{"rate changes for good", func(f *fake, i int) {
			if i == 5000 {
				f.hz *= 2
			}
		}, 50, false, false, "strayed"},
		{"pause, then steady", func(f *fake, i int) {
			if i == 5000 {
				f.advance(int64(10 * time.Second))
			}
		}, 50, false, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			l := &line{src: f}
			var last, worst int64
			for i := range 200_000 {
				tc.change(f, i)
				f.advance(tc.every)
				before := f.t
				got := read(l)
				after := f.t
				if got < last && !tc.back {
					t.Fatalf("reading %d: %d after %d", i, got, last)
				}
				last = got
				if !l.off.Load() {
					worst = max(worst, got-after, before-got)
				}
			}
			on, why := l.using()
			if on != tc.wantOn || !strings.Contains(why, tc.wantWhy) {
				t.Errorf("using() = %v, %q; want %v, %q", on, why, tc.wantOn, tc.wantWhy)
			}
			if tc.wantOn && worst > int64(Bound) {
				t.Errorf("largest error %v, bound %v", time.Duration(worst), Bound)
			}
			t.Logf("largest error while on: %v", time.Duration(worst))
		})
	}
}

func TestRateOf(t *testing.T) {
	tests := []struct {
		ns     int64
		counts uint64
		want   uint64
		wantOK bool
	}{
		{1000, 3000, 1 << 32 / 3, true},
		{1000, 1000, 1 << 32, true},
		{0, 1000, 0, false},
		{1000, 0, 0, false},
		{1 << 40, 10, 0, false},
	}
	for _, tc := range tests {
		got, ok := rateOf(tc.ns, tc.counts)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("rateOf(%d, %d) = %d, %v; want %d, %v", tc.ns, tc.counts, got, ok, tc.want, tc.wantOK)
		}
	}
}

func TestMulShift(t *testing.T) {
	tests := []struct {
		d, mult uint64
		want    int64
	}{
		{3000, 1 << 32 / 3, 999},
		{1 << 40, 1 << 32, 1 << 40},
		{1 << 63, 1 << 40, 1<<63 - 1},
	}
	for _, tc := range tests {
		if got := mulShift(tc.d, tc.mult); got != tc.want {
			t.Errorf("mulShift(%d, %d) = %d, want %d", tc.d, tc.mult, got, tc.want)
		}
	}
}
