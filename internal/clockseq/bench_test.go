package clockseq

import (
	"testing"
	"time"

	"github.com/floeid/floe"
)

func benchSeq(b *testing.B, clock floe.Clock) *Seq {
	s, err := New(Config{Clock: clock, Epoch: 1288834974657e6, Unit: 1e6, MaxTick: 1<<41 - 1, SeqBits: 22})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkSeq_Next compares the built-in clocks, read as Unix nanoseconds,
// with the same clocks read through Now (wrapped so the core does not
// recognise them).
func BenchmarkSeq_Next(b *testing.B) {
	clocks := []struct {
		name  string
		clock floe.Clock
	}{
		{"monotonic", floe.MonotonicClock},
		{"system", floe.SystemClock},
		{"monotonic-now", timeClock{floe.MonotonicClock}},
		{"system-now", timeClock{floe.SystemClock}},
	}
	for _, c := range clocks {
		b.Run(c.name, func(b *testing.B) {
			s := benchSeq(b, c.clock)
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := s.Next(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"-parallel", func(b *testing.B) {
			s := benchSeq(b, c.clock)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, _, err := s.Next(); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkClock_Now measures one reading of each built-in clock: through
// Now (a time.Time), through UnixNano as the generators read them, the
// monotonic clock's precise reading, and a Seq's reading for ticks of 1 ms
// (the cheaper reading) and 10 µs (the precise one).
func BenchmarkClock_Now(b *testing.B) {
	for _, c := range []struct {
		name  string
		clock floe.Clock
	}{{"monotonic", floe.MonotonicClock}, {"system", floe.SystemClock}} {
		b.Run(c.name, func(b *testing.B) {
			var sink int64
			for b.Loop() {
				sink += c.clock.Now().UnixNano()
			}
			_ = sink
		})
	}
	nanos := []struct {
		name string
		read func() int64
	}{
		{"monotonic-unixnano", floe.MonotonicClock.(nanoClock).UnixNano},
		{"monotonic-precise", floe.MonotonicClock.(boundedClock).PreciseUnixNano},
		{"system-unixnano", floe.SystemClock.(nanoClock).UnixNano},
	}
	for _, c := range nanos {
		b.Run(c.name, func(b *testing.B) {
			var sink int64
			for b.Loop() {
				sink += c.read()
			}
			_ = sink
		})
	}
	for _, c := range []struct {
		name string
		unit time.Duration
	}{{"reading", time.Millisecond}, {"reading-10us", 10 * time.Microsecond}} {
		b.Run(c.name, func(b *testing.B) {
			r := newReading(floe.MonotonicClock, int64(c.unit))
			var sink int64
			for b.Loop() {
				sink += r.now()
			}
			_ = sink
		})
		b.Run(c.name+"-parallel", func(b *testing.B) {
			r := newReading(floe.MonotonicClock, int64(c.unit))
			b.RunParallel(func(pb *testing.PB) {
				var sink int64
				for pb.Next() {
					sink += r.now()
				}
				_ = sink
			})
		})
	}
}

// timeClock hides a clock's UnixNano method.
type timeClock struct{ c floe.Clock }

func (u timeClock) Now() time.Time { return u.c.Now() }
