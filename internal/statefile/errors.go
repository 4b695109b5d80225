package statefile

import "errors"

// Errors of the state file. Open, Put and Delete wrap them with the path or
// the sequence name; test for them with errors.Is.
var (
	// ErrCorrupt is a state file that exists but cannot be trusted: empty,
	// truncated, not valid JSON, of an unknown version, or failing its
	// checksum. floed refuses to start from such a file rather than from
	// zero.
	ErrCorrupt = errors.New("floe: corrupt state file")
	// ErrLocked is a state directory already opened by another process;
	// Open returns it in a *LockedError, which names the holder.
	ErrLocked = errors.New("floe: state directory in use")
	// ErrBackwards is a Put that would lower a sequence's reservation.
	ErrBackwards = errors.New("floe: reservation would go backwards")
	// ErrClosed is a Put or Delete on a closed File.
	ErrClosed = errors.New("floe: state file closed")
	// ErrName is a Put with an empty sequence name.
	ErrName = errors.New("floe: empty sequence name")
)
