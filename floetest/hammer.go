package floetest

import (
	"sync"
	"testing"
)

// Hammer calls next from workers goroutines, each times per goroutine, and
// fails t when a call returns an error, when a goroutine's IDs do not
// strictly increase under cmp (nil skips that check), or when any ID comes
// back twice across all goroutines. It returns every ID issued.
func Hammer[K comparable](t testing.TB, workers, each int, next func() (K, error), cmp func(a, b K) int) []K {
	t.Helper()
	check := NewChecker[K](workers * each)
	out := make([][]K, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			ids := make([]K, 0, each)
			for range each {
				id, err := next()
				if err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
				ids = append(ids, id)
			}
			if cmp != nil {
				if err := Increasing(ids, cmp); err != nil {
					t.Errorf("worker %d: %v", w, err)
				}
			}
			check.Add(ids...)
			out[w] = ids
		})
	}
	wg.Wait()
	if err := check.Err(); err != nil {
		t.Error(err)
	}
	var all []K
	for _, ids := range out {
		all = append(all, ids...)
	}
	return all
}
