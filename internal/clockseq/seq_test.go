package clockseq

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// pair is one issued (tick, sequence), with the tick-tock bit in tick.
type pair struct{ tick, seq uint64 }

func newSeq(t *testing.T, cfg Config) *Seq {
	t.Helper()
	if cfg.Unit == 0 {
		cfg.Unit = int64(time.Millisecond)
	}
	if cfg.SeqBits == 0 {
		cfg.SeqBits = 4
	}
	if cfg.MaxTick == 0 {
		cfg.MaxTick = 1<<41 - 1
	}
	if cfg.Epoch == 0 {
		cfg.Epoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

func next(t *testing.T, s *Seq) pair {
	t.Helper()
	tick, seq, err := s.Next()
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return pair{tick, seq}
}

func (p pair) less(q pair) bool { return p.tick < q.tick || p.tick == q.tick && p.seq < q.seq }

func TestSeq_NextSameTickThenNewTick(t *testing.T) {
	clk := floetest.NewClock(t0)
	s := newSeq(t, Config{Clock: clk})
	want := uint64(s.TickOf(t0.UnixNano()))
	for i := range uint64(5) {
		if got := next(t, s); got != (pair{want, i}) {
			t.Fatalf("call %d: got %v, want %v", i, got, pair{want, i})
		}
	}
	clk.Step(3 * time.Millisecond)
	if got := next(t, s); got != (pair{want + 3, 0}) {
		t.Fatalf("after step: got %v, want %v", got, pair{want + 3, 0})
	}
	if got := s.Stats().Issued; got != 6 {
		t.Errorf("Issued = %d, want 6", got)
	}
}

func TestSeq_Exhaustion(t *testing.T) {
	for _, policy := range []floe.Policy{floe.Wait, floe.Fail, floe.TickTock} {
		t.Run(policy.String(), func(t *testing.T) {
			clk := floetest.NewClock(t0)
			notes := make(chan floe.Overflow, 4)
			s := newSeq(t, Config{Clock: clk, SeqBits: 2, Policy: policy, Overflow: notes})
			var last pair
			for i := range 9 {
				p := next(t, s)
				if i > 0 && !last.less(p) {
					t.Fatalf("call %d: %v not above %v", i, p, last)
				}
				last = p
			}
			// 9 IDs at 4 per tick: two waits for a new tick.
			if slept, n := clk.Slept(); n != 2 || slept > 2*time.Millisecond {
				t.Errorf("slept %v in %d waits, want 2 waits of at most a tick", slept, n)
			}
			st := s.Stats()
			if st.Exhausted != 2 || st.Waits != 2 || st.Issued != 9 {
				t.Errorf("stats = %+v, want 2 exhausted, 2 waits, 9 issued", st)
			}
			if len(notes) != 2 {
				t.Errorf("got %d overflow notices, want 2", len(notes))
			}
			if n := <-notes; n.Count != 1 || n.Ticks != 1 {
				t.Errorf("notice = %+v, want Count 1, Ticks 1", n)
			}
		})
	}
}

func TestSeq_Borrow(t *testing.T) {
	clk := floetest.NewClock(t0)
	s := newSeq(t, Config{Clock: clk, SeqBits: 2, Policy: floe.Borrow, MaxAhead: 3 * time.Millisecond})
	nowTick := uint64(s.TickOf(t0.UnixNano()))
	// 4 per tick, 3 ticks ahead allowed: 16 IDs without waiting.
	for i := range 16 {
		p := next(t, s)
		if want := nowTick + uint64(i/4); p.tick != want {
			t.Fatalf("call %d: tick %d, want %d", i, p.tick, want)
		}
	}
	if _, n := clk.Slept(); n != 0 {
		t.Fatalf("waited %d times before borrowing ran out", n)
	}
	p := next(t, s) // must wait until the clock is within 3 ticks of tick+4
	if ahead := p.tick - uint64(s.TickOf(clk.Now().UnixNano())); ahead > 3 {
		t.Errorf("tick %d is %d ticks ahead of the clock, max 3", p.tick, ahead)
	}
	if st := s.Stats(); st.Borrowed != 4 || st.Waits != 1 {
		t.Errorf("stats = %+v, want 4 borrowed, 1 wait", st)
	}
}

// TestSeq_Rewind rewinds the clock by 1 tick, 1 s and 1 h under every policy
// and checks each policy's promise and that no pair repeats.
func TestSeq_Rewind(t *testing.T) {
	type outcome int
	const (
		issues outcome = iota // keeps issuing without waiting
		waits                 // issues after waiting
		fails                 // returns a *floe.ClockError
	)
	tests := []struct {
		policy floe.Policy
		back   time.Duration
		want   outcome
	}{
		{floe.Wait, time.Millisecond, waits},
		{floe.Wait, time.Second, waits},
		{floe.Wait, time.Hour, fails},
		{floe.Fail, time.Millisecond, fails},
		{floe.Fail, time.Second, fails},
		{floe.Fail, time.Hour, fails},
		{floe.Borrow, time.Millisecond, issues},
		{floe.Borrow, time.Second, issues},
		{floe.Borrow, time.Hour, fails},
		{floe.TickTock, time.Millisecond, issues},
		{floe.TickTock, time.Second, issues},
		{floe.TickTock, time.Hour, issues},
	}
	for _, tc := range tests {
		t.Run(tc.policy.String()+" "+tc.back.String(), func(t *testing.T) {
			clk := floetest.NewClock(t0)
			s := newSeq(t, Config{Clock: clk, SeqBits: 3, Policy: tc.policy, MaxAhead: 2 * time.Second, MaxWait: 5 * time.Second})
			seen := map[pair]bool{}
			var last pair
			issue := func() (pair, error) {
				tick, seq, err := s.Next()
				p := pair{tick, seq}
				if err == nil {
					if seen[p] {
						t.Fatalf("pair %v issued twice", p)
					}
					seen[p] = true
				}
				return p, err
			}
			for range 20 {
				if _, err := issue(); err != nil {
					t.Fatal(err)
				}
				clk.Step(100 * time.Microsecond)
			}
			last, _ = issue()
			clk.Rewind(tc.back)
			_, before := clk.Slept()
			p, err := issue()
			_, after := clk.Slept()
			switch tc.want {
			case fails:
				var ce *floe.ClockError
				if !errors.As(err, &ce) || !errors.Is(err, floe.ErrClockBackwards) {
					t.Fatalf("got %v, want a *floe.ClockError", err)
				}
				// The clock is back by tc.back from the last ID, give or
				// take the ticks it issued ahead of the clock.
				if d := ce.Behind - tc.back; d < -5*time.Millisecond || d > 5*time.Millisecond || ce.Policy != tc.policy {
					t.Errorf("error = %+v, want Behind about %v", ce, tc.back)
				}
				return
			case waits:
				if err != nil || after == before {
					t.Fatalf("got %v, %v after %d waits; want an ID after waiting", p, err, after-before)
				}
			case issues:
				if err != nil || after != before {
					t.Fatalf("got %v, %v after %d waits; want an ID at once", p, err, after-before)
				}
			}
			if tc.policy != floe.TickTock && !last.less(p) {
				t.Errorf("%v after the rewind is not above %v", p, last)
			}
			if tc.policy == floe.TickTock && p.tick&1 == last.tick&1 {
				t.Errorf("tick-tock bit did not switch: %v then %v", last, p)
			}
			for range 100 { // keep going across the regressed period
				if _, err := issue(); err != nil {
					t.Fatal(err)
				}
				clk.Step(50 * time.Microsecond)
			}
			if got := s.Stats().Regressions; got != 1 && tc.policy != floe.Borrow {
				t.Errorf("Regressions = %d, want 1", got)
			}
		})
	}
}

func TestSeq_TickTockSecondRegressionWaits(t *testing.T) {
	clk := floetest.NewClock(t0)
	s := newSeq(t, Config{Clock: clk, Policy: floe.TickTock, Unit: int64(4 * time.Millisecond), MaxWait: time.Minute})
	first := next(t, s) // timeline 0 reaches t0
	clk.Rewind(time.Second)
	second := next(t, s) // timeline 1 from t0-1s
	if second.tick&1 == first.tick&1 {
		t.Fatalf("no switch: %v then %v", first, second)
	}
	clk.Rewind(time.Second) // into time timeline 0 used: must wait past t0
	third := next(t, s)
	// Once the clock passes what the first timeline used, issuing goes on
	// on the current timeline at the clock's time.
	if third.tick>>1 <= first.tick>>1 || third.tick&1 != second.tick&1 {
		t.Errorf("third %v: want above the first timeline's %v, on the timeline of %v", third, first, second)
	}
	if st := s.Stats(); st.TickTocks != 1 || st.Waits != 1 {
		t.Errorf("stats = %+v, want 1 tick-tock and 1 wait", st)
	}
}

func TestSeq_Floor(t *testing.T) {
	clk := floetest.NewClock(t0)
	base := uint64(0)
	probe := newSeq(t, Config{Clock: clk})
	base = uint64(probe.TickOf(t0.UnixNano()))
	floor := base + 500 // 500 ms ahead of the clock
	tests := []struct {
		policy floe.Policy
		err    bool
		wait   bool
	}{
		{floe.Wait, false, true},
		{floe.Borrow, false, false},
		{floe.Fail, true, false},
		{floe.TickTock, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.policy.String(), func(t *testing.T) {
			clk := floetest.NewClock(t0)
			s := newSeq(t, Config{Clock: clk, Floor: floor, Policy: tc.policy})
			tick, _, err := s.Next()
			if tc.err {
				if !errors.Is(err, floe.ErrClockBackwards) {
					t.Fatalf("got %v, want ErrClockBackwards", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.policy == floe.TickTock {
				tick >>= 1
			}
			if tick <= floor {
				t.Errorf("tick %d at or below floor %d", tick, floor)
			}
			if _, n := clk.Slept(); (n > 0) != tc.wait {
				t.Errorf("waited %d times, want waiting %v", n, tc.wait)
			}
		})
	}
}

func TestSeq_Ceiling(t *testing.T) {
	clk := floetest.NewClock(t0)
	probe := newSeq(t, Config{Clock: clk})
	now := uint64(probe.TickOf(t0.UnixNano()))
	s := newSeq(t, Config{Clock: clk, Reserved: true, Ceiling: now + 2, LowWater: 5 * time.Millisecond})
	for i := range 3 {
		p := next(t, s)
		if p.tick > now+2 {
			t.Fatalf("tick %d above ceiling %d", p.tick, now+2)
		}
		clk.Step(time.Millisecond)
		_ = i
	}
	select {
	case <-s.Need():
	default:
		t.Error("Need not signalled with headroom under LowWater")
	}
	_, _, err := s.Next()
	var ce *floe.CeilingError
	if !errors.As(err, &ce) || ce.Ceiling != now+2 || ce.Tick != now+3 {
		t.Fatalf("got %v, want CeilingError{tick %d, ceiling %d}", err, now+3, now+2)
	}
	s.RaiseCeiling(now + 1) // lowering is ignored
	if got := s.Ceiling(); got != now+2 {
		t.Errorf("Ceiling = %d after a lower raise, want %d", got, now+2)
	}
	s.RaiseCeiling(now + 10)
	if p := next(t, s); p.tick != now+3 {
		t.Errorf("after raising: tick %d, want %d", p.tick, now+3)
	}
	if got := s.Stats().CeilingHits; got != 1 {
		t.Errorf("CeilingHits = %d, want 1", got)
	}
}

func TestSeq_BorrowStopsAtCeiling(t *testing.T) {
	clk := floetest.NewClock(t0)
	probe := newSeq(t, Config{Clock: clk})
	now := uint64(probe.TickOf(t0.UnixNano()))
	s := newSeq(t, Config{Clock: clk, SeqBits: 1, Policy: floe.Borrow, Reserved: true, Ceiling: now + 1})
	for range 4 { // two ticks of two IDs: now and now+1
		if p := next(t, s); p.tick > now+1 {
			t.Fatalf("tick %d above ceiling", p.tick)
		}
	}
	if _, _, err := s.Next(); !errors.Is(err, floe.ErrCeiling) {
		t.Fatalf("got %v, want ErrCeiling", err)
	}
}

func TestSeq_SequenceBounds(t *testing.T) {
	clk := floetest.NewClock(t0)
	s := newSeq(t, Config{Clock: clk, SeqBits: 16, SeqMin: 100, SeqMax: 103})
	var got []uint64
	for range 6 {
		got = append(got, next(t, s).seq)
	}
	want := []uint64{100, 101, 102, 103, 100, 101}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sequences %v, want %v", got, want)
		}
	}
}

func TestSeq_Reserve(t *testing.T) {
	clk := floetest.NewClock(t0)
	s := newSeq(t, Config{Clock: clk, SeqBits: 4})
	tick, seq, n, err := s.Reserve(10)
	if err != nil || seq != 0 || n != 10 {
		t.Fatalf("Reserve(10) = %d, %d, %d, %v", tick, seq, n, err)
	}
	_, seq, n, _ = s.Reserve(10) // 6 left in the tick
	if seq != 10 || n != 6 {
		t.Fatalf("second Reserve(10) = seq %d count %d, want 10, 6", seq, n)
	}
	tick2, seq, n, _ := s.Reserve(100) // waits for the next tick, at most 16
	if tick2 != tick+1 || seq != 0 || n != 16 {
		t.Fatalf("third Reserve = tick %d seq %d count %d", tick2, seq, n)
	}
	if got := s.Stats().Issued; got != 32 {
		t.Errorf("Issued = %d, want 32", got)
	}
}

func TestSeq_TimeExhausted(t *testing.T) {
	clk := floetest.NewClock(t0)
	s := newSeq(t, Config{Clock: clk, MaxTick: 10}) // epoch 2020: long past tick 10
	if _, _, err := s.Next(); !errors.Is(err, floe.ErrTimeExhausted) {
		t.Fatalf("got %v, want ErrTimeExhausted", err)
	}
}

func TestSeq_ClockStopped(t *testing.T) {
	// A clock that never moves and cannot be slept on: a spent sequence
	// must fail after the wait bound, not hang.
	s := newSeq(t, Config{Clock: frozen{t0}, SeqBits: 1, MaxWait: 5 * time.Millisecond})
	next(t, s)
	next(t, s)
	if _, _, err := s.Next(); !errors.Is(err, floe.ErrClockBackwards) {
		t.Fatalf("got %v, want a clock error", err)
	}
}

type frozen struct{ t time.Time }

func (f frozen) Now() time.Time { return f.t }

func TestNew_Invalid(t *testing.T) {
	ok := Config{Unit: 1e6, SeqBits: 12, MaxTick: 1<<41 - 1}
	tests := []struct {
		name string
		edit func(*Config)
		want error
	}{
		{"zero unit", func(c *Config) { c.Unit = 0 }, ErrUnit},
		{"no sequence bits", func(c *Config) { c.SeqBits = 0 }, ErrSeqBits},
		{"too many sequence bits", func(c *Config) { c.SeqBits = 33 }, ErrSeqBits},
		{"min above max", func(c *Config) { c.SeqMin, c.SeqMax = 9, 3 }, ErrSeqRange},
		{"max outside field", func(c *Config) { c.SeqMax = 1 << 12 }, ErrSeqRange},
		{"no last tick", func(c *Config) { c.MaxTick = 0 }, ErrMaxTick},
		{"too wide", func(c *Config) { c.SeqBits = 32; c.Unit = 1; c.MaxTick = 1<<40 - 1 }, ErrTooWide},
		{"floor at the end", func(c *Config) { c.Floor = 1<<41 - 1 }, ErrFloor},
		{"negative wait", func(c *Config) { c.MaxWait = -1 }, ErrNegative},
		{"unknown policy", func(c *Config) { c.Policy = 9 }, floe.ErrUnknownPolicy},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			if _, err := New(c); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := New(ok); err != nil {
		t.Errorf("valid config: %v", err)
	}
}

func TestSeq_StateRestore(t *testing.T) {
	clk := floetest.NewClock(t0)
	s := newSeq(t, Config{Clock: clk})
	last := next(t, s)
	st := s.State()
	clk.Rewind(time.Second) // the restart happens "in the past"
	r := newSeq(t, Config{Clock: clk, Floor: st.Tick, Policy: floe.Borrow, MaxAhead: 2 * time.Second})
	if p := next(t, r); !last.less(p) {
		t.Errorf("restored Seq issued %v, not above %v", p, last)
	}
}

// TestSeq_Concurrent issues from many goroutines on the real, cached clock
// with a small sequence so that ticks run out, under each policy.
func TestSeq_Concurrent(t *testing.T) {
	for _, policy := range []floe.Policy{floe.Wait, floe.Fail, floe.Borrow, floe.TickTock} {
		t.Run(policy.String(), func(t *testing.T) {
			s := newSeq(t, Config{SeqBits: 6, Policy: policy})
			const workers, each = 8, 2000
			results := make([][]pair, workers)
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					var last pair
					for i := range each {
						tick, seq, err := s.Next()
						if err != nil {
							t.Error(err)
							return
						}
						p := pair{tick, seq}
						if i > 0 && policy != floe.TickTock && !last.less(p) {
							t.Errorf("worker %d: %v after %v", w, p, last)
							return
						}
						last = p
						results[w] = append(results[w], p)
					}
				})
			}
			wg.Wait()
			seen := floetest.NewChecker[pair](workers * each)
			for _, r := range results {
				seen.Add(r...)
			}
			if err := seen.Err(); err != nil {
				t.Fatal(err)
			}
			if got := s.Stats().Issued; got != workers*each {
				t.Errorf("Issued = %d, want %d", got, workers*each)
			}
		})
	}
}

// TestSeq_TicksTellTheTime checks that every ID names a tick between the
// clock's ticks just before and just after the call, from one goroutine and
// from several: never behind the clock, never ahead of it.
func TestSeq_TicksTellTheTime(t *testing.T) {
	for _, goroutines := range []int{1, 4} {
		s := newSeq(t, Config{SeqBits: 22, Clock: floe.MonotonicClock})
		var wg sync.WaitGroup
		for range goroutines {
			wg.Go(func() {
				for range 20000 {
					before := s.TickOf(floe.MonotonicClock.Now().UnixNano())
					tick, _, err := s.Next()
					if err != nil {
						t.Error(err)
						return
					}
					after := s.TickOf(floe.MonotonicClock.Now().UnixNano())
					if int64(tick) < before || int64(tick) > after {
						t.Errorf("%d goroutines: tick %d outside the clock's %d..%d around the call", goroutines, tick, before, after)
						return
					}
				}
			})
		}
		wg.Wait()
	}
}

func TestTickOf(t *testing.T) {
	s := newSeq(t, Config{Epoch: 1000, Unit: 10})
	tests := []struct {
		ns   int64
		want int64
	}{{1000, 0}, {1009, 0}, {1010, 1}, {999, -1}, {990, -1}, {989, -2}}
	for _, tc := range tests {
		if got := s.TickOf(tc.ns); got != tc.want {
			t.Errorf("TickOf(%d) = %d, want %d", tc.ns, got, tc.want)
		}
	}
}

func TestNew_AddPath(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want bool
	}{
		{"twitter: 41 tick bits, 12 sequence bits", Config{SeqBits: 12}, true},
		{"guid: 47 tick bits, 14 sequence bits", Config{SeqBits: 14, MaxTick: 1<<47 - 1}, true},
		{"one guard bit over 22 sequence bits: 2^22 overshoots", Config{SeqBits: 22}, true},
		{"no guard: 42 + 22 bits", Config{SeqBits: 22, MaxTick: 1<<42 - 1}, false},
		{"tick-tock", Config{SeqBits: 16, Policy: floe.TickTock}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := newSeq(t, tc.cfg).add; got != tc.want {
				t.Errorf("add = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSeq_RefusedBehindFloorIsARegression starts above a floor ahead of the
// clock: a wait within MaxWait is no regression, a refusal is one, counted
// once however many calls are refused, and again after the clock passed
// the floor and went back.
func TestSeq_RefusedBehindFloorIsARegression(t *testing.T) {
	probe := newSeq(t, Config{Clock: floetest.NewClock(t0)})
	base := uint64(probe.TickOf(t0.UnixNano()))
	tests := []struct {
		name   string
		policy floe.Policy
		ahead  time.Duration // floor ahead of the clock
		want   uint64        // regressions after three calls
	}{
		{"wait within max wait", floe.Wait, 500 * time.Millisecond, 0},
		{"wait an hour behind", floe.Wait, time.Hour, 1},
		{"borrow an hour behind", floe.Borrow, time.Hour, 1},
		{"fail behind", floe.Fail, 500 * time.Millisecond, 1},
		{"fail an hour behind", floe.Fail, time.Hour, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := floetest.NewClock(t0)
			floor := base + uint64(tc.ahead/time.Millisecond)
			s := newSeq(t, Config{Clock: clk, Floor: floor, Policy: tc.policy, MaxWait: 5 * time.Second, MaxAhead: time.Second})
			for range 3 {
				s.Next()
			}
			if got := s.Stats().Regressions; got != tc.want {
				t.Fatalf("after three calls %v behind the floor: Regressions = %d, want %d", tc.ahead, got, tc.want)
			}
			// Past the floor the calls succeed; set back an hour, the
			// refusals are a second regression.
			clk.Set(t0.Add(tc.ahead + time.Second))
			next(t, s)
			clk.Set(t0.Add(tc.ahead + time.Second - time.Hour))
			for range 3 {
				if _, _, err := s.Next(); err == nil {
					t.Fatal("issued an hour behind the last tick")
				}
			}
			if got, want := s.Stats().Regressions, tc.want+1; got != want {
				t.Errorf("after the clock went back: Regressions = %d, want %d", got, want)
			}
		})
	}
}
