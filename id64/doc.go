// Package id64 holds floe's 64-bit Snowflake IDs: the ID type and the
// Layout that says how its 64 bits are cut into time, node and sequence.
//
// An ID does not record its layout. Code that reads the time or the node out
// of an ID passes the layout it was made with:
//
//	id, err := id64.Parse("1541815603606036480")
//	created := id.Time(id64.Twitter)
//	parts := id64.Twitter.Parts(id)
//
// # Layouts
//
// Bits are counted from the top: an optional sign bit, then time, datacenter,
// worker and sequence. The time field counts ticks of Layout.Unit since
// Layout.Epoch; datacenter and worker together are the node, which must be
// unique among the generators that run at one time; the sequence numbers the
// IDs of one node within one tick.
//
// Twitter (and noeqd): 1 ms since 2010-11-04T01:42:54.657Z, until
// 2080-07-10T17:30:30.209Z.
//
//	 63 62                                 22 21    17 16    12 11         0
//	+--+-------------------------------------+--------+--------+------------+
//	|0 |             time: 41                | dc: 5  | wkr: 5 |  seq: 12   |
//	+--+-------------------------------------+--------+--------+------------+
//
// Icicle (icicle 1.x): 1 ms since 1970-01-17T05:14:37.473Z (see Icicle for
// why), until 2039-09-23T21:02:13.025Z. The worker is icicle's logical shard
// ID. Icicle2 (icicle 2.x) has the same fields, 1 ms since icicle 2.x's
// default epoch, 2016-02-18T09:43:20.316Z, until 2085-10-25T01:30:55.868Z;
// Redisgen, the layout of floe's redisgen package, too, 1 ms since
// 2014-05-28T11:44:33Z, until 2084-02-02T03:32:08.552Z.
//
//	 63 62                                 22 21             12 11         0
//	+--+-------------------------------------+-----------------+------------+
//	|0 |             time: 41                |  shard/wkr: 10  |  seq: 12   |
//	+--+-------------------------------------+-----------------+------------+
//
// Instagram: 1 ms since 2011-08-24T21:07:01.721Z, until
// 2081-04-30T12:54:37.273Z. Unsigned. The worker is the logical shard ID.
//
//	 63                                    23 22                10 9       0
//	+----------------------------------------+-------------------+----------+
//	|              time: 41                  |  shard/wkr: 13    | seq: 10  |
//	+----------------------------------------+-------------------+----------+
//
// Discord: 1 ms since 2015-01-01T00:00:00Z, until 2154-05-15T07:35:11.104Z.
// Unsigned. Discord's internal worker ID is the datacenter field, its
// internal process ID the worker field, its increment the sequence.
//
//	 63                                  22 21    17 16    12 11           0
//	+--------------------------------------+--------+--------+--------------+
//	|              time: 42                | wkr: 5 | pid: 5 | increment: 12|
//	+--------------------------------------+--------+--------+--------------+
//
// Snowcast(nodes): 1 ms since the sequencer's epoch (the Twitter epoch until
// set), 41 bits, then n = log2(nodes) bits of logical node (the worker field,
// 7..13 bits) and 23-n of counter (16..10 bits). Unsigned.
//
//	 63                                    23 22          23-n 22-n         0
//	+----------------------------------------+----------------+-------------+
//	|              time: 41                  |  node: n       | seq: 23-n   |
//	+----------------------------------------+----------------+-------------+
//
// # Layouts as text
//
// Layout.String writes a layout as text, and ParseLayout reads it back, or a
// preset's name (LayoutByName): the widths of time (t), datacenter (d),
// worker (w) and sequence (s), the tick unit, the epoch (an RFC 3339 time, a
// date or Unix milliseconds) and, for an Unsigned layout, "unsigned":
//
//	41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z
//	41t/10w/12s 1ms since 1455788600316
//	42t/5d/5w/12s 1ms since 2015-01-01 unsigned
//
// floe's command-line tools, floed and its HTTP API accept this text
// wherever they take a layout, so IDs of a system without a preset can be
// read and made.
//
// # 63 or 64 bits
//
// A layout that is not Unsigned uses at most 63 bits and leaves the top bit
// 0, so every ID it makes is a non-negative int64: it fits a signed SQL
// BIGINT, a Java long and ID.Value returns it as an int64. An Unsigned layout
// may use all 64 bits, as Instagram, Discord and snowcast do; once its time
// reaches the top bit, its IDs exceed 2^63-1 and need an unsigned or
// NUMERIC(20) column (ID.Value then returns the decimal string), or are
// kept in a signed BIGINT as negative numbers, as Instagram's next_id
// returns them from 2046-06-27 on: ID.Scan reads a negative BIGINT as the
// ID with the same 64 bits, and ID.Int64 writes one. Validate enforces the
// limit with ErrLayoutBits, and CheckID refuses an ID with the top bit set
// (a negative BIGINT) for a layout that is not Unsigned.
//
// # Order
//
// Time is the top field, so for one layout, IDs of different ticks order by
// time whichever way they are compared: as integers (ID.Compare), as 8
// big-endian bytes (ID.Bytes, MarshalBinary), or as 20-digit zero-padded
// decimal text (ID.PaddedString). IDs of the same tick order by node and
// then sequence, so IDs of one generator are strictly increasing, and IDs of
// several generators are sorted to within their clock skew.
//
// Plain decimal text (ID.String, MarshalText, MarshalJSON) sorts like the
// numbers only among IDs with the same number of digits: "999" sorts after
// "1000". For one layout the digit count changes rarely. Every Twitter ID
// made from 2018-05-25T13:05:53.759Z to the layout's end in 2080 has 19
// digits, and every one made before 2018-05-25T13:05:53.758Z has at most 18;
// a signed layout never reaches 20. Discord IDs reached 19 digits in 2022
// and will reach 20 in 2090. Where text must sort like the IDs for all time,
// as in a key-value store's keys, store PaddedString.
//
// # Text, JSON, binary and SQL
//
// The text form is the decimal number. Parse and UnmarshalText accept 1 to 20
// digits, leading zeros included, and nothing else. JSON carries the ID as a
// string, since JavaScript numbers lose precision above 2^53, and accepts a
// bare integer number too. The binary form is 8 bytes, big-endian, as in the
// noeq wire protocol. Value and Scan store the ID in a BIGINT column. Every
// decoder reports bad input with a *floe.ParseError wrapping one of
// floe.ErrInvalidLength, floe.ErrInvalidCharacter, floe.ErrOutOfRange or
// floe.ErrUnsupportedType, and none panics, whatever the input. The error
// says what was wrong and what the format wants: the offset of the first
// byte that is not a digit and the character there, the length given, or
// the range:
//
//	floe: cannot parse "12x4" as id64: invalid character 'x' at offset 2, want 0-9
//	floe: cannot parse "18446744073709551616" as id64: value out of range, want 0 to 18446744073709551615
//
// Offsets in the errors of UnmarshalJSON count in the JSON, where an escape
// sequence stands for the character it names.
package id64
