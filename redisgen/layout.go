package redisgen

import (
	"fmt"
	"time"

	"github.com/floeid/floe/id64"
)

// DefaultLayout is id64.Redisgen, named "redisgen" wherever a layout is
// named: icicle's bit layout (sign bit, 41-bit milliseconds, 10-bit shard,
// 12-bit sequence) with the instant icicle 1.x meant as its epoch,
// 2014-05-28T11:44:33Z, counted in milliseconds. Icicle's Lua script
// returns Redis's TIME, and its Java client subtracts the epoch constant
// 1401277473 from that time in milliseconds, so icicle 1.x IDs count from
// 1970-01-17 and run out in 2039 (id64.Icicle decodes those); IDs of
// DefaultLayout run out in 2084.
var DefaultLayout = id64.Redisgen

// maxExact is the largest integer a Lua number (a double) holds exactly.
const maxExact = 1 << 53

// scriptArgs checks that the script can run l and returns its fixed
// arguments: epoch and unit in microseconds, last tick, last sequence, last
// shard.
func scriptArgs(l id64.Layout) ([]any, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	if l.Unit%time.Microsecond != 0 || l.Epoch.Nanosecond()%1000 != 0 {
		return nil, fmt.Errorf("%w: epoch and unit must be whole microseconds (Redis TIME's resolution)", ErrLayout)
	}
	epoch, unit := l.Epoch.UnixMicro(), l.Unit.Microseconds()
	if epoch < 0 || l.NodeBits() == 0 {
		return nil, fmt.Errorf("%w: epoch before 1970 or no node bits for the shard", ErrLayout)
	}
	if l.Order != id64.TimeNodeSequence {
		return nil, fmt.Errorf("%w: the script puts the shard above the sequence, and the layout %v puts it below", ErrLayout, l)
	}
	// The last tick's end, in microseconds since 1970, must stay exact.
	if end := float64(epoch) + float64(l.MaxTick()+1)*float64(unit); end >= maxExact {
		return nil, fmt.Errorf("%w: its time runs past 2^53 microseconds", ErrLayout)
	}
	return []any{epoch, unit, l.MaxTick(), l.MaxSequence(), l.MaxNode()}, nil
}
