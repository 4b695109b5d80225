// Package workerid is the worker-ID contract of floe: a Source hands out
// worker IDs, each as a Lease that carries the reservation of its ID.
//
// A worker ID's reservation R is the highest tick any holder of the ID may
// issue. It lives with the Source (a local state file, etcd, Redis) and
// only goes up. The rules a generator follows with a Lease:
//
//  1. Issue only ticks strictly above Lease.Floor, the reservation recorded
//     when the ID was claimed (or the last tick of a clean release).
//  2. Issue no tick above the last R that Lease.Reserve made durable. A
//     Reserve that fails, or whose result is unknown, raises nothing.
//  3. Stop issuing when Lease.Done is closed.
//
// Reserve succeeds only while the lease is still held: a holder that lost
// its ID (expired, partitioned, paused) cannot raise R, so the next holder
// of the ID, which starts above R, never issues a tick the old one did.
// Uniqueness rests on that fenced reservation, not on clocks or on the
// lease's time to live, which only decides how soon a dead holder's ID is
// free again.
//
// Static is the Source of a single node with a fixed worker ID and its
// reservation in a Store; FileStore is the Store of a local state file,
// crash-safe and locked, in floed's format. The packages workerid/etcd, workerid/redis and workerid/kube claim IDs in a
// cluster. workerid/workeridtest is the conformance suite every Source
// passes.
package workerid
