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
// certificate and key files of goredis.Options.TLSConfig.
package redis
