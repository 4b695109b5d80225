package id80

import (
	"errors"

	"github.com/floeid/floe"
)

// format names this package in the errors it returns.
const format = "id80"

// parseError returns a *floe.ParseError for input, which it cuts before
// copying so that huge inputs cost nothing more than small ones.
func parseError[T string | []byte](input T, reason error) error {
	const keep = 64 // floe.NewParseError keeps no more than this
	if len(input) > keep {
		input = input[:keep]
	}
	return floe.NewParseError(format, []byte(input), reason)
}

// Generator configuration errors.
var (
	// ErrSequenceBounds: SequenceMin above SequenceMax, or a pool of fewer
	// than 4 sequence numbers.
	ErrSequenceBounds = errors.New("floe: invalid sequence bounds")
	// ErrSnapshot: a snapshot whose timestamps lie outside the format.
	ErrSnapshot = errors.New("floe: invalid snapshot")
)
