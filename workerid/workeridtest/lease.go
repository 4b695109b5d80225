package workeridtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floeid/floe/workerid"
)

// ClaimWithin claims from src, again every 20 ms while every worker ID is
// held, for up to d; each attempt may take up to timeout. It returns the
// lease and how long it took, and fails t on any other error or when no
// worker ID came free in time.
func ClaimWithin(t testing.TB, src workerid.Source, d, timeout time.Duration) (workerid.Lease, time.Duration) {
	t.Helper()
	return ClaimBy(t, src, func() time.Duration { return d }, timeout)
}

// ClaimBy is ClaimWithin with a bound that bound returns, asked again at
// each check: one that a test stretches by the load it measured on the
// machine (a schedtest.Mark's Scale), which it may measure greater as the
// claims go on.
func ClaimBy(t testing.TB, src workerid.Source, bound func() time.Duration, timeout time.Duration) (workerid.Lease, time.Duration) {
	t.Helper()
	return ClaimUntil(t, src, bound, timeout, nil)
}

// ClaimUntil is ClaimBy that also claims again, within the bound, after an
// error for which transient (if not nil) reports true: one a loaded
// machine may cause (a request's timeout), which an application would
// retry. Each such error is logged.
func ClaimUntil(t testing.TB, src workerid.Source, bound func() time.Duration, timeout time.Duration, transient func(error) bool) (workerid.Lease, time.Duration) {
	t.Helper()
	start := time.Now()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		l, err := src.Claim(ctx)
		cancel()
		if err == nil {
			return l, time.Since(start)
		}
		if !errors.Is(err, workerid.ErrExhausted) {
			if transient == nil || !transient(err) || time.Since(start) > bound() {
				t.Fatalf("Claim: %v", err)
			}
			t.Logf("Claim: %v; claiming again", err)
		}
		if took := time.Since(start); took > bound() {
			t.Fatalf("no worker ID free within %v (after %v): %v", bound(), took, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WantLost fails t unless l was lost: a Reserve above everything (given
// up to timeout) is refused with a *LeaseLostError and raises nothing, and
// Done and Err tell the loss at once.
func WantLost(t testing.TB, l workerid.Lease, timeout time.Duration) {
	t.Helper()
	before := l.Reserved()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var lost *workerid.LeaseLostError
	if err := l.Reserve(ctx, 1<<63); !errors.As(err, &lost) {
		t.Fatalf("worker ID %d: Reserve on a lost lease: %v, want a *LeaseLostError", l.ID(), err)
	}
	if got := l.Reserved(); got != before {
		t.Fatalf("worker ID %d: Reserved() moved from %d to %d on a lost lease", l.ID(), before, got)
	}
	select {
	case <-l.Done():
	default:
		t.Fatalf("worker ID %d: Done not closed after a refused Reserve", l.ID())
	}
	if err := l.Err(); !errors.As(err, &lost) {
		t.Fatalf("worker ID %d: Err() = %v, want a *LeaseLostError", l.ID(), err)
	}
}

// BenchClaim claims a worker ID from src and releases it, once per
// operation, and reports the claim alone as claim-ns/op.
func BenchClaim(b *testing.B, src workerid.Source) {
	ctx := context.Background()
	var claiming time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		l, err := src.Claim(ctx)
		claiming += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(ctx, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(claiming.Nanoseconds())/float64(b.N), "claim-ns/op")
}

// BenchReserve claims a worker ID from src and raises its reservation by
// one tick per operation; it releases the worker ID at the end.
func BenchReserve(b *testing.B, src workerid.Source) {
	ctx := context.Background()
	l, err := src.Claim(ctx)
	if err != nil {
		b.Fatal(err)
	}
	tick := l.Floor()
	b.ReportAllocs()
	for b.Loop() {
		tick++
		if err := l.Reserve(ctx, tick); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := l.Release(ctx, 0); err != nil {
		b.Fatal(err)
	}
}
