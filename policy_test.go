package floe_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/floeid/floe"
)

func TestPolicy_TextRoundTrip(t *testing.T) {
	for _, p := range []floe.Policy{floe.Wait, floe.Fail, floe.Borrow, floe.TickTock} {
		b, err := p.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var got floe.Policy
		if err := got.UnmarshalText(b); err != nil || got != p {
			t.Errorf("round trip of %v: got %v, %v", p, got, err)
		}
	}
}

func TestParsePolicy_Invalid(t *testing.T) {
	for _, s := range []string{"", "Wait", "sleep", "borrow "} {
		if _, err := floe.ParsePolicy(s); !errors.Is(err, floe.ErrUnknownPolicy) {
			t.Errorf("ParsePolicy(%q) = %v, want ErrUnknownPolicy", s, err)
		}
	}
	if _, err := floe.Policy(9).MarshalText(); !errors.Is(err, floe.ErrUnknownPolicy) {
		t.Errorf("MarshalText of an unknown policy: %v", err)
	}
	if got, want := floe.Policy(9).String(), "Policy(9)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		is   error
		want string
	}{
		{"clock", &floe.ClockError{Policy: floe.Fail, Behind: 3 * time.Millisecond}, floe.ErrClockBackwards,
			"floe: clock is 3ms behind the last issued tick (policy fail)"},
		{"clock after waiting", &floe.ClockError{Policy: floe.Wait, Behind: time.Hour, Waited: time.Second}, floe.ErrClockBackwards,
			"floe: clock is 1h0m0s behind the last issued tick (policy wait, waited 1s)"},
		{"ceiling", &floe.CeilingError{Tick: 11, Ceiling: 10}, floe.ErrCeiling,
			"floe: reservation ceiling reached: tick 11 above ceiling 10"},
		{"parse", floe.NewParseError("id80", []byte("zz"), floe.ErrInvalidLength), floe.ErrInvalidLength,
			`floe: cannot parse "zz" as id80: invalid length 2`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
			if !errors.Is(tc.err, tc.is) {
				t.Errorf("%v is not %v", tc.err, tc.is)
			}
		})
	}
	long := floe.NewParseError("id64", make([]byte, 1000), floe.ErrInvalidLength)
	if len(long.Input) != 64 {
		t.Errorf("ParseError keeps %d bytes of input, want 64", len(long.Input))
	}
}

func ExampleParsePolicy() {
	p, err := floe.ParsePolicy("borrow")
	fmt.Println(p, err)
	_, err = floe.ParsePolicy("sleep")
	fmt.Println(err)
	// Output:
	// borrow <nil>
	// floe: unknown clock policy: "sleep" (want wait, fail, borrow or ticktock)
}

func ExampleClockError() {
	var err error = &floe.ClockError{Policy: floe.Fail, Behind: 2 * time.Second}
	var ce *floe.ClockError
	fmt.Println(errors.Is(err, floe.ErrClockBackwards), errors.As(err, &ce), ce.Behind)
	// Output: true true 2s
}
