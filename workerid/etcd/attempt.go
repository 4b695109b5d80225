package etcd

import (
	"context"
	"errors"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/floeid/floe/internal/coordnet"
)

// retryGap is the least time between the starts of two attempts of one
// request: a member that fails at once (it has no leader) does not make a
// loop of retries.
const retryGap = 25 * time.Millisecond

// do runs one etcd request, fn, one attempt at a time until an attempt
// succeeds or fails for good, ctx ends or left (nil: no limit) reports no
// time left; it returns the last attempt's error. Each attempt is bounded
// by the Source's attempt timeout and by left, and asks for a member with
// a leader (clientv3.WithRequireLeader): a member that has none, or does
// not answer, costs one attempt, and the next goes to another member (the
// balancer of ClientConfig sets a silent member aside).
//
// Every request retried so is one that may be applied twice: a read, a
// lease renewal, or a transaction whose conditions make a second
// application a no-op.
func (s *Source) do(ctx context.Context, left func() time.Duration, fn func(ctx context.Context) error) error {
	return attempts(ctx, s.attempt, left, fn)
}

// Attempts runs one etcd request of an application's own, fn, as the
// Source and the Catalog run theirs: one attempt at a time, each bounded
// by attempt and asking for a member with a leader, until one succeeds or
// fails for good (an error other than no reply, no leader, a lost
// connection or an overloaded member) or ctx ends. With a client of
// ClientConfig, an attempt that got no reply sends the next to another
// member. It returns the last attempt's error. fn must be a request that
// may be applied twice: a read, or a transaction whose conditions make a
// second application a no-op.
func Attempts(ctx context.Context, attempt time.Duration, fn func(ctx context.Context) error) error {
	return attempts(ctx, attempt, nil, fn)
}

// attempts is do with attempts bounded by attempt.
func attempts(ctx context.Context, attempt time.Duration, left func() time.Duration, fn func(ctx context.Context) error) error {
	ctx = clientv3.WithRequireLeader(ctx)
	return coordnet.Attempts(ctx, attempt, retryGap, left, transient, fn)
}

// transient reports whether err is one an attempt on another member may
// not meet: no reply in time, a member without a leader, one overloaded,
// a connection lost.
func transient(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var code codes.Code
	if ee, ok := errors.AsType[rpctypes.EtcdError](err); ok {
		code = ee.Code()
	} else {
		code = status.Code(err)
	}
	switch code {
	case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted:
		return true
	}
	return false
}
