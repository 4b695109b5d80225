// Package id80 implements floe's 80-bit IDs, bit- and text-compatible with
// github.com/muyo/sno (v1.2.1): an ID written by sno reads back unchanged
// here, and the reverse, in binary and in text.
//
// # Layout
//
// An ID is 10 bytes, big-endian, in two 40-bit blocks:
//
//	byte  0        1        2        3        4        5        6        7        8        9
//	     tttttttt tttttttt tttttttt tttttttt tttttttk mmmmmmmm pppppppp pppppppp ssssssss ssssssss
//	     |<------------- time block ------------->| |<-------------- payload ------------------>|
//
//	t  39 bits  timestamp: 4 ms units since 2010-01-01 00:00:00 UTC (Epoch)
//	k   1 bit   tick-tock: the timeline bit a generator toggles when its clock steps back
//	m   8 bits  metabyte: free for the application (an entity type, a shard)
//	p  16 bits  partition: the generator's fixed identifier
//	s  16 bits  sequence: counts IDs within one 4 ms unit
//
// The timestamp runs out at 2079-09-07 15:47:35.548 UTC ([MaxTimestamp]).
// Because the time block comes first and is big-endian, sorting IDs by their
// bytes sorts them by time, then tick-tock, then metabyte, partition and
// sequence.
//
// # Text
//
// The text form is 16 characters of a base32 alphabet made of two ASCII
// runs, digits then lower-case letters:
//
//	23456789abcdefghijklmnopqrstuvwx
//
// Each 40-bit block becomes 8 characters, 5 bits each, most significant
// first. The alphabet is in ASCII order, so text compared byte by byte
// sorts exactly as the bytes do. A database sorts text by its collation:
// ICU's root locale (und-x-icu) keeps the order, but a locale where "aa" is
// a letter of its own does not (Danish, da-x-icu: 18,395 of 20,000
// increasing IDs move), so declare the column with a bytewise collation
// (PostgreSQL: id text COLLATE "C"; MySQL: a _bin collation), or store the
// 10 bytes as Value does (bytea).
//
// 16 characters carry exactly 80 bits: every string matching [2-9a-x]{16}
// is a valid, canonical ID, and nothing else is. Decoding rejects
// any other character, upper case included, where sno's decoder accepts some
// of them without complaint.
//
// # Compatibility with sno
//
// Binary and text forms are identical to sno's, and so is JSON: the zero ID
// marshals to null and null unmarshals to the zero ID. [ID.Value] writes the
// 10 raw bytes, as sno's Value does; [ID.Scan] reads them as well as the text
// form.
//
// All decoding errors are *floe.ParseError values with Format "id80",
// wrapping floe.ErrInvalidLength, floe.ErrInvalidCharacter,
// floe.ErrOutOfRange or floe.ErrUnsupportedType. They say what was wrong
// and what the format wants: the offset of the first byte outside the
// alphabet and the character there, or the length given:
//
//	floe: cannot parse "9qad!fh223ht2222" as id80: invalid character '!' at offset 4, want 2-9 a-x
//	floe: cannot parse "abc" as id80: invalid length 3, want 16 characters of 2-9 a-x
//
// UnmarshalJSON reports a bad string's contents, its offsets counted in
// them. No input makes a decoder panic.
package id80
