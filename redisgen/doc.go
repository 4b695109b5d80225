// Package redisgen issues 64-bit IDs generated inside Redis by a Lua script,
// for teams that already run Redis and want no new daemon: the design of
// icicle and of the talk "Distributed ID Generation" (N. Kleyn), made safe.
//
// Each Redis server holds a shard ID (set once with Init, or
// `floe redis init --shard N`). The script reads Redis's clock (TIME), the
// shard ID and the last tick and sequence it issued, and hands out a run of
// up to a tick's worth of sequence numbers; the client composes the IDs in
// an id64.Layout (DefaultLayout, id64.Redisgen, named "redisgen" by floe's
// tools: sign bit, 41-bit milliseconds, 10-bit shard, 12-bit sequence). The
// client spreads calls over the servers round robin and tries up to 5 of
// them with a quadratic back-off before it fails with an error that lists
// every attempt.
//
// # A server that stops answering
//
// A server that hangs without closing its connections (frozen, or behind a
// network that drops its packets) costs a call at most one request timeout
// (WithTimeout, default DefaultTimeout, bounded by the call's context too):
// the call then moves on to the next server. The server is passed over for
// the cool-down (WithCooldown), then one call probes it while the others
// pass it over, so it costs one call a timeout per cool-down and the rest
// nothing; a server whose requests are under way with no reply for a
// quarter of the timeout is passed over before they time out. Measured with
// one of three servers frozen for 10 s and eight callers: every call
// succeeded, the longest took 1.003 s (the default timeout; 40 calls took
// that long before the probe and the stall check, 14 after), and the server
// issued again 3–16 ms after it resumed.
//
// # What it guarantees
//
//   - IDs of one server never repeat and strictly increase: the script runs
//     atomically, keeps the last tick and sequence it issued in a hash key,
//     refuses with a clock error when Redis's clock reads earlier than that
//     tick, and answers "exhausted" rather than wrapping when a tick's
//     sequence is spent.
//   - IDs of different servers never meet, as long as their shard IDs
//     differ: New reads every server's shard and refuses duplicates, and
//     every reply carries the shard it was made under.
//
// # What it does not
//
// The last-tick key lives in Redis's memory. It survives a restart of Redis
// only if Redis persists it (AOF, ideally with appendfsync always); a Redis
// that restarts empty, with its clock set back, can repeat IDs it issued
// before the restart, and a replica promoted after an asynchronous failover
// may lack the newest state. floed (with its fsynced state file or a
// coordinator) does not have this weakness. Init and New accept such a
// server; CheckDurable reports one (and `floe redis init` warns of it), and
// the ErrNoShard of a server that restarted empty says so.
package redisgen
