package clockseq

import (
	"fmt"
	"runtime"
	"time"

	"github.com/floeid/floe"
)

// spinBelow: waits shorter than this spin (yielding the processor) instead of
// sleeping, because a timer sleep on Linux overshoots by up to about a
// millisecond and would cost most of a 1 ms tick.
const spinBelow = 1300 * time.Microsecond

// sleepMargin is how much earlier than the target a long wait wakes up, to
// absorb the timer's overshoot; the rest of the wait spins.
const sleepMargin = 300 * time.Microsecond

// slow reserves under the mutex when the fast path cannot decide: a fresh
// reading settles whether to move to a new tick, borrow one, wait, switch
// timeline or refuse.
func (s *Seq) slow(n uint64) (tick, seq, count uint64, err error) {
	var (
		waitStart time.Time     // first wait of this call, real clocks
		waited    time.Duration // time waited so far
		stalled   bool          // counted in s.stall.count
	)
	defer func() {
		if stalled {
			s.mu.Lock()
			s.stall.count--
			s.mu.Unlock()
		}
		if waited > 0 {
			s.stats.waits.Add(1)
			s.stats.waitNanos.Add(int64(waited))
		}
	}()
	for {
		// Load the word before reading the clock: every tick in it came from
		// an earlier reading, so a tick above this reading means the clock
		// really went back (or Borrow or a floor put it ahead).
		s.mu.Lock()
		st := s.state.Load()
		now := s.r.now()
		d, exhaust, ok, t, q, c, err := s.decide(st, now, n, &stalled)
		s.mu.Unlock()
		if ok || err != nil {
			return t, q, c, err
		}
		if d == 0 {
			continue // lost a race for the state word: decide again
		}
		budget := s.maxWait
		if exhaust {
			budget = max(budget, 2*time.Duration(s.unit))
		}
		if waited+d > budget {
			behind := d
			if !exhaust {
				s.mu.Lock()
				s.refusedBehind(st)
				s.mu.Unlock()
				// How far the clock is behind, not how long it would take
				// to come within reach (Borrow reaches MaxAhead sooner).
				behind = time.Duration(s.TickStart(st>>s.tshift) - now)
			}
			return 0, 0, 0, &floe.ClockError{Policy: s.policy, Behind: behind, Waited: waited}
		}
		if s.r.sleeper != nil {
			s.r.sleeper.Sleep(d)
			waited += d
			continue
		}
		if waitStart.IsZero() {
			waitStart = time.Now()
		}
		if d > spinBelow {
			time.Sleep(d - sleepMargin)
		} else {
			runtime.Gosched()
		}
		waited = time.Since(waitStart)
	}
}

// decide runs under s.mu with the state word st and a precise reading now
// taken after it. It either reserves
// (ok), fails (err), or returns how long to wait before trying again (d;
// zero means retry at once). exhaust tells a wait for the next tick after an
// exhausted sequence from a wait for a clock that runs behind.
func (s *Seq) decide(st uint64, now int64, n uint64, stalled *bool) (d time.Duration, exhaust, ok bool, tick, seq, count uint64, err error) {
	nowTick := s.TickOf(now)
	if now < s.high && nowTick < s.TickOf(s.high) {
		if !s.inReg {
			s.inReg = true
			s.regTick = st >> s.tshift
			s.stats.regressions.Add(1)
		}
	} else {
		s.high = max(s.high, now)
		s.inReg = false
	}

	t := st >> s.tshift
	q := st & s.seqMask
	tt := st & s.ttBit
	behind := nowTick < int64(t)

	switch {
	case !behind && nowTick > int64(t):
		// A later tick.
		nt := uint64(nowTick)
		if err := s.check(nt); err != nil {
			return 0, false, false, 0, 0, 0, err
		}
		count, ok := s.enter(st, nt, tt, n)
		if !ok {
			return 0, false, false, 0, 0, 0, nil
		}
		return 0, false, true, s.tick(nt, st), s.seqMin, count, nil

	case q < s.seqMax && (!behind || s.policy == floe.Borrow && uint64(int64(t)-nowTick) <= s.ahead):
		// Room in the current tick, and the clock is in it (or Borrow may
		// stay this far ahead).
		count = min(n, s.seqMax-q)
		if !s.state.CompareAndSwap(st, st+count) {
			return 0, false, false, 0, 0, 0, nil
		}
		return 0, false, true, s.tick(t, st), q + 1, count, nil

	case !behind:
		// The clock is in tick t and its sequence is spent.
		if s.policy == floe.Borrow {
			return s.borrow(st, n)
		}
		s.exhausted(t, now, stalled)
		return time.Duration(s.TickStart(t+1) - now), true, false, 0, 0, 0, nil
	}

	// The clock reads behind the last tick issued.
	switch s.policy {
	case floe.Fail:
		s.refusedBehind(st)
		return 0, false, false, 0, 0, 0, &floe.ClockError{Policy: s.policy, Behind: time.Duration(s.TickStart(t) - now)}
	case floe.Borrow:
		if q >= s.seqMax && uint64(int64(t)+1-nowTick) <= s.ahead {
			return s.borrow(st, n)
		}
		// Too far ahead: wait until the clock is within reach.
		target := t
		if q >= s.seqMax {
			target++
		}
		reach := uint64(0)
		if target > s.ahead {
			reach = target - s.ahead
		}
		return time.Duration(s.TickStart(reach) - now), false, false, 0, 0, 0, nil
	case floe.TickTock:
		if nowTick > int64(s.safe) {
			// Switch to the other timeline, which never reached nowTick.
			other := tt ^ s.ttBit
			count, ok := s.enter(st, uint64(nowTick), other, n)
			if !ok {
				return 0, false, false, 0, 0, 0, nil
			}
			s.safe = t
			s.stats.tickTocks.Add(1)
			return 0, false, true, s.tick(uint64(nowTick), other), s.seqMin, count, nil
		}
		// A second regression into time the other timeline used: wait.
		return time.Duration(s.TickStart(s.safe+1) - now), false, false, 0, 0, 0, nil
	default: // Wait
		target := t
		if q >= s.seqMax {
			target++
		}
		return time.Duration(s.TickStart(target) - now), false, false, 0, 0, 0, nil
	}
}

