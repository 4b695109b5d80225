package id96

import "time"

// Drift is the 3-bit drift code of an ID, guid's ⟨d⟩. It tells how many low
// bits of the tick sort after the node: with code c, the low d = 18+c bits
// of the 47-bit tick sit below the node and the high 29-c bits above it.
//
// Two IDs of the same code whose ticks fall in different windows of 2^d
// ticks sort by time, whatever their nodes; inside one window they sort by
// node first. The window is the clock drift between nodes that the order
// tolerates: events further apart than one window are ordered by time even
// if the nodes' clocks disagree by up to a window, and events closer than
// that are grouped by node rather than misordered by skewed clocks.
//
//	code  low tick bits  window (2^(35+c) ns)
//	0     18             34.4 s   (never written by guid's generators)
//	1     19             1 min 8.7 s
//	2     20             2 min 17.4 s
//	3     21             4 min 34.9 s (DefaultDrift)
//	4     22             9 min 9.8 s
//	5     23             18 min 19.5 s
//	6     24             36 min 39.0 s
//	7     25             1 h 13 min 18.0 s
//
// The code is the top 3 bits of the ID, so IDs of different codes sort by
// code first. A system should use one code for all its IDs.
type Drift uint8

const (
	// DefaultDrift is guid's default drift code: windows of about 4.6
	// minutes.
	DefaultDrift Drift = 3
	// MaxDrift is the largest drift code.
	MaxDrift Drift = 7

	driftMask = uint64(MaxDrift)
)

// DriftFor returns the drift code whose window covers the clock drift
// tolerance, as guid's G(clock, tolerance) chooses it: the smallest code
// from 1 to 7 whose window is at least tolerance (to the whole second), 7
// for larger tolerances. Code 0 is never chosen.
func DriftFor(tolerance time.Duration) Drift {
	switch {
	case tolerance <= 68*time.Second:
		return 1
	case tolerance <= 137*time.Second:
		return 2
	case tolerance <= 274*time.Second:
		return 3
	case tolerance <= 549*time.Second:
		return 4
	case tolerance <= 1099*time.Second:
		return 5
	case tolerance <= 2199*time.Second:
		return 6
	default:
		return 7
	}
}

// Window returns the width of the time window of d: the time span, 2^(18+d)
// ticks, within which the node sorts before the time. It is 0 for a code
// above MaxDrift.
func (d Drift) Window() time.Duration {
	if d > MaxDrift {
		return 0
	}
	return TickUnit << (driftZero + uint(d))
}
