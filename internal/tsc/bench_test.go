package tsc

import "testing"

// BenchmarkNow measures one reading of Now beside its parts and
// alternatives: Precise (the monotonic clock), the counter read as Now
// reads it (no fence) and as anchors read it (ordered).
func BenchmarkNow(b *testing.B) {
	for _, c := range []struct {
		name string
		read func() int64
	}{
		{"now", Now},
		{"precise", Precise},
		{"counter", func() int64 { return int64(ticks()) }},
		{"counter-ordered", func() int64 { return int64(ticksOrdered()) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			var sink int64
			for b.Loop() {
				sink += c.read()
			}
			_ = sink
		})
		b.Run(c.name+"-parallel", func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				var sink int64
				for pb.Next() {
					sink += c.read()
				}
				_ = sink
			})
		})
	}
}
