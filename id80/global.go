package id80

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"sync/atomic"

	"github.com/floeid/floe"
)

// partitions hands out the partitions of generators built without one: a
// random start, then one more per generator, so they are unique within the
// process and unlikely to meet another process's.
var partitions atomic.Uint32

func init() {
	var b [2]byte
	if _, err := rand.Read(b[:]); err == nil {
		partitions.Store(uint32(binary.BigEndian.Uint16(b[:])))
	}
}

// NewPartition returns a partition no other call in this process has
// returned until 65,536 calls wrap around. Across processes it is random:
// assign partitions yourself when IDs from several processes must never meet.
func NewPartition() Partition {
	return PartitionFromUint16(uint16(partitions.Add(1) - 1))
}

// global is the package-level generator behind New: a partition of its own,
// the monotonic clock, tick-tock on regressions.
var global = func() *Generator {
	g, err := NewGenerator(Config{Partition: NewPartition(), Policy: floe.TickTock})
	if err != nil {
		panic(err) // the configuration is constant and valid
	}
	return g
}()

// New returns a new ID carrying meta from the package-level generator, which
// has a partition unique in this process (NewPartition) and reads the
// monotonic clock, so it never waits on a wall-clock step. Like sno.New it
// cannot fail: it panics only once the format's time has run out, in 2079.
func New(meta byte) ID {
	for {
		id, err := global.New(meta)
		if err == nil {
			return id
		}
		if errors.Is(err, floe.ErrTimeExhausted) {
			panic(err)
		}
		// A clock error can only come from a wait cut short; try again.
	}
}
