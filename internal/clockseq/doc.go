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
// once per tick, so it touches the contended word only once. Slow paths (a new tick, an
// exhausted sequence, a clock regression, a ceiling) take a mutex to decide,
// and still reserve by compare-and-swap; they never sleep holding it.
//
// # Time
//
// Every call reads the clock: an ID names the tick in which it was issued,
// so its lag behind a reading taken just before the call is below one tick
// but for the time the call itself takes. floe.MonotonicClock, the default,
// costs about 10 ns a reading where it reads the processor's counter (within
// 4 µs of the monotonic clock, a bound it enforces) and about 25 ns where it
// reads the monotonic clock; a Seq whose ticks are shorter than 25 times
// that bound reads the monotonic clock itself. A cached reading refreshed in the background was cheaper, but its lag had
// no bound the code could enforce: a refresher starved of CPU by busy
// callers lagged by 10 ms and more.
//
// # Bounds
//
// The core never issues a tick above its reservation ceiling (when it has
// one), never a tick at or below its starting floor, never a tick above the
// format's last tick, and never more than MaxAhead in front of the clock.
package clockseq
