package id64

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Layout presets, named after the systems whose IDs they read and write. Each
// passes Validate. They are variables so that call sites read
// Config{Layout: id64.Twitter}; treat them as constants, or copy one and
// change the copy.
var (
	// Twitter is the Snowflake layout of Twitter and of Heroku's noeqd: sign
	// bit, 41-bit millisecond time since 2010-11-04T01:42:54.657Z
	// (1288834974657 ms after the Unix epoch), 5-bit datacenter, 5-bit worker,
	// 12-bit sequence. Its time runs out at 2080-07-10T17:30:30.209Z.
	Twitter = Layout{
		Epoch:          time.UnixMilli(1288834974657).UTC(),
		Unit:           time.Millisecond,
		TimeBits:       41,
		DatacenterBits: 5,
		WorkerBits:     5,
		SequenceBits:   12,
	}

	// Icicle is the layout of intenthq/icicle 1.x, which generates IDs
	// inside Redis with a Lua script: sign bit, 41-bit millisecond time,
	// 10-bit logical shard (the worker), 12-bit sequence.
	//
	// The script returns Redis's TIME, and icicle's Java client makes the
	// ID: it subtracts its CUSTOM_EPOCH constant, 1401277473, from that time
	// in milliseconds. The constant reads as 2014-05-28T11:44:33Z in seconds,
	// but as milliseconds it is 1970-01-17T05:14:37.473Z, and that is the
	// epoch icicle 1.x IDs count from, so it is this preset's, to read and
	// write them bit for bit. Time runs out at 2039-09-23T21:02:13.025Z.
	Icicle = Layout{
		Epoch:        time.UnixMilli(1401277473).UTC(),
		Unit:         time.Millisecond,
		TimeBits:     41,
		WorkerBits:   10,
		SequenceBits: 12,
	}

	// Icicle2 is the layout of intenthq/icicle 2.x: Icicle's fields, with
	// icicle 2.x's default epoch, DEFAULT_CUSTOM_EPOCH = 1455788600316 ms,
	// 2016-02-18T09:43:20.316Z. Time runs out at 2085-10-25T01:30:55.868Z.
	// icicle 2.x lets each client choose its epoch; for another one, write
	// the layout out (see ParseLayout): 41t/10w/12s 1ms since EPOCH.
	Icicle2 = Layout{
		Epoch:        time.UnixMilli(1455788600316).UTC(),
		Unit:         time.Millisecond,
		TimeBits:     41,
		WorkerBits:   10,
		SequenceBits: 12,
	}

	// Redisgen is the default layout of floe's redisgen package, which makes
	// IDs inside Redis: icicle's fields (sign bit, 41-bit milliseconds,
	// 10-bit shard, 12-bit sequence) with the instant icicle 1.x meant as
	// its epoch, 2014-05-28T11:44:33Z (1401277473 s), counted in
	// milliseconds. Time runs out at 2084-02-02T03:32:08.552Z.
	Redisgen = Layout{
		Epoch:        time.Unix(1401277473, 0).UTC(),
		Unit:         time.Millisecond,
		TimeBits:     41,
		WorkerBits:   10,
		SequenceBits: 12,
	}

	// Instagram is the layout of "Sharding & IDs at Instagram" (2011), made by
	// a PL/pgSQL function in each logical shard: 41-bit millisecond time since
	// 2011-08-24T21:07:01.721Z (1314220021721 ms), 13-bit logical shard (the
	// worker), 10-bit sequence. The fields fill all 64 bits, so it is
	// Unsigned: from 2046-06-27T17:00:49.497Z on, when the time reaches
	// 2^40 ms, its IDs no longer fit a signed BIGINT.
	Instagram = Layout{
		Epoch:        time.UnixMilli(1314220021721).UTC(),
		Unit:         time.Millisecond,
		TimeBits:     41,
		WorkerBits:   13,
		SequenceBits: 10,
		Unsigned:     true,
	}

	// Discord is the layout of Discord's snowflakes: 42-bit millisecond time
	// since 2015-01-01T00:00:00Z (1420070400000 ms), 5-bit internal worker
	// ID (bits 21..17, the datacenter field here), 5-bit internal process ID
	// (bits 16..12, the worker field here), 12-bit increment. It is Unsigned,
	// as Discord's IDs are 64-bit unsigned integers.
	Discord = Layout{
		Epoch:          time.UnixMilli(1420070400000).UTC(),
		Unit:           time.Millisecond,
		TimeBits:       42,
		DatacenterBits: 5,
		WorkerBits:     5,
		SequenceBits:   12,
		Unsigned:       true,
	}
)

