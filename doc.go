// Package floe holds the vocabulary shared by floe's ID formats and
// generators: the [Clock] that generators read, the clock [Policy] that
// decides what happens when that clock runs backwards, the errors generators
// return and the [Stats] they keep.
//
// The formats live in their own packages:
//
//   - id64: 64-bit Snowflake IDs with configurable layouts (Twitter/noeqd,
//     Snowcast, icicle 1.x and 2.x, Instagram, Discord, redisgen, or any
//     layout written out as text);
//   - id80: 80-bit IDs, bit- and text-compatible with muyo/sno;
//   - id96: 96-bit k-ordered IDs, bit- and text-compatible with fogfish/guid.
//
// All of them share one core that issues (tick, sequence) pairs, lock-free
// while callers do not collide, and never issues the same pair twice: not
// across goroutines, clock steps backwards, a restart above a recorded
// floor, or a reservation ceiling that stops the generator before it could
// overlap another holder of its worker ID.
//
// The library packages use the standard library only and never log.
package floe
