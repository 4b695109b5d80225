package sequencer

import (
	"context"
	"slices"
	"strconv"
)

// State is where a Sequencer stands. See the package documentation for
// the table of states and transitions.
type State uint8

// The states.
const (
	// Claiming: attached, holding no worker ID yet: claiming one in the
	// background (after Open or Attach with every ID held, after a lost
	// lease or a failed claim).
	Claiming State = iota
	// Serving: attached, holding a worker ID; Next issues IDs (unless
	// Ready says otherwise: a reservation that cannot be extended, a clock
	// behind the previous holder's reservation).
	Serving
	// Detached: Detach released the worker ID; Attach claims again.
	Detached
	// Destroyed: the sequence was destroyed cluster-wide. Final.
	Destroyed
	// Closed: Close or Orphan ended the sequencer. Final.
	Closed
)

var stateNames = [...]string{Claiming: "claiming", Serving: "serving", Detached: "detached", Destroyed: "destroyed", Closed: "closed"}

// String returns the state's lower-case name.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// Attached reports whether s is Claiming or Serving: the sequencer holds a
// worker ID or claims one.
func (s State) Attached() bool { return s == Claiming || s == Serving }

// reason is why a sequencer does not serve.
type reason struct {
	text  string
	cause error
}

func (s *Sequencer) setWhy(text string, cause error) {
	s.why.Store(&reason{text, cause})
}

// State returns the sequencer's state and, unless it is Serving, why it
// does not serve.
func (s *Sequencer) State() (State, string) {
	st := s.state()
	if st == Serving {
		return st, ""
	}
	return st, s.why.Load().text
}

func (s *Sequencer) state() State {
	switch {
	case s.closed.Load():
		return Closed
	case s.destroyed.Load():
		return Destroyed
	case !s.attached.Load():
		return Detached
	case s.term.Load() != nil:
		return Serving
	}
	return Claiming
}

// Changes returns a channel that is closed at the next change of State.
// Take a new channel after each change.
func (s *Sequencer) Changes() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// notifyLocked closes the channel of Changes and makes the next; s.mu is
// held.
func (s *Sequencer) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Sequencer) notify() {
	s.mu.Lock()
	s.notifyLocked()
	s.mu.Unlock()
}

// Wait waits until the sequencer is in one of states and returns it. It
// returns early with ctx's error, or with a *NotReadyError when the
// sequencer reaches a final state (Destroyed, Closed) not in states.
func (s *Sequencer) Wait(ctx context.Context, states ...State) (State, error) {
	for {
		ch := s.Changes()
		st := s.state()
		if slices.Contains(states, st) {
			return st, nil
		}
		if st == Destroyed || st == Closed {
			return st, s.notReady()
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return st, ctx.Err()
		}
	}
}

// notReady returns the *NotReadyError of the sequencer's state.
func (s *Sequencer) notReady() error {
	st := s.state()
	why := s.why.Load()
	text := why.text
	if st == Serving {
		// A term began since the caller looked; it may try again.
		text = "the worker ID changed hands during the call"
	}
	return &NotReadyError{Name: s.name, State: st, Reason: text, Err: why.cause}
}
