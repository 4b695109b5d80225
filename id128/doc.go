// Package id128 implements RFC 9562 version-7 UUIDs that are unique by
// construction: the 74 bits that other generators fill with random bits
// carry a counter and a leased worker ID as well.
//
// Other UUIDv7 generators are unique by chance, and monotonic only inside
// one process. A Generator here takes a worker ID that no other generator
// holds at the same time (a workerid lease, fenced), and a floor and ceiling
// reserved for it, so no two generators of a cluster, and no restart, can
// issue the same ID. Any UUID library and database reads the IDs as
// ordinary version-7 UUIDs.
//
// # Layout
//
// An ID's 128 bits are, most significant first:
//
//	127                    80 79  76 75           64 63 62 61       56 55      40 39        0
//	+------------------------+------+---------------+-----+-----------+----------+-----------+
//	| Unix milliseconds      | ver  | counter >> 6  | var | counter   | worker   | random    |
//	| 48 bits                | 0111 | 12 bits       | 10  | low 6     | 16 bits  | 40 bits   |
//	+------------------------+------+---------------+-----+-----------+----------+-----------+
//
// The fields are:
//
//   - time: 48 bits of Unix milliseconds, RFC 9562's unix_ts_ms;
//   - ver and var: the version, 7, and the variant, binary 10;
//   - counter: 18 bits, the ID's place among its generator's IDs of one
//     millisecond, 0 first, in rand_a and the top of rand_b;
//   - worker: 16 bits, the generator's worker ID;
//   - random: 40 bits from math/rand/v2's global source.
//
// The 16-byte binary form is these bits in big-endian order.
//
// # Why this split
//
// The counter follows the time, as RFC 9562 §6.2 places a dedicated counter
// (method 1). IDs of one generator then sort by issue, and IDs of one
// millisecond from several workers interleave by counter: the n-th ID of
// every worker sorts before the (n+1)-th, close to the order of issue. A
// counter of 18 bits allows 262,144 IDs a millisecond per worker, above
// what one generator issues (tens of millions a second). Its top 12 bits
// fill rand_a, where PostgreSQL and google/uuid put sub-millisecond order
// too.
//
// The worker ID comes next: uniqueness rests on (time, counter, worker),
// so the order of two floe IDs never depends on random bits. 16 bits is
// 65,536 generators at once, far above any cluster: floe leases worker IDs
// from a small range, so more bits would buy nothing.
//
// The last 40 bits are random. They keep IDs hard to guess (RFC 9562 §6.9),
// and keep a meeting unlikely when two generators are wrongly given one
// worker ID: they would also need the same millisecond, counter and 40 bits.
// math/rand/v2's global source is ChaCha8, seeded by the operating system
// and kept per thread: cryptographically strong, and a few nanoseconds a
// call. The counter restarts at 0 each millisecond, so an ID tells how many
// its generator issued before it in that millisecond.
//
// # Text
//
// The text of an ID is the canonical lower-case 8-4-4-4-12 form of RFC
// 9562. The decoders read every form google/uuid reads (upper case, braces,
// a urn:uuid: prefix, 32 digits without dashes) and refuse, by name,
// anything that is not a version-7 UUID of variant 10:
//
//	floe: cannot parse "6ba7b810-9dad-11d1-80b4-00c04fd430c8" as id128: UUID version 1, want version 7, variant 10 (RFC 9562)
//	floe: cannot parse "00000000-0000-0000-0000-000000000000" as id128: the nil UUID, want version 7, variant 10 (RFC 9562)
//
// Every decoder reports bad input with a *floe.ParseError with Format
// "id128", wrapping floe.ErrInvalidLength, floe.ErrInvalidCharacter,
// floe.ErrUnsupportedType or a *VersionError, and none panics.
//
// [ParseUUID] reads the same forms for a UUID of any version, as a [UUID]
// that says its version, variant and, for versions 1, 2, 6 and 7, its time.
//
// # Databases
//
// Value returns the canonical text, which lib/pq and pgx write into a
// PostgreSQL uuid column as it is; Scan reads the text a uuid column
// returns, or 16 raw bytes. PostgreSQL 18's uuid_extract_timestamp and
// uuid_extract_version read the time and the version of the IDs.
//
// # Generating IDs
//
// [NewGenerator] takes a worker ID, a clock and a clock policy, on the core
// every floe format shares. An ID names the millisecond in which it was
// issued. When a millisecond's counter is spent, callers wait for the next
// millisecond, or under floe.Borrow take it ahead of the clock, as the other
// formats do. There is no package-level New: an ID without a worker ID is
// unique only by chance, as any other UUIDv7.
package id128
