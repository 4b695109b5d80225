package clockseq

import (
	"sync"
	"testing"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
)

// Callers taking turns under the crowd's mutex, beside callers on the
// lock-free path while the turns start and stop, issue unique pairs that
// increase in each goroutine and name the tick of the call.
func TestSeq_Crowded(t *testing.T) {
	tests := []struct {
		name   string
		start  bool // turns from the first call
		toggle bool // a goroutine starts and stops the turns throughout
	}{
		{"turns throughout", true, false},
		{"turns started and stopped while issuing", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSeq(t, Config{SeqBits: 8, Clock: floe.MonotonicClock})
			if !s.add {
				t.Fatal("the Add path is off; the test would not reach the turns")
			}
			s.crowded.Store(tt.start)
			stop := make(chan struct{})
			var toggler sync.WaitGroup
			if tt.toggle {
				toggler.Go(func() {
					for on := true; ; on = !on {
						select {
						case <-stop:
							return
						default:
						}
						s.crowded.Store(on)
					}
				})
			}
			floetest.Hammer(t, 4, 20000, func() (pair, error) {
				before := s.TickOf(floe.MonotonicClock.Now().UnixNano())
				tick, seq, err := s.Next()
				after := s.TickOf(floe.MonotonicClock.Now().UnixNano())
				if err == nil && (int64(tick) < before || int64(tick) > after) {
					t.Errorf("tick %d outside the clock's %d..%d around the call", tick, before, after)
				}
				return pair{tick, seq}, err
			}, func(a, b pair) int {
				switch {
				case a.less(b):
					return -1
				case b.less(a):
					return 1
				}
				return 0
			})
			close(stop)
			toggler.Wait()
		})
	}
}

// Collisions on the lock-free path start the turns; a run of turns that
// find the mutex free ends them.
func TestSeq_CrowdStartsAndEnds(t *testing.T) {
	s := newSeq(t, Config{SeqBits: 22, Clock: floe.MonotonicClock})
	for i := range collidePerTurn {
		if s.crowded.Load() {
			t.Fatalf("turns started after %d collisions, want %d", i, collidePerTurn)
		}
		s.crowd.collided(s)
	}
	if !s.crowded.Load() {
		t.Fatalf("no turns after %d collisions", collidePerTurn)
	}
	for i := range calmTurns {
		if !s.crowded.Load() {
			t.Fatalf("turns ended after %d calm calls, want %d", i, calmTurns)
		}
		if _, _, err := s.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if s.crowded.Load() {
		t.Fatalf("turns go on after %d calm calls", calmTurns)
	}
}
