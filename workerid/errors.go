package workerid

import (
	"errors"
	"fmt"

	"github.com/floeid/floe/internal/statefile"
)

var (
	// ErrExhausted: every worker ID of the Source is held. A Source never
	// falls back to a random or shared ID.
	ErrExhausted = errors.New("floe: every worker ID is held")
	// ErrReleased: the lease was released; it reserves nothing more.
	ErrReleased = errors.New("floe: worker ID lease released")
	// ErrBackwards: a reservation below one already recorded.
	ErrBackwards = errors.New("floe: reservation below the recorded one")
	// ErrLocked: a FileStore's state directory is open in another process
	// (a FileStore or a floed); the error names the holder.
	ErrLocked = statefile.ErrLocked
	// ErrCorrupt: a FileStore's state file exists but cannot be trusted
	// (empty, truncated, invalid, of an unknown version, or failing its
	// checksum). OpenFile refuses it rather than start from zero.
	ErrCorrupt = statefile.ErrCorrupt
)

// LeaseLostError reports that a lease is no longer held: it expired, was
// taken over, or a reservation's result is unknown; or the Catalog
// destroyed its sequence, a planned end rather than a loss, when Err wraps
// ErrNotFound (the coordinator adapters tell so). Its holder must stop
// issuing IDs at once; the reservation it made durable last stays the floor
// of the worker ID's next holder.
type LeaseLostError struct {
	ID    int   // the worker ID
	Fence int64 // the lease's fencing token
	Err   error // why, when known
}

func (e *LeaseLostError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("floe: lease of worker ID %d (fence %d) lost", e.ID, e.Fence)
	}
	return fmt.Sprintf("floe: lease of worker ID %d (fence %d) lost: %v", e.ID, e.Fence, e.Err)
}

func (e *LeaseLostError) Unwrap() error { return e.Err }
