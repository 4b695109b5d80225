package tsc

// cheaper reports whether reading the counter costs less than reading the
// monotonic clock, comparing the best of several rounds of each: a
// hypervisor that traps the counter makes it cost microseconds.
func cheaper() bool {
	const rounds, reads = 8, 32
	best := func(read func()) int64 {
		b := int64(1<<63 - 1)
		for range rounds {
			t := Precise()
			for range reads {
				read()
			}
			b = min(b, Precise()-t)
		}
		return b
	}
	return best(func() { ticks() }) < best(func() { Precise() })
}
