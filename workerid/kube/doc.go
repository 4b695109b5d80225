// Package kube claims floe worker IDs on the Kubernetes API: a
// workerid.Source whose leases are coordination.k8s.io/v1 Lease objects,
// fenced by resourceVersion preconditions, and a workerid.Catalog of named
// sequences kept in Leases too.
//
// # Objects
//
// Every object is a Lease in one namespace, labelled
// app.kubernetes.io/managed-by: floe. A Source's worker ID id is the Lease
// <Prefix><id>, created by its first claim and labelled floe.dev/source
// with 20 hex digits of the SHA-256 of the Prefix, and floe.dev/owner with
// those of the latest holder's Owner:
//
//	spec.holderIdentity        <Owner>/<16 hex digits>, one per claim; "" when free
//	spec.leaseDurationSeconds  the TTL
//	spec.acquireTime, renewTime  informational only, never read
//	floe.dev/reserved          R, the highest tick any holder may issue; never decreases
//	floe.dev/last              the last tick of a clean release; absent otherwise
//	floe.dev/fence             the fence of the latest claim: 1, then +1 per claim
//	floe.dev/owner             the latest holder's Owner, whose next claim prefers the ID
//	floe.dev/state             absent, or retired once a Catalog destroyed its sequence
//
// Annotations are decimal text, read strictly. A claim skips an object
// whose annotations do not parse, logging the object and the field; a
// holder that reads one loses its lease, naming them. No hand edit makes
// floe guess a reservation.
//
// A Catalog of cluster C keeps the sequence named N in the record Lease
// floe-C-<key>, labelled floe.dev/cluster: C and floe.dev/kind: sequence.
// The key is N lower-cased, with runs of other bytes than [a-z0-9] made
// one '-', cut to 40 bytes, then "-" and 10 hex digits of the SHA-256 of
// N: "Orders" and "orders" differ. The record has no holder; its
// annotations hold the name (floe.dev/sequence), the state (live,
// destroying or retired), the generation (1, 2, ...), the spec and token
// hashes while live, and the Retired as JSON. The worker Leases of
// generation G are named floe-C-<key>-g<G>-<id>.
//
// # Claims and the fence
//
// Claim first lists the Leases labelled with its Owner, from the API
// server's watch cache, and tries the ID its Owner held last when it is
// free, then Creates of 3 random IDs without a Lease. Only when those
// fail does it list every Lease of the Source, and try the released ones,
// the IDs without a Lease and the expired ones, in that order. Many
// claimers starting together so mostly skip the list of every Lease. A
// Source's later lists may come from the watch cache, never older than
// its last.
//
// A new ID is a Create; any other claim is an Update carrying the
// resourceVersion listed. The API server refuses either when another
// write came first (409 Conflict, AlreadyExists), and the claim tries the
// next candidate. A stale list therefore costs a refused write, never the
// fence.
//
// Every later write of the lease, a renewal, a Reserve or a Release,
// carries the resourceVersion of the previous one. A write after another
// claim's, or after a Catalog's tombstone, is refused: that is the fence.
// A write with no reply is tried again with the same resourceVersion. A
// conflict it then meets is read back. This claim's holder and fence,
// with R not below Reserved, is its own write applied late. Anything else
// ends the lease with a *workerid.LeaseLostError naming the object and
// the cause.
//
// A holder is expired when a claimer saw its Lease's resourceVersion
// unchanged for its leaseDurationSeconds, on the claimer's own clock.
// Clocks of different hosts are never compared: a holder renews by
// writing, every TTL/3, and a write changes the resourceVersion. A list
// from the watch cache may miss a renewal; the takeover's Update then
// carries the old resourceVersion and is refused.
//
// # Destroy without multi-object transactions
//
// Catalog.Destroy marks the record destroying, then lists the
// generation's worker Leases and tombstones each one: an Update carrying
// its resourceVersion, with state retired and no holder. It records the
// generation's Retired, the highest R of those objects (or the last tick
// of one released cleanly and not claimed since), marks the record
// retired and deletes the tombstones.
//
// This is safe because a claim reads the record after its write and
// issues only if the record is still live with its generation. A claim
// written before the list is tombstoned by the destroy. A claim written
// after the list reads the destroying mark and gives the ID back without
// issuing.
//
// A holder's reservation written before its tombstone is in the
// tombstone, and so in the Retired; one written after it conflicts, and
// the holder stops. A destroy stopped at any step leaves the record
// destroying, and the next Create or Destroy finishes it from the objects,
// whose R are still there.
//
// # What the TTL promises
//
// Uniqueness rests on the fenced reservation alone: a holder that lost its
// ID, however slow or partitioned, cannot raise R, and the next holder
// starts above R. The TTL only decides how soon the ID of a holder that
// died is free again, and how long a holder cut off from the API server
// keeps issuing up to its R. A holder's local deadline is the send time of
// its last write that applied plus the TTL, on Config.Clock.
//
// # Connecting
//
// RESTConfig reads the pod's service account, or a kubeconfig file.
// NewClient makes a Client with a user agent of "floe" and a rate of 50
// requests a second: client-go's default of 5 would throttle the renewals
// of many sequences. A Client is client-go's REST client with a scheme of
// Leases and access reviews only. client-go's typed clients register every
// API group of Kubernetes, which would double floed's binary (35.5 to
// 71.7 MB); a Client adds 8 MB. It speaks protobuf, which the API server
// serves for Leases: a claim may list every Lease of a generation, and with
// JSON 1,024 sequencers started at once on one 2-core machine never all
// served (541 after 15 minutes), their lists timing out, where with
// protobuf they kept gaining. A clientset's CoordinationV1() serves as
// well, through Getter. Check asks the API server whether the identity has
// every verb floe needs.
//
// # RBAC
//
// floe needs one Role in its namespace, bound to its service account:
//
//	rules:
//	- apiGroups: ["coordination.k8s.io"]
//	  resources: ["leases"]
//	  verbs: ["get", "list", "watch", "create", "update", "delete"]
//
// A request the Role does not allow fails with an error wrapping
// ErrForbidden that names the namespace and the verb.
package kube
