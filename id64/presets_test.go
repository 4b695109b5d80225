package id64

import (
	"errors"
	"testing"
	"time"
)

func TestPresets_Validate(t *testing.T) {
	presets := map[string]Layout{"twitter": Twitter, "icicle": Icicle, "icicle2": Icicle2, "instagram": Instagram, "discord": Discord, "redisgen": Redisgen, "sonyflake": Sonyflake, "hazelcast": Hazelcast}
	for n := 128; n <= 8192; n *= 2 {
		l, err := Snowcast(n)
		if err != nil {
			t.Fatalf("Snowcast(%d): %v", n, err)
		}
		presets["snowcast "+itoa(n)] = l
	}
	for name, l := range presets {
		t.Run(name, func(t *testing.T) {
			if err := l.Validate(); err != nil {
				t.Errorf("Validate() = %v", err)
			}
			if total := l.TimeBits + l.NodeBits() + l.SequenceBits; total != l.bitLimit() {
				t.Errorf("%s uses %d bits, want all %d", l, total, l.bitLimit())
			}
		})
	}
}

// TestPresets_Golden decodes IDs published by the systems the presets are
// named after.
func TestPresets_Golden(t *testing.T) {
	tests := []struct {
		name   string
		layout Layout
		id     ID
		want   Parts // Time is compared as Unix milliseconds
		source string
	}{
		{
			// Discord developer docs, "Snowflakes": 175928847299117063 is
			// 2016-04-30 11:18:25.796 UTC, worker 1, process 0, increment 7.
			name: "discord docs", layout: Discord, id: 175928847299117063,
			want: Parts{Time: time.UnixMilli(1462015105796), Tick: 41944705796, Datacenter: 1, Worker: 0, Node: 1 << 5, Sequence: 7},
		},
		{
			// twilight-util's Snowflake docs: a user created
			// 2015-10-19T01:58:38.546Z.
			name: "discord user", layout: Discord, id: 105484726235607040,
			want: Parts{Time: time.UnixMilli(1445219918546), Tick: 25149518546, Datacenter: 0, Worker: 11, Node: 11, Sequence: 0},
		},
		{
			// icicle's IcicleIdGeneratorSpec: Redis time 1427291923 s + 123 µs,
			// logical shard 789, sequence 456.
			name: "icicle spec", layout: Icicle, id: 5980618838099710408,
			want: Parts{Time: time.UnixMilli(1427291923000), Tick: 1427291923000 - 1401277473, Worker: 789, Node: 789, Sequence: 456},
		},
		{
			// icicle 2.x's IcicleIdGeneratorSpec: Redis time 1489959427 s +
			// 123 µs (2017-03-19T21:37:07Z), logical shard 789, sequence 456,
			// default epoch.
			name: "icicle 2 spec", layout: Icicle2, id: 143322835047240136,
			want: Parts{Time: time.UnixMilli(1489959427000), Tick: 1489959427000 - 1455788600316, Worker: 789, Node: 789, Sequence: 456},
		},
		{
			// A tweet's ID: posted 2022-12-03T23:22:39.724Z, datacenter 14,
			// worker 21.
			name: "tweet", layout: Twitter, id: 1599182356107579392,
			want: Parts{Time: time.UnixMilli(1670109759724), Tick: 1670109759724 - 1288834974657, Datacenter: 14, Worker: 21, Node: 14<<5 | 21, Sequence: 0},
		},
		{
			// A sony/sonyflake v1 ID (docs/migrating.md) of machine 513,
			// sequence 1, made 2026-11-25T23:41:13.63Z.
			name: "sonyflake", layout: Sonyflake, id: 647802658811347457,
			want: Parts{Time: time.UnixMilli(1795650073630), Tick: 38612047363, Worker: 513, Node: 513, Sequence: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.layout.Parts(tt.id)
			if !partsEqual(got, tt.want) {
				t.Errorf("Parts(%d) = %+v, want %+v", tt.id, got, tt.want)
			}
			id, err := tt.layout.Compose(tt.want)
			if err != nil || id != tt.id {
				t.Errorf("Compose(%+v) = %d, %v; want %d", tt.want, id, err, tt.id)
			}
		})
	}
}

