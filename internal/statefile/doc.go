// Package statefile is floed's crash-safe local reservation file: for each
// named ID sequence the daemon serves, the reservation R (the highest tick
// its generator may issue) and the definition it was issued under. "floe
// new" and workerid.FileStore keep theirs in the same format, so that each
// of them continues where another stopped.
//
// # Directory
//
// Open takes a state directory, holding:
//
//   - floed.state, the state file;
//   - floed.lock, locked (flock(2)) by the File that has the directory open,
//     so that two processes never share one; it is never removed. While
//     locked it names its holder, for the error of a process refused the
//     directory: one line of JSON, {"holder":"floed","pid":1234}, emptied
//     at Close (see Holder);
//   - floed.state.*.tmp, briefly, while a write is under way.
//
// # Writes
//
// Every Put or Delete rewrites the whole file: to a temporary file in the
// directory, fsynced, renamed over floed.state, and the directory fsynced.
// A crash leaves the old file or the new one, and Put returns only once the
// new one is durable. A reservation never goes down. A missing state file is
// a fresh start; one that exists but cannot be read or trusted is an error,
// never an empty state, because starting from zero could issue IDs again.
//
// # Format
//
// The state file is JSON, indented, ending in a newline:
//
//	{
//	  "version": 1,
//	  "sequences": {
//	    "default": {
//	      "definition": "id64 layout=\"41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z\" datacenter=0 worker=0",
//	      "reserved": 1834567891234,
//	      "updated": "2026-03-01T12:00:00Z"
//	    }
//	  },
//	  "checksum": "crc32c:ba855c6e"
//	}
//
// The fields:
//
//   - version: 1, the only version this package reads.
//   - sequences: an object keyed by sequence name (non-empty), each with
//     definition (a string the daemon writes and compares; opaque here),
//     reserved (R, a tick, as a JSON integer up to 2^64-1) and updated
//     (the wall time of the write, RFC 3339 in UTC; informational).
//   - checksum: "crc32c:" and 8 lower-case hex digits, the CRC-32C
//     (Castagnoli) of the sequences object as Go's encoding/json.Marshal
//     encodes the decoded map: compact, keys sorted, HTML characters
//     escaped. A torn or bit-flipped file fails it.
//
// Other fields, a missing sequences object or data after the object make
// the file invalid. An edit by hand must recompute the checksum.
package statefile
