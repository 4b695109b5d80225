package redisgen

import (
	"errors"
	"testing"
	"time"

	"github.com/floeid/floe"
)

func TestScriptError(t *testing.T) {
	tests := []struct {
		reply string
		is    error
	}{
		{"FLOE_EXHAUSTED 250 the sequence of this tick is spent", ErrExhausted},
		{"FLOE_BACKWARDS 3600000000 the Redis clock is behind the last tick issued", floe.ErrClockBackwards},
		{"FLOE_NOSHARD shard key k is not set", ErrNoShard},
		{"FLOE_BADSHARD shard key k holds x", ErrBadShard},
		{"FLOE_LAYOUT state key s was written under layout a", ErrLayoutMismatch},
		{"FLOE_TIME_EXHAUSTED the layout time has run out", floe.ErrTimeExhausted},
		{"FLOE_BEFORE_EPOCH the Redis clock reads before the layout epoch", floe.ErrClockBackwards},
	}
	for _, tc := range tests {
		if err := scriptError(errors.New(tc.reply)); !errors.Is(err, tc.is) {
			t.Errorf("%q: got %v, want %v", tc.reply, err, tc.is)
		}
	}
	var ex *exhaustedError
	if err := scriptError(errors.New("FLOE_EXHAUSTED 250 x")); !errors.As(err, &ex) || ex.wait != 250*time.Microsecond {
		t.Errorf("exhausted wait: %v", err)
	}
	var ce *floe.ClockError
	if err := scriptError(errors.New("FLOE_BACKWARDS 2000000 x")); !errors.As(err, &ce) || ce.Behind != 2*time.Second {
		t.Errorf("clock error: %v", err)
	}
	other := errors.New("ERR something else")
	if err := scriptError(other); err != other {
		t.Errorf("unknown reply changed: %v", err)
	}
}

// FuzzScriptError feeds arbitrary error replies to the parser: it must
// never panic, and a malformed wait must not become a negative one.
func FuzzScriptError(f *testing.F) {
	for _, s := range []string{"FLOE_EXHAUSTED 250 x", "FLOE_EXHAUSTED -5", "FLOE_EXHAUSTED", "FLOE_BACKWARDS abc", "", " "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		err := scriptError(errors.New(reply))
		if err == nil {
			t.Fatal("nil error")
		}
		var ex *exhaustedError
		if errors.As(err, &ex) && ex.wait < 0 {
			t.Fatalf("%q: negative wait %v", reply, ex.wait)
		}
	})
}
