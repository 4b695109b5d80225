package floetest

import (
	"fmt"
	"sync"
)

// Checker records IDs from any number of goroutines and reports the first
// duplicate. Use one per test; K is the ID type (id64.ID, id80.ID, id96.ID or
// any comparable value).
//
// A Checker is safe for concurrent use.
type Checker[K comparable] struct {
	mu   sync.Mutex
	seen map[K]struct{} // guarded by mu
	dup  []K            // guarded by mu
}

// NewChecker returns a Checker sized for about n IDs.
func NewChecker[K comparable](n int) *Checker[K] {
	return &Checker[K]{seen: make(map[K]struct{}, n)}
}

// Add records ids and reports whether all of them were new.
func (c *Checker[K]) Add(ids ...K) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	ok := true
	for _, id := range ids {
		if _, dup := c.seen[id]; dup {
			c.dup = append(c.dup, id)
			ok = false
			continue
		}
		c.seen[id] = struct{}{}
	}
	return ok
}

// Len returns the number of distinct IDs recorded.
func (c *Checker[K]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

// Err returns nil when no ID was recorded twice, else an error naming the
// duplicates (at most ten of them).
func (c *Checker[K]) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.dup) == 0 {
		return nil
	}
	shown := c.dup[:min(len(c.dup), 10)]
	return fmt.Errorf("floetest: %d duplicate IDs among %d: %v", len(c.dup), len(c.seen)+len(c.dup), shown)
}

// Unique returns nil when ids holds no value twice, else an error naming the
// first repeated value and both of its positions.
func Unique[K comparable](ids []K) error {
	first := make(map[K]int, len(ids))
	for i, id := range ids {
		if j, ok := first[id]; ok {
			return fmt.Errorf("floetest: duplicate ID %v at positions %d and %d", id, j, i)
		}
		first[id] = i
	}
	return nil
}

// Increasing returns nil when every ID in ids is strictly greater than the
// one before it under cmp (such as id64.ID.Compare), else an error naming the
// first pair out of order.
func Increasing[K any](ids []K, cmp func(a, b K) int) error {
	for i := 1; i < len(ids); i++ {
		if cmp(ids[i-1], ids[i]) >= 0 {
			return fmt.Errorf("floetest: ID %v at position %d is not above %v at position %d", ids[i], i, ids[i-1], i-1)
		}
	}
	return nil
}
