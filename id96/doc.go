// Package id96 implements 96-bit k-ordered IDs, bit- and text-compatible
// with the 96-bit IDs of github.com/fogfish/guid/v2.
//
// An ID is a triple of a time, a node (the allocator) and a sequence, with a
// drift code that decides how the time and the node share the order. IDs
// need no coordination: each node draws or is given a 32-bit identifier and
// issues its own IDs.
//
// # Layout
//
// With c the drift code and d = 18+c, an ID's 96 bits are, most significant
// first:
//
//	95     93 92          64+c 63+c          32+c 31+c         14 13      0
//	+--------+---------------+-----------------+---------------+---------+
//	| drift  | tick >> d     | node            | tick mod 2^d  | seq     |
//	| 3 bits | 29-c bits     | 32 bits         | d = 18+c bits | 14 bits |
//	+--------+---------------+-----------------+---------------+---------+
//
// The fields are:
//
//   - tick: 47 bits of time, Unix nanoseconds >> 17, so one tick is 2^17 ns
//     (about 131 µs) and ticks run to the year 2554;
//   - node: 32 bits identifying the allocator;
//   - seq: 14 bits that tell apart the IDs of one node within one tick.
//
// The 12-byte binary form is these bits in big-endian order.
//
// # Drift
//
// The time is split around the node. Its high 29-c bits sort before the
// node, its low d bits after it. IDs whose times fall in different windows
// of 2^d ticks (2^(35+c) ns, from 34 s for code 0 to 73 min for code 7) sort
// by time, whatever their nodes; inside a window they sort by node, then
// time, then sequence. So the order tolerates clocks that disagree by less
// than a window: IDs are k-ordered, by time at the window's precision. IDs
// of one node always sort by time, then sequence. [DefaultDrift], code 3,
// has windows of about 4.6 minutes; [DriftFor] picks the code for a
// tolerance, as guid does.
//
// # Text
//
// The text of an ID is 16 characters of guid's alphabet
//
//	.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz
//
// each carrying 6 bits, most significant first. The alphabet is in ASCII
// order, so text compared byte by byte sorts exactly as the bytes and the
// IDs do, and every 16 characters of it are the text of one ID. JSON holds
// the text as a string; database/sql stores the text, and Scan also reads
// the 12 raw bytes.
//
// A database sorts text by its collation, and only a bytewise one keeps
// ID order: declare the column with one (PostgreSQL: id text COLLATE "C";
// MySQL: a _bin collation) or store ID.Bytes in a binary column (bytea).
// Linguistic collations, such as ICU's (und-x-icu, the default of many
// PostgreSQL servers), weigh "." and "_" and case less than letters: under
// und-x-icu, 19,997 of 20,000 increasing IDs leave their place.
//
// Every decoder reports bad input with a *floe.ParseError with Format
// "id96", wrapping floe.ErrInvalidLength, floe.ErrInvalidCharacter or
// floe.ErrUnsupportedType, and none panics, whatever the input. The error
// says what was wrong and what the format wants: the offset of the first
// byte outside the alphabet and the character there, or the length given:
//
//	floe: cannot parse "Njc7pjKhxrcJu.-e" as id96: invalid character '-' at offset 14, want . 0-9 A-Z _ a-z
//	floe: cannot parse "Njc7pjKhxrcJu.." as id96: invalid length 15, want 16 characters of . 0-9 A-Z _ a-z
//
// Offsets in the errors of UnmarshalJSON count in the JSON, where an escape
// sequence stands for the character it names.
//
// # Generating IDs
//
// [New] issues from a package-level [Generator] with a crypto-random node;
// [NewGenerator] takes a configured node, drift code, clock and policy.
//
// guid draws its 14-bit sequence from one process-wide counter that wraps
// around, so a process that issues more than 16,384 IDs within one tick of
// 131 µs repeats earlier IDs. A Generator never does: each (tick, sequence)
// pair is reserved once, by an atomic operation on one word, the sequence
// restarts at 0 in every tick, and when a tick's 16,384 numbers are spent
// callers wait for the next tick (or, under floe.Borrow, take it ahead of the
// clock). The clock policy decides what happens when the clock runs back.
//
// # The 64-bit cast
//
// [ID.Uint64] drops the node and keeps the drift code, the whole tick and
// the sequence in 64 bits: guid's 64-bit (L) form. [FromUint64] puts a node
// back. The cast is unique only among the IDs of one node, so it suits
// systems where the node is known from elsewhere, such as a store that
// holds the IDs of one allocator.
//
// # Compatibility with guid
//
// An ID's bytes are guid's Bytes of the same K, its text is guid's String
// and what guid's FromStringG reads, and its JSON is guid's MarshalJSON. The
// only exception is a value guid's generators never write: drift code 0
// with a tick below 2^18, whose high word is zero. guid takes such a K for
// its 64-bit form and writes 8 bytes and a different text; this package
// always writes the 96-bit forms, which guid's FromBytes and FromStringG
// read back to the same K.
//
// guid writes its 64-bit values in JSON as "*" and the 96-bit text of the
// value on the writing process's node. [ID.UnmarshalJSON] reads that form
// with the node dropped, as FromUint64(v, 0).
package id96