var (
	// Sonyflake is the layout of sony/sonyflake v1, the default fields of
	// v2: sign bit, 39-bit time in units of 10 ms since
	// 2014-09-01T00:00:00Z, 8-bit sequence, 16-bit machine ID (the worker
	// field). The sequence comes before the machine ID (TimeSequenceNode),
	// as sonyflake composes its IDs. Time runs out at
	// 2188-10-15T18:08:30.08Z (2^39 × 10 ms, 174 years). sonyflake v2 counts
	// from 2025-01-01 by default and lets each generator choose its widths
	// and unit; write such a layout out (see ParseLayout): 39t/8s/16w 10ms
	// since 2025-01-01.
	Sonyflake = Layout{
		Epoch:        time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC),
		Unit:         10 * time.Millisecond,
		TimeBits:     39,
		WorkerBits:   16,
		SequenceBits: 8,
		Order:        TimeSequenceNode,
	}

	// Hazelcast is the layout of Hazelcast's FlakeIdGenerator: sign bit,
	// 41-bit millisecond time since 2018-01-01T00:00:00Z (1514764800000 ms),
	// 6-bit sequence, 16-bit member node ID. Hazelcast composes
	// timestamp<<22 | sequence<<16 | nodeId, so the sequence comes before
	// the node (TimeSequenceNode). Time runs out at
	// 2087-09-07T15:47:35.552Z.
	Hazelcast = Layout{
		Epoch:        time.UnixMilli(1514764800000).UTC(),
		Unit:         time.Millisecond,
		TimeBits:     41,
		WorkerBits:   16,
		SequenceBits: 6,
		Order:        TimeSequenceNode,
	}

	// JS53 is a layout whose IDs stay below 2^53, so that a JavaScript
	// Number (a double) holds every one of them exactly, as JSON.parse
	// reads it in a browser: 41-bit millisecond time since
	// 2026-01-01T00:00:00Z, 5-bit worker, 7-bit sequence, 53 bits in all.
	// It keeps Twitter's 41 bits of milliseconds, so its time runs out at
	// 2095-09-07T15:47:35.552Z, 69 years on, and an ID's time is as fine as
	// Twitter's. The 12 bits left give 32 nodes of 128 IDs per millisecond
	// (128,000 a second) each, 4,096,000 a second in all.
	JS53 = Layout{
		Epoch:        time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Unit:         time.Millisecond,
		TimeBits:     41,
		WorkerBits:   5,
		SequenceBits: 7,
	}
)

// Snowcast node counts, as snowcast bounds them.
const (
	snowcastMinNodes = 128  // 7 node bits, 16 sequence bits
	snowcastMaxNodes = 8192 // 13 node bits, 10 sequence bits; snowcast's default
)

// Snowcast returns the layout of a noctarius/snowcast sequencer created for
// nodes logical nodes. Snowcast keeps 41 bits of milliseconds at the top of
// all 64 (it shifts the time left by 23, with no sign bit, so the layout is
// Unsigned) and splits the 23 bits below between the logical node ID (the
// worker field) and the counter: nodes 2^n gives n node bits and 23-n
// sequence bits. nodes must lie in 128..8192; like snowcast, Snowcast rounds
// a count that is not a power of two up to the next one. snowcast's default,
// 8192 nodes, gives 13 node bits and 10 sequence bits (1024 IDs per
// millisecond per node); 128 nodes give 7 and 16.
//
// snowcast has no default epoch: each sequencer is created with one. The
// returned layout uses the Twitter epoch; set Epoch to the sequencer's epoch
// to read or continue its IDs (snowcast's README uses 2014-01-01 as an
// example).
func Snowcast(nodes int) (Layout, error) {
	if nodes < snowcastMinNodes || nodes > snowcastMaxNodes {
		return Layout{}, fmt.Errorf("%w: %d", ErrSnowcastNodes, nodes)
	}
	nodeBits := bits.Len(uint(nodes - 1)) // rounds up to a power of two
	return Layout{
		Epoch:        Twitter.Epoch,
		Unit:         time.Millisecond,
		TimeBits:     41,
		WorkerBits:   nodeBits,
		SequenceBits: 23 - nodeBits,
		Unsigned:     true,
	}, nil
}

// presetNames lists the names LayoutByName knows, for errors and help.
const presetNames = "twitter, icicle, icicle2, instagram, discord, redisgen, sonyflake, hazelcast, js53 or snowcast-N"

// LayoutByName returns the preset a configuration names: "twitter" (also
// "noeq" and ""), "icicle" (icicle 1.x), "icicle2", "instagram",
// "discord", "redisgen", "sonyflake", "hazelcast", "js53" or "snowcast-N"
// for N nodes, 128..8192.
// ParseLayout reads these names and layouts written out.
func LayoutByName(name string) (Layout, error) {
	switch name {
	case "twitter", "noeq", "":
		return Twitter, nil
	case "icicle":
		return Icicle, nil
	case "icicle2":
		return Icicle2, nil
	case "instagram":
		return Instagram, nil
	case "discord":
		return Discord, nil
	case "redisgen":
		return Redisgen, nil
	case "sonyflake":
		return Sonyflake, nil
	case "hazelcast":
		return Hazelcast, nil
	case "js53":
		return JS53, nil
	}
	if n, ok := strings.CutPrefix(name, "snowcast-"); ok {
		nodes, err := strconv.Atoi(n)
		if err != nil {
			return Layout{}, fmt.Errorf("%w: %q: node count %q is not a number", ErrUnknownLayout, cut(name), cut(n))
		}
		return Snowcast(nodes)
	}
	return Layout{}, fmt.Errorf("%w: %q (want %s, or a layout such as %q)", ErrUnknownLayout, cut(name), presetNames, "41t/10w/12s 1ms since 2016-02-18")
}
