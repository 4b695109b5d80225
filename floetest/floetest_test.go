package floetest_test

import (
	"cmp"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func TestClock(t *testing.T) {
	c := floetest.NewClock(t0)
	steps := []struct {
		name string
		do   func()
		want time.Time
	}{
		{"step", func() { c.Step(time.Second) }, t0.Add(time.Second)},
		{"rewind", func() { c.Rewind(time.Hour) }, t0.Add(time.Second - time.Hour)},
		{"set", func() { c.Set(t0) }, t0},
		{"sleep", func() { c.Sleep(5 * time.Millisecond) }, t0.Add(5 * time.Millisecond)},
		{"sleep of zero still moves", func() { c.Sleep(0) }, t0.Add(5*time.Millisecond + 1)},
	}
	for _, s := range steps {
		s.do()
		if got := c.Now(); !got.Equal(s.want) {
			t.Errorf("after %s: Now() = %v, want %v", s.name, got, s.want)
		}
	}
	if total, n := c.Slept(); total != 5*time.Millisecond+1 || n != 2 {
		t.Errorf("Slept() = %v, %d; want 5.000001ms, 2", total, n)
	}
}

func TestChecker(t *testing.T) {
	c := floetest.NewChecker[int](100)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 25 {
				c.Add(w*25 + i)
			}
		})
	}
	wg.Wait()
	if err := c.Err(); err != nil || c.Len() != 100 {
		t.Fatalf("Err() = %v, Len() = %d; want nil, 100", err, c.Len())
	}
	if c.Add(7, 101) {
		t.Error("Add of a repeated ID reported all new")
	}
	if err := c.Err(); err == nil {
		t.Error("Err() = nil after a duplicate")
	}
}

func TestUniqueIncreasing(t *testing.T) {
	tests := []struct {
		name       string
		ids        []int
		unique, up bool
	}{
		{"empty", nil, true, true},
		{"increasing", []int{1, 2, 5}, true, true},
		{"unordered", []int{1, 5, 2}, true, false},
		{"repeat", []int{1, 2, 2}, false, false},
		{"repeat apart", []int{3, 1, 3}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := floetest.Unique(tc.ids) == nil; got != tc.unique {
				t.Errorf("Unique = %v, want %v", got, tc.unique)
			}
			if got := floetest.Increasing(tc.ids, cmp.Compare[int]) == nil; got != tc.up {
				t.Errorf("Increasing = %v, want %v", got, tc.up)
			}
		})
	}
}

func ExampleClock() {
	c := floetest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c.Step(time.Second)
	c.Rewind(time.Hour) // an NTP step backwards
	fmt.Println(c.Now())
	// Output: 2025-12-31 23:00:01 +0000 UTC
}

func ExampleChecker() {
	c := floetest.NewChecker[uint64](3)
	c.Add(1, 2)
	c.Add(2)
	fmt.Println(c.Len(), c.Err())
	// Output: 2 floetest: 1 duplicate IDs among 3: [2]
}

func ExampleIncreasing() {
	fmt.Println(floetest.Increasing([]int{1, 3, 2}, cmp.Compare[int]))
	// Output: floetest: ID 2 at position 2 is not above 3 at position 1
}

func ExampleUnique() {
	fmt.Println(floetest.Unique([]string{"a", "b", "a"}))
	// Output: floetest: duplicate ID a at positions 0 and 2
}

func TestHammer(t *testing.T) {
	var mu sync.Mutex
	n := 0
	ids := floetest.Hammer(t, 4, 100, func() (int, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		return n, nil
	}, cmp.Compare[int])
	if len(ids) != 400 {
		t.Errorf("got %d IDs, want 400", len(ids))
	}
}

func ExampleHammer() {
	var t testing.T // in a test, the test's own *testing.T
	var mu sync.Mutex
	n := 0
	next := func() (int, error) { mu.Lock(); defer mu.Unlock(); n++; return n, nil }
	ids := floetest.Hammer(&t, 4, 250, next, cmp.Compare[int])
	fmt.Println(len(ids), t.Failed())
	// Output: 1000 false
}
