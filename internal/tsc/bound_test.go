package tsc

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// soakEnv, set to a duration ("5m"), makes TestNow_Bound run that long
// instead of about a second.
const soakEnv = "FLOE_TSC_SOAK"

// TestNow_Bound reads Now between two readings of the monotonic clock, from
// twice as many goroutines as processors, each locked to a thread that it
// moves to another processor every few thousand readings, beside a
// goroutine per processor that only burns CPU. Every reading must lie
// within Bound of the interval of the two monotonic readings around it,
// and no goroutine may see a reading decrease, nor one below a reading that
// another goroutine published before. It reports the largest errors seen.
func TestNow_Bound(t *testing.T) {
	run := time.Second
	if s := os.Getenv(soakEnv); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("%s=%q: %v", soakEnv, s, err)
		}
		run = d
	}
	on, why := Using()
	t.Logf("counter in use: %v %s", on, why)

	var (
		stop      atomic.Bool
		published atomic.Int64 // a reading some goroutine took, for others to follow
		wg        sync.WaitGroup
		mu        sync.Mutex
		total     result
	)
	procs := runtime.GOMAXPROCS(0)
	for range procs {
		wg.Go(func() {
			x := uint64(1)
			for !stop.Load() {
				for range 1 << 16 {
					x = x*6364136223846793005 + 1442695040888963407
				}
			}
			_ = x
		})
	}
	for g := range 2 * procs {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var r result
			last := int64(-1 << 63)
			for i := 0; !stop.Load(); i++ {
				if i%4096 == 0 {
					if moveTo((g + i/4096) % runtime.NumCPU()) {
						r.moves++
					}
				}
				seen := published.Load()
				before := Precise()
				got := Now()
				after := Precise()
				r.reads++
				r.ahead = max(r.ahead, got-after)
				r.behind = max(r.behind, before-got)
				if got < last {
					r.decreases++
				}
				if got < seen {
					r.behindPublished = max(r.behindPublished, seen-got)
				}
				last = got
				if i%64 == 0 {
					published.Store(got)
				}
			}
			mu.Lock()
			total.add(r)
			mu.Unlock()
		})
	}
	time.Sleep(run)
	stop.Store(true)
	wg.Wait()
	t.Logf("%d readings over %v, %d moves between processors; largest error: ahead %v, behind %v; behind a published reading: %v",
		total.reads, run, total.moves, time.Duration(total.ahead), time.Duration(total.behind), time.Duration(total.behindPublished))
	if total.ahead > int64(Bound) || total.behind > int64(Bound) {
		t.Errorf("largest error ahead %v, behind %v: above the bound %v", time.Duration(total.ahead), time.Duration(total.behind), Bound)
	}
	if total.decreases > 0 {
		t.Errorf("%d readings below the goroutine's previous one", total.decreases)
	}
	if total.behindPublished > 0 {
		t.Errorf("a reading %v below one published before it", time.Duration(total.behindPublished))
	}
}

// result is what TestNow_Bound's goroutines saw.
type result struct {
	reads, moves, decreases int
	ahead, behind           int64 // ns, the largest
	behindPublished         int64 // ns, the largest
}

func (r *result) add(o result) {
	r.reads += o.reads
	r.moves += o.moves
	r.decreases += o.decreases
	r.ahead = max(r.ahead, o.ahead)
	r.behind = max(r.behind, o.behind)
	r.behindPublished = max(r.behindPublished, o.behindPublished)
}