// TestPresets_Formula checks each preset against the shifts its source
// writes out.
func TestPresets_Formula(t *testing.T) {
	const ms, tick, dc, worker, seq = 1700000000000, 123456789, 17, 29, 1001
	tests := []struct {
		name   string
		layout Layout
		parts  Parts
		want   uint64
	}{
		// noeqd / Snowflake: time<<22 | datacenter<<17 | worker<<12 | sequence
		{"twitter", Twitter, Parts{Time: time.UnixMilli(ms), Datacenter: dc, Worker: worker, Sequence: seq},
			(ms-1288834974657)<<22 | dc<<17 | worker<<12 | seq},
		// icicle: (timestamp - CUSTOM_EPOCH) << 22 | shard << 12 | sequence
		{"icicle", Icicle, Parts{Time: time.UnixMilli(ms), Worker: 1000, Sequence: seq},
			(ms-1401277473)<<22 | 1000<<12 | seq},
		// icicle 2.x: (timestamp - customEpoch) << 22 | shard << 12 | sequence
		{"icicle2", Icicle2, Parts{Time: time.UnixMilli(ms), Worker: 1000, Sequence: seq},
			(ms-1455788600316)<<22 | 1000<<12 | seq},
		// Instagram: (now_millis - our_epoch) << 23 | shard_id << 10 | seq_id
		{"instagram", Instagram, Parts{Time: time.UnixMilli(ms), Worker: 5000, Sequence: 1001 % 1024},
			(ms-1314220021721)<<23 | 5000<<10 | 1001},
		// Discord: timestamp << 22 | worker << 17 | process << 12 | increment
		{"discord", Discord, Parts{Time: time.UnixMilli(ms), Datacenter: dc, Worker: worker, Sequence: seq},
			(ms-1420070400000)<<22 | dc<<17 | worker<<12 | seq},
		// snowcast README: epochDelta << (64-41) | node << (64-41-13) | counter
		{"snowcast 8192", mustSnowcast(t, 8192, 1388534400000), Parts{Time: time.UnixMilli(1393823532000), Worker: 1234, Sequence: 1000},
			5289132000<<23 | 1234<<10 | 1000},
		{"snowcast 128", mustSnowcast(t, 128, 1388534400000), Parts{Tick: tick, Worker: 100, Sequence: 65535},
			tick<<23 | 100<<16 | 65535},
		// sonyflake v1 toID: elapsedTime<<(BitLenSequence+BitLenMachineID) |
		// sequence<<BitLenMachineID | machineID
		{"sonyflake", Sonyflake, Parts{Time: time.UnixMilli(ms), Worker: 51234, Sequence: 201},
			(ms-1409529600000)/10<<24 | 201<<16 | 51234},
		// Hazelcast FlakeIdGenerator: timestamp << (BITS_SEQUENCE +
		// BITS_NODE_ID) | sequence << BITS_NODE_ID | nodeId, with the epoch
		// EPOCH_START = 1514764800000
		{"hazelcast", Hazelcast, Parts{Time: time.UnixMilli(ms), Worker: 65535, Sequence: 63},
			(ms-1514764800000)<<22 | 63<<16 | 65535},
		{"js53", JS53, Parts{Time: time.UnixMilli(1800000000000), Worker: 31, Sequence: 127},
			(1800000000000-1767225600000)<<12 | 31<<7 | 127},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.layout.Compose(tt.parts)
			if err != nil || uint64(got) != tt.want {
				t.Errorf("Compose(%+v) = %d, %v; want %d", tt.parts, got, err, tt.want)
			}
		})
	}
}

func mustSnowcast(t *testing.T, nodes int, epochMillis int64) Layout {
	t.Helper()
	l, err := Snowcast(nodes)
	if err != nil {
		t.Fatal(err)
	}
	l.Epoch = time.UnixMilli(epochMillis).UTC()
	return l
}

