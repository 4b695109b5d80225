package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/floeid/floe/client"
)

// TestAttemptsError checks the message.
func TestAttemptsError(t *testing.T) {
	err := &client.AttemptsError{Attempts: []*client.AttemptError{
		{Addr: "10.0.0.1:4444", Err: errors.New("refused")},
		{Err: context.Canceled},
	}, Dropped: 3}
	want := "floe: client: 4 attempts failed: 10.0.0.1:4444: refused; context canceled"
	if got := err.Error(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if !errors.Is(err, context.Canceled) {
		t.Error("errors.Is(context.Canceled) = false")
	}
	one := &client.AttemptsError{Attempts: []*client.AttemptError{{Addr: "a:1", Err: errors.New("x")}}}
	if got, want := one.Error(), "floe: client: 1 attempt failed: a:1: x"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