// refusedBehind runs under s.mu when a call is refused because the clock
// reads behind the tick of state word st: the last tick issued, or the
// floor a restart began above (the clock set back across the restart, or
// a floor from a clock that ran ahead). That tick counts as a reading
// seen, so the refusal is a regression, counted once until the clock
// passes it again, however many calls are refused meanwhile.
//
// The fast path never ends an episode (it does not look at s.high), so a
// refusal behind a tick above the episode's is a new one: IDs were issued
// above the tick the clock was behind, so it had caught up since (or
// Borrow ran ahead again, and the clock fell behind that).
func (s *Seq) refusedBehind(st uint64) {
	t := st >> s.tshift
	if !s.inReg || t > s.regTick {
		s.stats.regressions.Add(1)
	}
	s.inReg = true
	s.regTick = max(s.regTick, t)
	s.high = max(s.high, s.TickStart(t))
}

// borrow moves from the spent tick of st to the next one, ahead of the clock.
func (s *Seq) borrow(st, n uint64) (time.Duration, bool, bool, uint64, uint64, uint64, error) {
	t := st>>s.tshift + 1
	if err := s.check(t); err != nil {
		return 0, false, false, 0, 0, 0, err
	}
	count, ok := s.enter(st, t, st&s.ttBit, n)
	if !ok {
		return 0, false, false, 0, 0, 0, nil
	}
	s.stats.borrowed.Add(1)
	return 0, false, true, s.tick(t, st), s.seqMin, count, nil
}

// check refuses a tick past the format's end or the reservation ceiling.
func (s *Seq) check(t uint64) error {
	if t > s.maxTick {
		return fmt.Errorf("%w: tick %d above the last tick %d", floe.ErrTimeExhausted, t, s.maxTick)
	}
	if s.reserved {
		if c := s.ceiling.Load(); t > c {
			s.stats.ceilingHits.Add(1)
			s.signalNeed()
			return &floe.CeilingError{Tick: t, Ceiling: c}
		}
	}
	return nil
}

// exhausted records a caller stalling on the spent sequence of tick t, and
// sends at most one overflow notice per tick.
func (s *Seq) exhausted(t uint64, now int64, stalled *bool) {
	if !*stalled {
		*stalled = true
		s.stall.count++
		if s.stall.count == 1 {
			s.stall.start = t
		}
	}
	if s.stall.exhTck != t+1 {
		s.stall.exhTck = t + 1
		s.stats.exhausted.Add(1)
	}
	if s.overflow == nil || s.stall.told == t+1 {
		return
	}
	s.stall.told = t + 1
	ticks := uint32(1)
	if t >= s.stall.start {
		ticks = uint32(min(t-s.stall.start+1, 1<<32-1))
	}
	select {
	case s.overflow <- floe.Overflow{Now: time.Unix(0, now), Count: s.stall.count, Ticks: ticks}:
	default:
	}
}
