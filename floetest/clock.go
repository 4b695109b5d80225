package floetest

import (
	"sync"
	"time"
)

// Clock is a fake floe.Clock. It reads what it was last set to and moves
// only when told: by Set, Step, Rewind, or by a generator waiting on it
// (Sleep advances it). The zero Clock reads the Unix epoch; use NewClock.
//
// A Clock is safe for concurrent use.
type Clock struct {
	mu     sync.Mutex
	now    time.Time     // guarded by mu
	slept  time.Duration // guarded by mu
	sleeps int           // guarded by mu
}

// NewClock returns a Clock that reads t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t, forwards or backwards.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// Step moves the clock forward by d (backwards when d is negative).
func (c *Clock) Step(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Rewind moves the clock backwards by d, as an NTP step or a VM migration
// would.
func (c *Clock) Rewind(d time.Duration) { c.Step(-d) }

// Sleep advances the clock by d instead of sleeping, and records the wait.
// Generators call it while they wait for the clock (floe.Sleeper).
func (c *Clock) Sleep(d time.Duration) {
	if d <= 0 {
		d = time.Nanosecond // a waiter must see time move, or it would spin
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.slept += d
	c.sleeps++
	c.mu.Unlock()
}

// Slept returns the total time generators waited on the clock and the number
// of waits.
func (c *Clock) Slept() (total time.Duration, count int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.slept, c.sleeps
}
