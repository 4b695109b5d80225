package coordnet

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestAttempts(t *testing.T) {
	errBusy := errors.New("busy")
	errRefused := errors.New("refused")
	transient := func(err error) bool { return errors.Is(err, errBusy) }
	tests := []struct {
		name      string
		results   []error // what each attempt returns; past the end, errBusy
		left      func() time.Duration
		wantErr   error
		wantCalls int
	}{
		{"first attempt succeeds", []error{nil}, nil, nil, 1},
		{"transient errors are tried again", []error{errBusy, errBusy, nil}, nil, nil, 3},
		{"a lasting error ends at once", []error{errBusy, errRefused, nil}, nil, errRefused, 2},
		{"no time left ends before an attempt", []error{nil}, func() time.Duration { return 0 }, context.DeadlineExceeded, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			err := Attempts(context.Background(), time.Second, time.Millisecond, tt.left, transient, func(ctx context.Context) error {
				calls++
				if _, ok := ctx.Deadline(); !ok {
					t.Error("an attempt without a deadline")
				}
				if calls <= len(tt.results) {
					return tt.results[calls-1]
				}
				return errBusy
			})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if calls != tt.wantCalls {
				t.Errorf("attempts = %d, want %d", calls, tt.wantCalls)
			}
		})
	}
}

// A request whose context ends stops between attempts, and an attempt
// never outlasts its bound.
func TestAttempts_Bounded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	calls := 0
	err := Attempts(ctx, 20*time.Millisecond, 10*time.Millisecond, nil, func(error) bool { return true }, func(ctx context.Context) error {
		calls++
		<-ctx.Done() // a server that never answers
		return ctx.Err()
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	if calls < 2 {
		t.Fatalf("%d attempts in 200 ms of 20 ms each, want several", calls)
	}
}
