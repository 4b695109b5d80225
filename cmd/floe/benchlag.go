package main

import (
	"time"

	"github.com/floeid/floe/id64"
)

// benchLagSpan bounds the lags benchLag tells apart, in ticks either way;
// longer ones count at the bound (and exactly in min and max).
const benchLagSpan = 1000

// benchLag counts how far the time inside each ID received lies behind the
// time its request was sent: the send's tick minus the ID's tick, in the
// layout's ticks. A positive lag is an ID that names a tick before its
// request was sent, a stale time; 0 or less is a true one (the ID was issued
// after the send, in the tick of the send or a later one). It is not safe
// for concurrent use: each connection has its own, merged at the end.
type benchLag struct {
	counts   [2*benchLagSpan + 1]uint64 // lag+benchLagSpan, clamped
	n        uint64                     // IDs counted
	stale    uint64                     // IDs with a lag above 0
	min, max int64
}

// record counts the IDs of one reply to a request sent at sent.
func (h *benchLag) record(l id64.Layout, ids []uint64, sent time.Time) {
	tick := sent.Sub(l.Epoch).Nanoseconds() / int64(l.Unit)
	for _, id := range ids {
		h.count(tick - int64(l.Parts(id64.ID(id)).Tick))
	}
}

// count counts one ID whose time lies lag ticks behind its request's send.
func (h *benchLag) count(lag int64) {
	if h.n == 0 {
		h.min, h.max = lag, lag
	}
	h.min, h.max = min(h.min, lag), max(h.max, lag)
	h.n++
	if lag > 0 {
		h.stale++
	}
	h.counts[min(max(lag, -benchLagSpan), benchLagSpan)+benchLagSpan]++
}

func (h *benchLag) merge(o *benchLag) {
	if o.n == 0 {
		return
	}
	if h.n == 0 {
		h.min, h.max = o.min, o.max
	}
	h.min, h.max = min(h.min, o.min), max(h.max, o.max)
	h.n += o.n
	h.stale += o.stale
	for i, c := range o.counts {
		h.counts[i] += c
	}
}

// quantile returns the lag at or below which permille ‰ of the IDs lie.
func (h *benchLag) quantile(permille uint64) int64 {
	if h.n == 0 {
		return 0
	}
	rank := (h.n*permille + 999) / 1000
	var seen uint64
	for i, c := range h.counts {
		if seen += c; seen >= max(rank, 1) {
			return min(max(int64(i)-benchLagSpan, h.min), h.max)
		}
	}
	return h.max
}
