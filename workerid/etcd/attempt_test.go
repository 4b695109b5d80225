package etcd

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestAttempts(t *testing.T) {
	errOther := errors.New("etcdserver: permission denied")
	tests := []struct {
		name      string
		errs      []error // each attempt's error, then success
		wantCalls int
		wantErr   error // nil: success
	}{
		{"first attempt", nil, 1, nil},
		{"no reply, then a reply", []error{context.DeadlineExceeded}, 2, nil},
		{"no leader twice", []error{rpctypes.ErrGRPCNoLeader, rpctypes.ErrNoLeader}, 3, nil},
		{"connection lost", []error{status.Error(codes.Unavailable, "transport is closing")}, 2, nil},
		{"refused for good", []error{errOther}, 1, errOther},
		{"lease not found", []error{rpctypes.ErrLeaseNotFound}, 1, rpctypes.ErrLeaseNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			err := Attempts(context.Background(), time.Second, func(ctx context.Context) error {
				calls++
				if _, ok := ctx.Deadline(); !ok {
					t.Error("an attempt without a deadline")
				}
				if calls <= len(tt.errs) {
					return tt.errs[calls-1]
				}
				return nil
			})
			if calls != tt.wantCalls {
				t.Errorf("attempts = %d, want %d", calls, tt.wantCalls)
			}
			if !errors.Is(err, tt.wantErr) && err != tt.wantErr {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestAttempts_EndsWithCtx(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	calls := 0
	err := Attempts(ctx, 30*time.Millisecond, func(ctx context.Context) error {
		calls++
		<-ctx.Done() // never answers
		return ctx.Err()
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
	if calls < 2 {
		t.Errorf("attempts = %d in 200 ms of 30 ms attempts, want several", calls)
	}
}
