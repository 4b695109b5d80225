// Package redis claims floe worker IDs on a Redis server: a
// workerid.Source whose leases are owner keys with a TTL and whose
// reservations are fenced by Lua scripts, and a workerid.Catalog of named
// sequences. Check tells whether a server keeps them safely (AOF with
// appendfsync always, no replicas).
//
// # Connecting
//
// Dial probes the server first (Probe: TCP, the TLS handshake with the
// client's configuration, and a reply to PING, within ProbeTimeout), and
// returns an *EndpointError naming the address and the cause (refused, a
// certificate not trusted or refused, a plain or a TLS port, no reply, not
// Redis), matching a sentinel such as ErrUnreachable or ErrNoReply; then it
// sends PING and names a refused login. TLSConfig reads the CA, client
// certificate and key files of goredis.Options.TLSConfig. Its client ends
// each request at its context's deadline and sends none again, as floed's.
//
// # A server that stops answering
//
// A server that hangs with its connections open (frozen, or behind a
// network that drops its packets) costs a lease no more than its local
// deadline: every request is bounded by Config.Timeout and by the time the
// lease has left, a renewal or a Reserve that gets no answer does not hold
// the lease past its deadline, and a Reserve that fails ends the lease at
// once (a node stops issuing about a request timeout after the hang
// begins). A Claim, its safety check included, fails within Config.Timeout,
// and sends no claim after a check that got no answer, so claims retried
// through the hang do not run late and hold worker IDs when the server
// answers again. With TTL 2 s, two floed nodes on one Redis frozen or
// black-holed for 10 s stopped issuing 0.85–0.87 s into the hang and
// served again 6–27 ms after the server answered (up to 429 ms when a claim
// and its safety check could each take the request timeout).
package redis