func TestSnowcast(t *testing.T) {
	tests := []struct {
		name                     string
		nodes                    int
		workerBits, sequenceBits int
		err                      error
	}{
		{"128 nodes", 128, 7, 16, nil},
		{"256 nodes", 256, 8, 15, nil},
		{"512 nodes", 512, 9, 14, nil},
		{"1024 nodes", 1024, 10, 13, nil},
		{"2048 nodes", 2048, 11, 12, nil},
		{"4096 nodes", 4096, 12, 11, nil},
		{"8192 nodes", 8192, 13, 10, nil},
		{"rounded up to 256", 129, 8, 15, nil},
		{"rounded up to 8192", 5000, 13, 10, nil},
		{"too few", 127, 0, 0, ErrSnowcastNodes},
		{"zero", 0, 0, 0, ErrSnowcastNodes},
		{"negative", -128, 0, 0, ErrSnowcastNodes},
		{"too many", 8193, 0, 0, ErrSnowcastNodes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Snowcast(tt.nodes)
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("Snowcast(%d) error = %v, want %v", tt.nodes, err, tt.err)
			}
			if err != nil {
				return
			}
			want := Layout{Epoch: Twitter.Epoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: tt.workerBits, SequenceBits: tt.sequenceBits, Unsigned: true}
			if !l.Equal(want) {
				t.Errorf("Snowcast(%d) = %s, want %s", tt.nodes, l, want)
			}
			if got := (l.MaxNode() + 1) * (l.MaxSequence() + 1); got != 1<<23 {
				t.Errorf("Snowcast(%d) issues %d IDs per ms, want 2^23", tt.nodes, got)
			}
		})
	}
}

// TestInstagram_SignedUntil checks the date the Instagram doc gives for its
// IDs leaving the signed BIGINT range.
func TestInstagram_SignedUntil(t *testing.T) {
	at := time.Date(2046, 6, 27, 17, 0, 49, 497e6, time.UTC)
	if got := Instagram.Last(at.Add(-time.Millisecond)); got > 1<<63-1 {
		t.Errorf("Last(1ms before %v) = %d, above 2^63-1", at, got)
	}
	if got := Instagram.First(at); got < 1<<63 {
		t.Errorf("First(%v) = %d, below 2^63", at, got)
	}
}

func TestLayoutByName(t *testing.T) {
	sc, _ := Snowcast(1024)
	tests := []struct {
		name string
		want Layout
		err  error
	}{
		{"twitter", Twitter, nil},
		{"noeq", Twitter, nil},
		{"", Twitter, nil},
		{"icicle", Icicle, nil},
		{"icicle2", Icicle2, nil},
		{"instagram", Instagram, nil},
		{"discord", Discord, nil},
		{"redisgen", Redisgen, nil},
		{"sonyflake", Sonyflake, nil},
		{"hazelcast", Hazelcast, nil},
		{"js53", JS53, nil},
		{"snowcast-1024", sc, nil},
		{"snowcast-64", Layout{}, ErrSnowcastNodes},
		{"snowcast-x", Layout{}, ErrUnknownLayout},
		{"flake", Layout{}, ErrUnknownLayout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LayoutByName(tc.name)
			if !errors.Is(err, tc.err) || !got.Equal(tc.want) {
				t.Errorf("got %v, %v; want %v, %v", got, err, tc.want, tc.err)
			}
		})
	}
}

// TestJS53_Below2To53 checks that every ID JS53 can make, to its last tick,
// is below 2^53, so that a JavaScript Number holds it exactly.
func TestJS53_Below2To53(t *testing.T) {
	const limit = 1 << 53
	if err := JS53.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := JS53.MaxID(); got != limit-1 {
		t.Errorf("MaxID() = %d, want 2^53-1", got)
	}
	last := JS53.End().Add(-time.Nanosecond)
	if got := JS53.Last(last); got != limit-1 {
		t.Errorf("Last(%v) = %d, want 2^53-1", last, got)
	}
	if got, want := JS53.End().Format(time.RFC3339Nano), "2095-09-07T15:47:35.552Z"; got != want {
		t.Errorf("End() = %s, want %s", got, want)
	}
	if err := JS53.CheckID(limit); err == nil {
		t.Errorf("CheckID(2^53) = nil, want an error")
	}
	for _, id := range []ID{0, JS53.First(last), JS53.Last(last), limit - 1} {
		if f := float64(id); ID(f) != id {
			t.Errorf("float64(%d) = %v, not exact", id, f)
		}
	}
}
