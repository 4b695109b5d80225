package floe

import "time"

// Stats counts what a generator has done since it was created. Every field
// only grows. A Stats value is a copy; take a new one to see later counts.
type Stats struct {
	// Issued is the number of IDs handed out.
	Issued uint64 `json:"issued"`
	// Regressions counts the times the clock was read behind the last tick
	// issued (after a second, fresh reading confirmed it).
	Regressions uint64 `json:"regressions"`
	// Waits counts calls that blocked: on a regression under Wait or Borrow,
	// on an exhausted sequence, or below a starting floor.
	Waits uint64 `json:"waits"`
	// WaitTime is the total time callers spent blocked.
	WaitTime time.Duration `json:"wait_time"`
	// Borrowed counts ticks issued ahead of the clock under Borrow.
	Borrowed uint64 `json:"borrowed"`
	// Exhausted counts ticks whose sequence ran out while callers wanted more.
	Exhausted uint64 `json:"exhausted"`
	// TickTocks counts timeline switches under TickTock.
	TickTocks uint64 `json:"ticktocks"`
	// CeilingHits counts calls refused because the next tick lay above the
	// reservation ceiling.
	CeilingHits uint64 `json:"ceiling_hits"`
}

// Overflow tells that callers stalled on an exhausted sequence. A generator
// sends at most one per tick, without blocking: a full channel drops it.
type Overflow struct {
	// Now is the time of the tick whose sequence ran out.
	Now time.Time
	// Count is the number of calls stalled when it was sent.
	Count uint32
	// Ticks counts the ticks the current overflow has lasted, this one
	// included. A count that keeps rising means demand is over capacity.
	Ticks uint32
}
