package clockseq

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floeid/floe"
)

// Seq issues unique (tick, sequence) pairs. It is safe for concurrent use and
// must not be copied after first use.
type Seq struct {
	_     noCopy
	_     [64]byte      // keep the hot word off the line of whatever precedes the Seq,
	state atomic.Uint64 // the last pair reserved: tick<<tshift | tt<<ttPos | seq
	_     [64]byte      // and off the line of the fields below, which every call reads

	// Immutable after New.
	r        reading
	epoch    int64  // Unix ns of tick 0
	unit     int64  // ns per tick
	maxTick  uint64 // highest tick issued
	tshift   uint   // bits below the tick in the state word
	ttPos    uint   // position of the tick-tock bit
	seqMask  uint64 // the sequence field of the state word, guard bits included
	ttBit    uint64 // the tick-tock bit of the state word, 0 when unused
	add      bool   // the single-ID fast path may use Add (see New)
	seqMin   uint64
	seqMax   uint64
	policy   floe.Policy
	slack    int64  // ns a reading may lie before the last tick's start on the fast path (Borrow)
	ahead    uint64 // ticks Borrow may run ahead of the clock
	maxWait  time.Duration
	reserved bool
	lowWater uint64 // ticks of headroom under which Need is signalled
	overflow chan<- floe.Overflow
	crowded  atomic.Bool // single-ID reservations take turns (see crowd); read by every call, written rarely

	// hint is the state word of the current tick with its sequence field
	// cleared, and bit 0 set once the tick is spent. It changes once per
	// tick, so the single-ID fast path reads it from a line shared by all
	// cores and touches the contended state word with one load and one Add.
	hint atomic.Uint64
	_    [56]byte

	crowd crowd

	ceiling atomic.Uint64 // highest tick that may be issued, when reserved
	need    chan struct{} // signalled when the ceiling needs raising

	closed atomic.Uint64 // IDs issued in ticks already left (offset, see New)

	mu      sync.Mutex // guards the slow path's decisions and the fields below
	high    int64      // highest precise reading seen, Unix ns
	safe    uint64     // TickTock: highest tick the other timeline used
	inReg   bool       // in a regression episode (counted once)
	regTick uint64     // the last tick issued when the episode began
	stall   struct {
		count  uint32 // callers waiting on an exhausted sequence
		start  uint64 // tick the current overflow started in
		told   uint64 // last tick an overflow notice was sent for
		exhTck uint64 // last tick counted as exhausted
	}

	stats struct {
		regressions atomic.Uint64
		waits       atomic.Uint64
		waitNanos   atomic.Int64
		borrowed    atomic.Uint64
		exhausted   atomic.Uint64
		tickTocks   atomic.Uint64
		ceilingHits atomic.Uint64
	}
}

// noCopy makes go vet's copylocks check flag copies of a Seq.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// New returns a Seq for cfg.
func New(cfg Config) (*Seq, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Seq{
		r:        newReading(cfg.Clock, cfg.Unit),
		epoch:    cfg.Epoch,
		unit:     cfg.Unit,
		maxTick:  cfg.MaxTick,
		seqMin:   cfg.SeqMin,
		seqMax:   cfg.SeqMax,
		policy:   cfg.Policy,
		maxWait:  cfg.MaxWait,
		reserved: cfg.Reserved,
		overflow: cfg.Overflow,
		need:     make(chan struct{}, 1),
		safe:     max(cfg.Safe, cfg.Floor),
	}
	// The sequence field gets the state word's spare bits as a guard above
	// the format's sequence: a single-ID reservation then adds 1 to the word
	// (which never fails, unlike a compare-and-swap that contention makes
	// retry), and adds that overshoot a spent tick land in the guard, never
	// in the tick-tock bit or the tick. Such a reservation is valid only if
	// the sequence it got is at most seqMax. Only callers that saw room in
	// the tick add, so an overshoot needs that many callers caught between
	// their load and their add at once; with a guard of at least 2^16 the
	// Add path is on, otherwise every reservation is a compare-and-swap.
	tt := uint(0)
	if cfg.Policy == floe.TickTock {
		tt = 1
	}
	ext := 64 - uint(bits.Len64(cfg.MaxTick)) - tt
	s.seqMask = uint64(1)<<ext - 1
	s.add = s.seqMask-s.seqMax >= 1<<16 && tt == 0 // a timeline switch moves the word down, past the hint
	s.ttPos = ext
	s.tshift = ext + tt
	if tt == 1 {
		s.ttBit = uint64(1) << ext
	}
	s.ahead = max(1, uint64(cfg.MaxAhead)/uint64(cfg.Unit))
	if cfg.Policy == floe.Borrow {
		// A tick within ahead of the reading is within ahead of the clock.
		s.slack = int64(s.ahead) * s.unit
	}
	s.lowWater = uint64(cfg.LowWater) / uint64(cfg.Unit)
	s.ceiling.Store(cfg.Ceiling)
	// Start "exhausted at the floor": the first call must move to a tick
	// above it. The IDs of that virtual tick are subtracted from the count.
	timeline := uint64(0)
	if cfg.TickTock {
		timeline = s.ttBit
	}
	s.state.Store(cfg.Floor<<s.tshift | timeline | s.seqMax)
	s.closed.Store(-(s.seqMax - s.seqMin + 1))
	return s, nil
}

