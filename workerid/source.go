package workerid

import "context"

// Source hands out worker IDs. Implementations are safe for concurrent use.
type Source interface {
	// Claim takes a worker ID that nobody holds and returns its lease. It
	// returns an error wrapping ErrExhausted when every ID is held.
	Claim(ctx context.Context) (Lease, error)
}

// Lease is one holder's claim on a worker ID. Its methods are safe for
// concurrent use.
//
// A lease with a local deadline, after which the coordinator may give the
// worker ID to another holder, may also have a method
// Left() time.Duration: the time to that deadline on the Source's clock,
// zero or less once it passed. The sequencer issues nothing past it, even
// while a Reserve is in flight. The etcd, Redis and Kubernetes leases have it.
type Lease interface {
	// ID is the worker ID held.
	ID() int
	// Fence is the fencing token of this claim: each claim of a worker ID
	// gets a greater one than the claims before it.
	Fence() int64
	// Floor is the tick the holder issues strictly above: the reservation
	// recorded for the ID when it was claimed, or the last tick a previous
	// holder issued before a clean Release. A claim clears that last tick
	// before it returns, so if this holder then dies without a Release the
	// next one starts above R again.
	Floor() uint64
	// Reserved is the reservation R as last made durable: the recorded one
	// at the claim, then each successful Reserve's tick.
	Reserved() uint64
	// Reserve durably raises the worker ID's reservation to tick, only if
	// the lease is still held. A tick at or below Reserved is a no-op. On
	// an error nothing was raised: the holder keeps below the previous
	// Reserved. A Reserve whose result is unknown (a timeout, a lost
	// connection) counts as a loss: the lease is then lost, Done is closed
	// and the error is a *LeaseLostError. After Release the error is
	// ErrReleased.
	Reserve(ctx context.Context, tick uint64) error
	// Done is closed when the lease is lost or released.
	Done() <-chan struct{}
	// Err is nil while the lease is held; after Done is closed it is a
	// *LeaseLostError or ErrReleased.
	Err() error
	// Release gives the worker ID back. last is the highest tick the holder
	// issued, and the holder issues nothing more; the next holder may then
	// start right above it instead of above R. A last of zero records
	// nothing and the next holder starts above R. The reservation itself
	// stays with the ID. Release after a loss or a Release returns the
	// reason the lease ended.
	Release(ctx context.Context, last uint64) error
}
