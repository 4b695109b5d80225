package sequencer

import (
	"errors"
	"fmt"

	"github.com/floeid/floe/workerid"
)

// Errors of the package.
var (
	// ErrConfig is a Config that Open refuses; the error names the field.
	ErrConfig = errors.New("floe: invalid sequencer configuration")
	// ErrName is a sequence name that is empty, longer than 64 bytes, has
	// bytes other than [A-Za-z0-9_.-], or is "." or "..". It is
	// workerid.ErrName, which the catalogs return.
	ErrName = workerid.ErrName
	// ErrDefinition is a definition a sequence cannot have (an unknown
	// format, an invalid layout, a snowcast node count outside 128..8192),
	// or one other than the catalog's (a *DefinitionError).
	ErrDefinition = errors.New("floe: invalid sequence definition")
	// ErrNotReady is a sequencer that cannot issue now; every
	// *NotReadyError matches it.
	ErrNotReady = errors.New("floe: sequence not ready")
	// ErrDetached is a sequencer detached by Detach; a *NotReadyError in
	// state Detached matches it.
	ErrDetached = errors.New("floe: sequence detached")
	// ErrDestroyed is a sequence destroyed cluster-wide; a *NotReadyError
	// in state Destroyed matches it.
	ErrDestroyed = errors.New("floe: sequence destroyed")
	// ErrClosed is a sequencer after Close or Orphan; a *NotReadyError in
	// state Closed matches it.
	ErrClosed = errors.New("floe: sequencer closed")
	// ErrCatalog is a catalog that Open could not read or write: out of
	// reach until Open's context ended, or refusing the request. The error
	// wraps the catalog's, and the context's when it ended.
	ErrCatalog = errors.New("floe: the catalog cannot be reached")
	// ErrFormat is a call for IDs of another format than the sequence's
	// (Next80 on an id64 sequence).
	ErrFormat = errors.New("floe: the sequence issues another format")
	// ErrClaim is a claim of a worker ID that failed other than with every
	// ID held: the coordinator out of reach or refusing, a timeout, the
	// first reservation not written. Open returns it wrapped with the
	// Source's error; a later Open may succeed (the supervisor of an open
	// sequencer claims again by itself).
	ErrClaim = errors.New("floe: claiming a worker ID failed")
)

// DefinitionError reports that the catalog defines the sequence otherwise
// than Config.Definition: IDs of the two could collide. It matches
// ErrDefinition and unwraps to the catalog's error, which wraps
// workerid.ErrConflict.
type DefinitionError struct {
	Name    string // the sequence
	Catalog string // the spec the catalog records
	Given   string // the spec of Config.Definition
	Err     error  // the catalog's error
}

func (e *DefinitionError) Error() string {
	return fmt.Sprintf("floe: sequence %q is defined as %s in the catalog, not %s", e.Name, e.Catalog, e.Given)
}

// Is reports whether target is ErrDefinition.
func (e *DefinitionError) Is(target error) bool { return target == ErrDefinition }

func (e *DefinitionError) Unwrap() error { return e.Err }

// NotReadyError reports why a sequencer cannot issue now: it holds no
// worker ID (claiming one, detached, destroyed, closed), its reservation
// cannot be extended, or the clock is behind the reservation of the worker
// ID's previous holder. It matches ErrNotReady, and ErrDetached,
// ErrDestroyed or ErrClosed as its State says.
type NotReadyError struct {
	Name   string // the sequence
	State  State  // the sequencer's state when it refused
	Reason string // why, in words
	Err    error  // the cause, when there is one: the failed claim, the lost lease
}

func (e *NotReadyError) Error() string {
	return "floe: sequence not ready: " + e.Name + ": " + e.Reason
}

// Is reports whether target is ErrNotReady or the sentinel of e's State.
func (e *NotReadyError) Is(target error) bool {
	switch target {
	case ErrNotReady:
		return true
	case ErrDetached:
		return e.State == Detached
	case ErrDestroyed:
		return e.State == Destroyed
	case ErrClosed:
		return e.State == Closed
	}
	return false
}

func (e *NotReadyError) Unwrap() error { return e.Err }
