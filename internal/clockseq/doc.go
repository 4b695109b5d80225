// Package clockseq is the core every floe generator shares: it issues
// (tick, sequence) pairs, never the same pair twice, under a clock policy.
//
// # State
//
// One atomic word holds the last pair issued:
//
//	tick << (tt+seq) | ticktock << seq | guard+sequence
//
// where the tick-tock bit exists only under floe.TickTock and the sequence
// field takes all the bits the tick leaves, so that it has guard bits above
// the format's sequence. Words only grow (a tick-tock switch is the one
// exception, and it moves to a timeline whose words were never used). Every
// ID is reserved by an atomic operation on the word that returns a value no
// other caller gets: an add of 1 for a single ID when the guard holds at
// least 2^16 overshoots (an add that finds the tick spent lands in the guard
// and is discarded), a compare-and-swap otherwise. The fast path takes no
// lock, and reads the current tick from a separate hint word that changes
// once per tick, so it touches the contended word only once. Slow paths (a new tick read precisely, an
// exhausted sequence, a clock regression, a ceiling) take a mutex to decide,
// and still reserve by compare-and-swap; they never sleep holding it.
//
// # Time
//
// Reading a clock costs as much as issuing several IDs, so the fast path
// reads a cached reading of floe.SystemClock or floe.MonotonicClock that a
// background goroutine refreshes about once a millisecond while generators
// are busy and stops refreshing after they go idle. A cached reading only
// lags; whenever the cache is not enough to decide (the sequence ran out, the
// reading is far behind the last tick) the core reads the clock itself.
// Injected clocks (tests) are read on every call.
//
// # Bounds
//
// The core never issues a tick above its reservation ceiling (when it has
// one), never a tick at or below its starting floor, never a tick above the
// format's last tick, and never more than MaxAhead in front of the clock.
package clockseq
