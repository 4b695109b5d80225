// Package etcd claims floe worker IDs in etcd: a workerid.Source whose
// leases are etcd leases and whose reservations are fenced transactions.
//
// # Keys
//
// A Source's namespace lives under Config.Prefix:
//
//	<prefix>workers/<id>   owner key: the Owner's name, attached to the
//	                       claim's etcd lease
//	<prefix>reserved/<id>  the reservation, no lease, never deleted:
//	                       {"r":R,"last":L,"owner":"host-a"}
//
// r is the reservation R, the highest tick any holder of the ID may issue;
// last, when not zero, the last tick issued before a clean release; owner
// the host that held the ID last, which a later claim by the same host
// prefers. A Catalog keeps sequences at <prefix>sequences/<name> with the
// value {"spec":"..."} (and "token_sha256":"<hex>,..." when the sequence
// has tokens: their hashes); a sequence's generation is the create revision of
// that key, and its worker IDs live under <prefix>seq/<name>/<gen>/.
//
// # Claims and the fence
//
// Claim grants an etcd lease, reads which IDs are held and tries the free
// ones, the one its Owner held last first and then the others in random
// order, each with one transaction:
//
//	If(CreateRevision(workers/<id>) == 0)
//	Then(Put(workers/<id>, owner, lease), Get(reserved/<id>))
//
// The revision of the winning transaction is the owner key's create
// revision: the claim's fence, greater than every earlier claim's. When no
// ID is free, Claim revokes its etcd lease and returns an error wrapping
// workerid.ErrExhausted; it never falls back to a random ID. A claim that
// reads a last tick rewrites the reservation without it, fenced, before it
// returns, so that a holder dying later leaves the next one above R.
//
// Reserve is one transaction:
//
//	If(CreateRevision(workers/<id>) == fence && ModRevision(reserved/<id>) == last)
//	Then(Put(reserved/<id>, R))
//
// where last is the mod revision of the reservation this lease last wrote
// or read. Only a succeeded transaction, or a reservation read at R or
// above, raises R here. A refused one ends the lease when the owner key is
// not this claim's. An attempt that gets no reply (its result unknown) is
// tried again, on another member, until the lease's local deadline: the
// condition on the mod revision makes an attempt etcd applies late a
// no-op, so R never goes down. Release writes the last tick and deletes
// the owner key in one fenced transaction, then revokes the etcd lease.
//
// # A member that stops answering
//
// A member that hangs with its connections open (a frozen process, a
// network dropping its packets) while the others keep a quorum costs a
// lease nothing: every request is made in attempts of TTL/6 at most
// (RequestTimeout at most), each asking for a member with a leader, and
// one that gets no reply is tried again at once; the balancer of
// ClientConfig (applied by Dial) then sends requests to the other
// members, setting aside for a cool-down a member a request waited 300 ms
// on with nothing heard from it. A request ends at its bound: the
// RequestTimeout, or the lease's local deadline for renewals and
// reservations. A client made by clientv3.New alone keeps sending the
// silent member its share of requests, and a lease whose renewals reach
// it may be lost.
//
// # What the TTL promises
//
// Uniqueness rests on the fenced reservation alone: a holder that lost its
// ID, however slow or partitioned, cannot raise R, and the next holder
// starts above R. The TTL only decides how soon the ID of a holder that
// died is free again, and how long a holder cut off from etcd may keep
// issuing up to its R.
//
// # How a loss is detected
//
// Each lease has one goroutine renewing its etcd lease with a keepalive
// request every TTL/3. The local deadline is the send time of the last
// successful renewal plus the TTL, on Config.Clock: etcd cannot have
// expired the lease before then. When the deadline passes without a
// renewal, when etcd answers that the lease is gone, or when a watch sees
// the owner key deleted (an expiry, Catalog.Destroy, an operator), the
// lease is lost: Done is closed and Err is a *workerid.LeaseLostError.
// A lease lost at its deadline is then revoked, best effort, so that an
// owner key still standing in etcd frees the ID at once; after the other
// losses the owner key is gone already, and nothing is revoked. A
// renewal never proves ownership for Reserve; only the fenced transaction
// does. When a Catalog's Source sees its owner key deleted or another
// claim's, it reads the sequence's key (within a second) to tell
// Catalog.Destroy from a loss: when the catalog no longer has the
// generation, the LeaseLostError's cause wraps workerid.ErrNotFound and
// the Logger gets an INFO line, "worker ID lease ended: the sequence was
// destroyed"; any other loss, or a read that fails, logs WARN "worker ID
// lease lost".
//
// # Connecting
//
// Dial and ClientConfig also give the client gRPC keepalives (a 10 s
// ping, closed after 2 s without an answer), which move the watches off a
// silent member, and a reconnect back-off of ReconnectDelay (500 ms) at
// most, so a member back after a fault takes requests again within about
// that.
//
// The etcd client retries an endpoint that refuses the connection or fails
// the TLS handshake in the background, and reports only its deadline:
// "context deadline exceeded". Dial probes each endpoint first (Probe: TCP,
// the TLS handshake with the client's configuration, and a first reply in
// etcd's protocol, within ProbeTimeout) and, when none takes the
// connection, returns each one's *EndpointError: the address and the cause
// (refused, a certificate not trusted or refused, a plain or a TLS port, no
// reply, not etcd), matching a sentinel such as ErrUnreachable or
// ErrNoReply. TLSConfig reads the CA, client certificate and key files of
// clientv3.Config.TLS. With a client of one's own, a Catalog request that
// fails at its deadline names the endpoints that refuse or never answer.
package etcd
