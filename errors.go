package floe

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Sentinel errors. Generators and parsers wrap them in the typed errors
// below, so callers match with errors.Is and read details with errors.As.
var (
	// ErrClockBackwards: the clock reads behind the last tick issued, and the
	// policy refused to issue (Fail) or waited past its bound (Wait, Borrow).
	ErrClockBackwards = errors.New("floe: clock is behind the last issued tick")
	// ErrCeiling: the next tick lies above the reservation ceiling; the
	// owner of the generator has not extended its reservation in time.
	ErrCeiling = errors.New("floe: reservation ceiling reached")
	// ErrTimeExhausted: the clock has passed the last tick the layout's time
	// field can hold.
	ErrTimeExhausted = errors.New("floe: layout time exhausted")
	// ErrUnknownPolicy: a policy name or number that is not a Policy.
	ErrUnknownPolicy = errors.New("floe: unknown clock policy")
	// ErrPolicyUnsupported: the format cannot apply the policy (TickTock
	// needs a tick-tock bit).
	ErrPolicyUnsupported = errors.New("floe: clock policy not supported by this format")

	// ErrInvalidLength: text or bytes of the wrong length for the format.
	ErrInvalidLength = errors.New("floe: invalid length")
	// ErrInvalidCharacter: a character outside the format's alphabet.
	ErrInvalidCharacter = errors.New("floe: invalid character")
	// ErrOutOfRange: a value that decodes but lies outside the format (a
	// number above 64 bits, a non-canonical encoding).
	ErrOutOfRange = errors.New("floe: value out of range")
	// ErrUnsupportedType: Scan was given a database value of a type the ID
	// cannot be read from.
	ErrUnsupportedType = errors.New("floe: unsupported type")
)

// ClockError reports that a generator refused to issue because its clock
// read behind the last tick it issued. It matches ErrClockBackwards.
type ClockError struct {
	Policy Policy        // the policy that refused
	Behind time.Duration // how far the clock read behind the last tick
	Waited time.Duration // how long the call waited before giving up
}

func (e *ClockError) Error() string {
	msg := "floe: clock is " + e.Behind.String() + " behind the last issued tick (policy " + e.Policy.String()
	if e.Waited > 0 {
		msg += ", waited " + e.Waited.String()
	}
	return msg + ")"
}

// Unwrap returns ErrClockBackwards.
func (e *ClockError) Unwrap() error { return ErrClockBackwards }

// CeilingError reports that the next tick lies above the reservation
// ceiling. It matches ErrCeiling.
type CeilingError struct {
	Tick    uint64 // the tick the generator needed
	Ceiling uint64 // the highest tick it may issue
}

func (e *CeilingError) Error() string {
	return fmt.Sprintf("floe: reservation ceiling reached: tick %d above ceiling %d", e.Tick, e.Ceiling)
}

// Unwrap returns ErrCeiling.
func (e *CeilingError) Unwrap() error { return ErrCeiling }

// ParseError reports input that is not a valid ID of a format. It wraps one
// of ErrInvalidLength, ErrInvalidCharacter, ErrOutOfRange or
// ErrUnsupportedType.
type ParseError struct {
	Format string // "id64", "id80" or "id96"
	Input  string // the input, cut to 64 bytes
	Err    error  // the reason
}

// NewParseError returns a *ParseError for format and input, keeping at most
// 64 bytes of input.
func NewParseError(format string, input []byte, reason error) *ParseError {
	const keep = 64 // enough to recognise the input, bounded for logs
	if len(input) > keep {
		input = input[:keep]
	}
	return &ParseError{Format: format, Input: string(input), Err: reason}
}

func (e *ParseError) Error() string {
	return "floe: cannot parse " + strconv.Quote(e.Input) + " as " + e.Format + ": " + reasonText(e.Err)
}

// Unwrap returns the reason.
func (e *ParseError) Unwrap() error { return e.Err }

// reasonText strips the "floe: " prefix of a sentinel so it is not repeated.
func reasonText(err error) string {
	if err == nil {
		return "invalid"
	}
	s := err.Error()
	const prefix = "floe: "
	if len(s) > len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):]
	}
	return s
}
