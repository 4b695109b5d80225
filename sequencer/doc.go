// Package sequencer runs a named ID sequence inside any process: it claims
// a worker ID from a workerid.Source (a fixed ID with a local state file,
// etcd, Redis), builds the generator of the sequence's format on it, and
// keeps the worker ID's durable reservation ahead of need, so that a Go
// service issues IDs with a local call instead of a round trip to floed.
// It is snowcast's sequencer (createSequencer, next, attachLogicalNode,
// detachLogicalNode, destroySequencer) on floe's leases and reservations.
//
// Open or create a sequence by name with a Definition (format id64, id80,
// id96 or id128, and the id64 layout), then take IDs with the method of its
// format: Next64 and NextN64, Next80, Next96, Next128, or AppendNext for
// text. The
// hot paths allocate nothing, and take no lock while callers do not collide.
//
// # Safety rules
//
// A worker ID's reservation R is the highest tick any of its holders may
// issue; it lives with the Source and only goes up. A Sequencer
//
//   - starts strictly above the recorded reservation (or above the last
//     tick of a clean release, and above Config.Floor);
//   - never issues a tick above the durable R: it reserves the first
//     window before the first ID, and its keeper extends R ahead of need,
//     keeping between half a window and a window reserved, with at most
//     one write per 7/16 of a window while serving;
//   - stops issuing at once when the lease is lost: its local deadline
//     passed, it was taken over, or a reservation write's result is
//     unknown; a write that fails stops it at the current R. A lease with
//     a local deadline (workerid.Lease) stops it at that deadline even
//     while a reservation write is in flight, and a call waiting at the
//     ceiling when the lease ends fails with ErrNotReady;
//   - claims again in the background after a loss; failed claims back
//     off from 50 ms to 250 ms at most, so it claims again within 250 ms
//     of the coordinator answering again (a claim sent during the fault
//     first waits out its request, at most ClaimTimeout);
//   - on Close and Detach records the last tick issued with the release,
//     so the next holder starts right above it.
//
// A paused or partitioned process may be late, but it cannot extend R
// once its lease is gone, and the next holder starts above R: no ID is
// issued twice.
//
// # States
//
//	state      worker ID  Next              entered by                     left by
//	claiming   none       *NotReadyError    Open, Attach, a lost lease     a claim (serving), Detach, Close
//	serving    held       IDs               a claim                        a lost lease, Detach, Destroy, Close
//	detached   none       ErrDetached       Detach                         Attach (claiming), Close
//	destroyed  none       ErrDestroyed      Destroy here or elsewhere      Close
//	                                        (the catalog no longer has the
//	                                        generation)
//	closed     none       ErrClosed         Close, Orphan                  (final)
//
// State returns the state and why the sequencer does not serve; Changes
// and Wait follow its changes. Ready says whether Next would issue now:
// serving, with a reservation that can be extended, and a clock past the
// previous holder's reservation (policies Wait and Fail).
//
// # Destroy and create again
//
// A sequencer in a catalog follows its generation there (workerid.Catalog's
// WaitGone): when the sequence is destroyed, from any member, it stops
// issuing at once, whether serving, claiming or detached. Destroy records
// the generation's retired tick (workerid.Retired), the highest tick its
// members could issue; a generation created after it issues only above
// that tick, so a member that did not hear of the destroy (a partition)
// and issues until its lease's deadline repeats none of the new IDs.
//
// The sequencer logs only to Config.Logger, and its counters are the plain
// values of Stats.
package sequencer
