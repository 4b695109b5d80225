package id96

import (
	"errors"

	"github.com/floeid/floe"
)

// format names this package in every *floe.ParseError it returns.
const format = "id96"

// parseError wraps reason, one of floe's sentinels, for input.
func parseError(input []byte, reason error) error {
	return floe.NewParseError(format, input, reason)
}

// ErrDrift: a generator configured with a drift code above MaxDrift.
var ErrDrift = errors.New("floe: drift code above 7")