// Next reserves one pair. tick carries the tick-tock bit as its lowest bit
// under floe.TickTock (tick<<1 | tt), as sno's time block does.
func (s *Seq) Next() (tick, seq uint64, err error) {
	tick, seq, _, err = s.Reserve(1)
	return tick, seq, err
}

// Reserve reserves up to n (at least 1) consecutive sequence numbers of one
// tick: seq, seq+1, ..., seq+count-1, with 1 <= count <= n. Callers wanting
// more call again.
func (s *Seq) Reserve(n uint64) (tick, seq, count uint64, err error) {
	if n == 0 {
		n = 1
	}
	var now int64
	if n == 1 && s.add {
		var ok, reread bool
		if s.crowded.Load() {
			now, tick, seq, ok, reread = s.takeTurn()
		} else {
			now = s.r.now() - s.epoch
			tick, seq, ok, reread = s.fast(now, true)
		}
		if ok {
			return tick, seq, 1, nil
		}
		if reread {
			// Overshot: the tick is spent. A new reading may show a later
			// tick, which the loop below moves to without a lock.
			now = s.r.now() - s.epoch
		}
	} else {
		now = s.r.now() - s.epoch
	}
	for {
		st := s.state.Load()
		t := st >> s.tshift
		q := st & s.seqMask
		start := int64(t) * s.unit
		switch {
		case now >= start+s.unit:
			// The clock is in a later tick: move there.
			nt := uint64(now / s.unit)
			if nt > s.maxTick || s.reserved && nt > s.ceiling.Load() {
				return s.slow(n)
			}
			if count, ok := s.enter(st, nt, st&s.ttBit, n); ok {
				return s.tick(nt, st), s.seqMin, count, nil
			}
		case now+s.slack >= start && q < s.seqMax:
			// Same tick, or a reading close enough behind it.
			s.raiseHint(st)
			count = min(n, s.seqMax-q)
			if s.state.CompareAndSwap(st, st+count) {
				return s.tick(t, st), q + 1, count, nil
			}
		default:
			return s.slow(n)
		}
	}
}

// fast is the single-ID fast path: one Add to the state word when the hint
// shows room in the tick of reading now. ok reports a reservation; reread
// that the tick is spent and the caller should read the clock again. With
// watch, an Add that finds the word moved by another caller since its
// load counts towards crowding.
func (s *Seq) fast(now int64, watch bool) (tick, seq uint64, ok, reread bool) {
	h := s.hint.Load()
	start := int64(h>>s.tshift) * s.unit
	if h&1 != 0 || now >= start+s.unit || now+s.slack < start {
		return 0, 0, false, false
	}
	var before uint64
	if watch {
		before = s.state.Load()
	}
	v := s.state.Add(1)
	if watch && v != before+1 {
		s.crowd.collided(s)
	}
	if q := v & s.seqMask; q <= s.seqMax {
		// The word may have moved on since the hint; every word is one some
		// caller validated, and this sequence number in it is ours alone.
		return s.tick(v>>s.tshift, v), q, true, false
	}
	s.hint.CompareAndSwap(h, h|1)
	return 0, 0, false, true
}

