//go:build unix

package scenario_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/schedtest"
)

// A loadBound is the longest something may take from a moment on, as
// this machine ran since: idle, the bound on an idle machine, of which
// waits is waiting (a TTL, a request's timeout, a back-off) that load does
// not lengthen; the rest is work (round trips, process starts) that takes
// as much longer as schedtest measured the machine slower since the
// moment (stretch). On an idle machine it is idle itself, so that it still
// catches the defect it guards.
type loadBound struct {
	m     schedtest.Mark
	idle  time.Duration
	waits time.Duration
}

// boundFrom returns the bound idle, of which waits is waiting, from the
// moment m on.
func boundFrom(m schedtest.Mark, idle, waits time.Duration) loadBound {
	return loadBound{m: m, idle: idle, waits: min(waits, idle)}
}

// now returns the bound stretched by the slowdown measured since its
// mark, and that slowdown.
func (b loadBound) now() (time.Duration, float64) {
	s := b.m.Slowdown()
	return b.waits + time.Duration(float64(b.idle-b.waits)*s), s
}

// check reports whether d, measured from the mark, is within the bound as
// stretched now, and describes the bound for a message: the idle one and,
// when the load stretched it, the stretched one and the slowdown.
func (b loadBound) check(d time.Duration) (ok bool, want string) {
	stretched, s := b.now()
	return d <= stretched, describeBound(b.idle, stretched, s)
}

// describeBound names an idle-machine bound and, when they differ, the
// one stretched for a slowdown s.
func describeBound(idle, stretched time.Duration, s float64) string {
	if stretched <= idle {
		return idle.String()
	}
	return fmt.Sprintf("%v (%v at the measured slowdown %.1f)", idle, stretched.Round(time.Millisecond), s)
}

// deadline returns when the bound, as stretched now, ends: its mark's
// moment plus the stretched bound.
func (b loadBound) deadline() time.Time {
	d, _ := b.now()
	return b.m.At.Add(d)
}

// sleep sleeps until the bound ends (plus extra), stretched as the load
// goes on while it sleeps.
func (b loadBound) sleep(extra time.Duration) {
	for {
		left := time.Until(b.deadline().Add(extra))
		if left <= 0 {
			return
		}
		time.Sleep(min(left, 100*time.Millisecond))
	}
}

// waitFor polls cond until it holds or the bound (plus extra), stretched
// as the load goes on while it waits, has passed since the mark; it
// reports whether cond held.
func (b loadBound) waitFor(extra time.Duration, cond func() bool) bool {
	end := b.deadline().Add(extra)
	for n := 0; ; n++ {
		if cond() {
			return true
		}
		if n%10 == 9 {
			end = b.deadline().Add(extra)
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitServed waits for a batch from who that arrived at or after from,
// for as long as the bound b (plus extra) stretched, and returns it.
func (l *batchLog) waitServedWithin(who string, from time.Time, b loadBound, extra time.Duration) (batch, bool) {
	var got batch
	ok := b.waitFor(extra, func() bool { return l.first(who, from, &got) })
	return got, ok
}

// lastSent returns the latest time a request was sent of the batches from
// who that arrived at or after from and before to (a zero to for no
// end), and whether there was any. A "stops by" check compares it with
// its deadline: an ID for a request sent after the deadline was issued
// after it, however late the load made the reply, where one that merely
// arrived after it may have been issued in time.
func (l *batchLog) lastSent(who string, from, to time.Time) (time.Time, bool) {
	var last time.Time
	any := false
	for _, b := range l.received(who, from, to) {
		if !any || b.sent.After(last) {
			last = b.sent
		}
		any = true
	}
	return last, any
}

// waitNotReady polls p's /readyz up to d from start, until it answers not
// ready, and returns when the last poll that still saw p ready was sent,
// from start (0 if none did): p went not ready after that, however long
// the load kept the answer saying so. A poll that fails (no answer in
// time) says nothing either way.
func waitNotReady(p *floedproc.Proc, start time.Time, d time.Duration) (readyUntil time.Duration, ok bool) {
	return waitEnd(start, d, func() (known, holds bool) {
		code, _, err := p.Get("/readyz")
		return err == nil, code == http.StatusOK
	})
}

// waitEnd polls a state until a poll finds it over, up to d from start,
// and returns when the last poll that still found it was sent, from start
// (0 if none did), and whether one found it over. poll reports whether it
// could tell (a failed request cannot) and whether the state holds.
func waitEnd(start time.Time, d time.Duration, poll func() (known, holds bool)) (until time.Duration, ended bool) {
	for {
		sent := time.Now()
		known, holds := poll()
		switch {
		case !known:
		case holds:
			until = sent.Sub(start)
		default:
			return until, true
		}
		if time.Since(start) > d {
			return until, false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sentAfter returns the batches from who whose request was sent after t,
// whenever their reply arrived.
func (l *batchLog) sentAfter(who string, t time.Time) []batch {
	var out []batch
	for _, b := range l.all(who) {
		if b.sent.After(t) {
			out = append(out, b)
		}
	}
	return out
}
