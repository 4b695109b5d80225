package coordnet

import (
	"context"
	"time"
)

// Attempts runs fn, one request to the coordinator, in attempts of at
// most attempt each, and while left (when not nil) reports time, until one
// succeeds, ctx ends, or one fails with an error transient does not call
// passing. An attempt starts at least gap after the one before, so a
// server that fails at once does not make a loop. A left that reports no
// time ends it with context.DeadlineExceeded; otherwise it returns the
// last attempt's error. fn must be a request that may be applied twice: a
// read, or a write whose condition makes a second application a no-op or
// a conflict the caller sorts out.
func Attempts(ctx context.Context, attempt, gap time.Duration, left func() time.Duration, transient func(error) bool, fn func(ctx context.Context) error) error {
	for {
		d := attempt
		if left != nil {
			if d = min(d, left()); d <= 0 {
				return context.DeadlineExceeded
			}
		}
		start := time.Now()
		actx, cancel := context.WithTimeout(ctx, d)
		err := fn(actx)
		cancel()
		if err == nil || ctx.Err() != nil || !transient(err) {
			return err
		}
		if wait := gap - time.Since(start); wait > 0 {
			select {
			case <-ctx.Done():
				return err
			case <-time.After(wait):
			}
		}
	}
}