// enter moves the state word from st to tick nt on timeline tt (the
// tick-tock bit as it sits in the word), reserving the first count of n
// sequence numbers there. ok is false when another caller changed the word
// first. It counts the IDs of the tick left behind, moves the hint and
// checks the headroom under the ceiling.
func (s *Seq) enter(st, nt, tt, n uint64) (count uint64, ok bool) {
	count = min(n, s.seqMax-s.seqMin+1)
	if !s.state.CompareAndSwap(st, nt<<s.tshift|tt|(s.seqMin+count-1)) {
		return 0, false
	}
	s.closed.Add(s.used(st & s.seqMask))
	s.raiseHint(nt<<s.tshift | tt)
	if s.reserved {
		s.checkHeadroom(nt)
	}
	return count, true
}

// tick returns t with the tick-tock bit of state word st.
func (s *Seq) tick(t, st uint64) uint64 {
	if s.ttBit == 0 {
		return t
	}
	return t<<1 | (st&s.ttBit)>>s.ttPos
}

// raiseHint moves the hint to the tick of state word st, unless it already
// names that tick or a later one. (Under TickTock, where a timeline switch
// moves the word down, the hint is not used.)
func (s *Seq) raiseHint(st uint64) {
	if !s.add {
		return // only the Add path reads the hint
	}
	w := st &^ s.seqMask
	for {
		h := s.hint.Load()
		if h&^1 >= w || s.hint.CompareAndSwap(h, w) {
			return
		}
	}
}

// used returns how many IDs a tick whose sequence field reads q handed out;
// q may lie above seqMax after adds that overshot.
func (s *Seq) used(q uint64) uint64 { return min(q, s.seqMax) - s.seqMin + 1 }

// Need is signalled when the ceiling is reached or, after a new tick, lies
// closer than LowWater. The owner raises it with RaiseCeiling.
func (s *Seq) Need() <-chan struct{} { return s.need }

// RaiseCeiling lets the Seq issue ticks up to c. A lower value than the
// current ceiling is ignored: a ceiling never comes down.
func (s *Seq) RaiseCeiling(c uint64) {
	for {
		old := s.ceiling.Load()
		if c <= old || s.ceiling.CompareAndSwap(old, c) {
			return
		}
	}
}

// Ceiling returns the highest tick the Seq may issue when reserved.
func (s *Seq) Ceiling() uint64 { return s.ceiling.Load() }

func (s *Seq) checkHeadroom(t uint64) {
	if c := s.ceiling.Load(); c < t || c-t < s.lowWater {
		s.signalNeed()
	}
}

func (s *Seq) signalNeed() {
	select {
	case s.need <- struct{}{}:
	default:
	}
}

// State is the Seq's position, for snapshots and restarts.
type State struct {
	Tick     uint64 // last tick issued (or the floor)
	Sequence uint64 // last sequence number issued in Tick
	TickTock bool   // timeline bit under TickTock
	Safe     uint64 // TickTock: highest tick the other timeline used
}

// State returns the Seq's position. Restoring with Floor = State().Tick never
// reissues a pair.
func (s *Seq) State() State {
	st := s.state.Load()
	s.mu.Lock()
	safe := s.safe
	s.mu.Unlock()
	return State{
		Tick:     st >> s.tshift,
		Sequence: min(st&s.seqMask, s.seqMax),
		TickTock: st&s.ttBit != 0,
		Safe:     safe,
	}
}

// Stats returns the Seq's counters.
func (s *Seq) Stats() floe.Stats {
	st := s.state.Load()
	return floe.Stats{
		Issued:      s.closed.Load() + s.used(st&s.seqMask),
		Regressions: s.stats.regressions.Load(),
		Waits:       s.stats.waits.Load(),
		WaitTime:    time.Duration(s.stats.waitNanos.Load()),
		Borrowed:    s.stats.borrowed.Load(),
		Exhausted:   s.stats.exhausted.Load(),
		TickTocks:   s.stats.tickTocks.Load(),
		CeilingHits: s.stats.ceilingHits.Load(),
	}
}

// TickOf returns the tick of Unix nanoseconds ns (negative before the epoch).
func (s *Seq) TickOf(ns int64) int64 {
	x := ns - s.epoch
	if x < 0 {
		return (x+1)/s.unit - 1
	}
	return x / s.unit
}

// TickStart returns the Unix nanoseconds at which tick t starts.
func (s *Seq) TickStart(t uint64) int64 { return s.epoch + int64(t)*s.unit }
