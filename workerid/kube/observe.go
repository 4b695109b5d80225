package kube

import (
	"fmt"
	"time"
)

// observation is what a Source saw of another holder's Lease: its
// resourceVersion and when that was first seen, on the Source's clock.
type observation struct {
	rv string
	at time.Time
}

// observe records a Lease's resourceVersion seen at now and returns how
// long it has been seen unchanged: zero for a new or changed one. A
// holder renews by writing, so a version unchanged for the lease duration
// on the observer's own clock means a holder that stopped, whatever the
// holder's clock says (client-go's leader election rule).
func observe(seen map[string]observation, name, rv string, now time.Time) time.Duration {
	o, ok := seen[name]
	if !ok || o.rv != rv || now.Before(o.at) {
		seen[name] = observation{rv: rv, at: now}
		return 0
	}
	return now.Sub(o.at)
}

// heldStatus counts the held worker IDs whose holders were not seen
// renewing, for the message of an exhausted claim.
type heldStatus struct {
	silent  int           // held, the resourceVersion unchanged since an earlier claim
	longest time.Duration // the longest unchanged
	ttl     time.Duration // that one's lease duration
}

func (h *heldStatus) add(unchanged, ttl time.Duration) {
	if unchanged <= 0 {
		return
	}
	h.silent++
	if ttl-unchanged < h.ttl-h.longest || h.silent == 1 {
		h.longest, h.ttl = unchanged, ttl
	}
}

func (h heldStatus) String() string {
	if h.silent == 0 {
		return ""
	}
	return fmt.Sprintf("; %d held, not renewed for %v of the TTL %v: the first may be taken in %v",
		h.silent, h.longest, h.ttl, h.ttl-h.longest)
}
