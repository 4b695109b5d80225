package floe

import "fmt"

// Policy says what a generator does when its clock reads a tick below the last
// one it issued (an NTP step, a VM migration, a restart above a recorded
// floor), and when a tick's sequence runs out.
//
// Whatever the policy, a generator never issues an ID twice: policies only
// trade availability against time accuracy.
type Policy uint8

const (
	// Wait blocks callers until the clock passes the last tick issued, up to
	// the generator's wait bound; past the bound the call fails with a
	// *ClockError. It is the default.
	Wait Policy = iota
	// Fail returns a *ClockError at once while the clock reads behind the
	// last tick issued (noeqd's behaviour). Sequence exhaustion within a tick
	// still waits for the next tick: it is not a clock fault.
	Fail
	// Borrow keeps issuing from the last tick, moving one tick ahead each time
	// the sequence runs out, at most MaxAhead in front of the clock; beyond
	// that it waits as Wait does. It also absorbs bursts above one tick's
	// sequence space.
	Borrow
	// TickTock toggles a timeline bit on a regression and keeps issuing at
	// the clock's (earlier) time on the other timeline, as muyo/sno does. A
	// second regression into a period the other timeline already used waits.
	// Only formats with a tick-tock bit (id80) accept it.
	TickTock
)

var policyNames = [...]string{Wait: "wait", Fail: "fail", Borrow: "borrow", TickTock: "ticktock"}

// String returns the policy's lower-case name: "wait", "fail", "borrow" or
// "ticktock".
func (p Policy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// ParsePolicy returns the policy named s, as String spells it.
func ParsePolicy(s string) (Policy, error) {
	for p, name := range policyNames {
		if s == name {
			return Policy(p), nil
		}
	}
	return 0, fmt.Errorf("%w: %q (want wait, fail, borrow or ticktock)", ErrUnknownPolicy, s)
}

// MarshalText implements encoding.TextMarshaler.
func (p Policy) MarshalText() ([]byte, error) {
	if int(p) >= len(policyNames) {
		return nil, fmt.Errorf("%w: %d", ErrUnknownPolicy, uint8(p))
	}
	return []byte(policyNames[p]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (p *Policy) UnmarshalText(b []byte) error {
	q, err := ParsePolicy(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}
