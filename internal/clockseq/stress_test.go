package clockseq

import (
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
)

// TestSeq_ClockChaos issues from many goroutines while another one steps the
// fake clock forwards and backwards at random, by up to a few ticks or up to
// seconds, under every policy. Calls may fail as the policy says; no pair may
// ever be issued twice, and under TickTock no timeline may reuse a tick the
// other had used.
func TestSeq_ClockChaos(t *testing.T) {
	for _, policy := range []floe.Policy{floe.Wait, floe.Fail, floe.Borrow, floe.TickTock} {
		t.Run(policy.String(), func(t *testing.T) {
			clk := floetest.NewClock(t0)
			s := newSeq(t, Config{Clock: clk, SeqBits: 3, Policy: policy, MaxAhead: 20 * time.Millisecond, MaxWait: 50 * time.Millisecond})
			var stop atomic.Bool
			var chaos sync.WaitGroup
			chaos.Go(func() {
				r := rand.New(rand.NewPCG(1, uint64(policy)))
				for !stop.Load() {
					switch d := time.Duration(r.IntN(8)) * time.Millisecond; r.IntN(10) {
					case 0:
						clk.Rewind(time.Duration(r.IntN(3000)) * time.Millisecond)
					case 1, 2, 3:
						clk.Rewind(d)
					default:
						clk.Step(d)
					}
					time.Sleep(50 * time.Microsecond)
				}
			})
			const workers, each = 6, 3000
			check := floetest.NewChecker[pair](workers * each)
			var failures atomic.Int64
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					got := make([]pair, 0, each)
					for range each {
						tick, seq, err := s.Next()
						if err != nil {
							var ce *floe.ClockError
							if !errors.As(err, &ce) {
								t.Errorf("unexpected error: %v", err)
								return
							}
							failures.Add(1)
							continue
						}
						got = append(got, pair{tick, seq})
					}
					check.Add(got...)
				})
			}
			wg.Wait()
			stop.Store(true)
			chaos.Wait()
			if err := check.Err(); err != nil {
				t.Fatal(err)
			}
			st := s.Stats()
			if st.Issued != uint64(check.Len()) {
				t.Errorf("Issued = %d, but %d distinct pairs were returned", st.Issued, check.Len())
			}
			t.Logf("%d issued, %d refused, stats %+v", check.Len(), failures.Load(), st)
		})
	}
}
