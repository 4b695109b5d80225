// Package schedtest measures how much slower than on an idle machine a
// test's processes ran, so that a test's time bound can follow the load of
// the machine it runs on instead of the machine it was written on.
//
// A bound such as "the standby serves within 3 s of the kill" holds for the
// code on an idle machine; on a machine whose CPUs other work keeps busy,
// every step of it (a claim's round trip, a timer's wake-up, a process
// start) waits for a CPU too. The kernel counts that wait: for each thread,
// the time it ran and the time it was runnable but waited for a CPU
// (/proc/<pid>/task/<tid>/schedstat). Their ratio over a window is the
// window's slowdown:
//
//	slowdown = (ran + waited) / ran
//
// which is 1 on an idle machine, and 5 to 10 for a test whose threads
// mostly sleep and wake when two CPUs run four busy loops beside it: each
// wake-up then waits for a CPU longer than its work takes. A test takes a Mark where its window starts and
// checks its measurement against Mark.Scale(bound): the bound itself on an
// idle machine, so that it still catches the defect it guards there, and a
// longer one only by as much as the machine was measured to be slower.
//
// The processes measured are this one and those given to Watch (the
// daemons a test started). Where the kernel does not tell (no /proc), the
// slowdown is 1: bounds are as written.
package schedtest

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// MaxSlowdown caps a slowdown: a thread that barely ran in a window (a
// few microseconds, against long waits) says little about the others.
const MaxSlowdown = 25

// minRan is the least run time a window must hold for its ratio to count;
// below it the slowdown is 1.
const minRan = 2 * time.Millisecond

var watched struct {
	mu   sync.Mutex
	pids map[int]bool // guarded by mu
}

// Watch adds the process pid to those measured, until Unwatch: a daemon
// the test started, whose work a bound covers as much as the test's own.
func Watch(pid int) {
	watched.mu.Lock()
	defer watched.mu.Unlock()
	if watched.pids == nil {
		watched.pids = make(map[int]bool)
	}
	watched.pids[pid] = true
}

// Unwatch removes pid from the processes measured.
func Unwatch(pid int) {
	watched.mu.Lock()
	defer watched.mu.Unlock()
	delete(watched.pids, pid)
}

// A Mark is the scheduler's counters of the measured processes at a
// moment: a window's start.
type Mark struct {
	At      time.Time
	threads map[string]counts // by /proc/<pid>/task/<tid>
}

// counts is one thread's schedstat: time run, time waited on a runqueue.
type counts struct{ ran, waited time.Duration }

// Now returns a Mark of this moment.
func Now() Mark { return Mark{At: time.Now(), threads: read()} }

// Slowdown returns how much slower than on an idle machine the measured
// processes ran since m: (ran + waited) / ran over their threads, between
// 1 and MaxSlowdown.
func (m Mark) Slowdown() float64 {
	now := read()
	var ran, waited time.Duration
	for k, c := range now {
		was := m.threads[k] // zero for a thread started since
		if c.ran < was.ran || c.waited < was.waited {
			continue // not the same thread: its tid was reused
		}
		ran += c.ran - was.ran
		waited += c.waited - was.waited
	}
	if ran < minRan {
		return 1
	}
	return min(MaxSlowdown, float64(ran+waited)/float64(ran))
}

// Scale returns bound stretched by the slowdown since m: the time within
// which what took bound on an idle machine ends on this one, as loaded as
// it was since m.
func (m Mark) Scale(bound time.Duration) time.Duration {
	return time.Duration(float64(bound) * m.Slowdown())
}

// Stretch returns the bound waits + work, its work scaled by the
// slowdown since m: waits are the parts of a bound that load does not
// lengthen (a TTL, a request's timeout, a back-off), work the parts it
// does (round trips, timers' wake-ups, process starts). On an idle
// machine it is waits + work, the bound as written.
func (m Mark) Stretch(waits, work time.Duration) time.Duration {
	return waits + m.Scale(work)
}

// Receive waits for ch until bound() has passed since start, asking
// bound again each time its wait ends (a stretched bound grows with the
// load it measures), and reports whether ch received in time.
func Receive[T any](ch <-chan T, start time.Time, bound func() time.Duration) (T, bool) {
	for {
		left := time.Until(start.Add(bound()))
		if left <= 0 {
			select {
			case v := <-ch:
				return v, true
			default:
				var zero T
				return zero, false
			}
		}
		timer := time.NewTimer(left)
		select {
		case v := <-ch:
			timer.Stop()
			return v, true
		case <-timer.C:
		}
	}
}

// Within reports whether d, measured from m, is within bound scaled by the
// slowdown since m, and returns the scaled bound for the test's message.
func (m Mark) Within(d, bound time.Duration) (bool, time.Duration) {
	if d <= bound {
		return true, bound
	}
	scaled := m.Scale(bound)
	return d <= scaled, scaled
}

// read returns the counters of every thread of the measured processes.
func read() map[string]counts {
	pids := []int{os.Getpid()}
	watched.mu.Lock()
	for pid := range watched.pids {
		pids = append(pids, pid)
	}
	watched.mu.Unlock()
	out := make(map[string]counts)
	for _, pid := range pids {
		dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name(), "schedstat")
			if c, ok := readSchedstat(p); ok {
				out[p] = c
			}
		}
	}
	return out
}

// readSchedstat reads "ran waited slices", in nanoseconds.
func readSchedstat(path string) (counts, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return counts{}, false
	}
	var f [2]int64
	i := 0
	for n := 0; n < 2; n++ {
		for i < len(b) && b[i] == ' ' {
			i++
		}
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		v, err := strconv.ParseInt(string(b[start:i]), 10, 64)
		if err != nil {
			return counts{}, false
		}
		f[n] = v
	}
	return counts{ran: time.Duration(f[0]), waited: time.Duration(f[1])}, true
}
