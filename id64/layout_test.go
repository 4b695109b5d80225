package id64

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe"
)

// validLayout is a small signed layout that tests modify one field at a time.
var validLayout = Layout{
	Epoch:          time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC),
	Unit:           time.Millisecond,
	TimeBits:       41,
	DatacenterBits: 5,
	WorkerBits:     5,
	SequenceBits:   12,
}

func with(f func(*Layout)) Layout {
	l := validLayout
	f(&l)
	return l
}

func TestLayout_Validate(t *testing.T) {
	tests := []struct {
		name   string
		layout Layout
		want   []error // every sentinel the error must match; nil for valid
	}{
		{"valid", validLayout, nil},
		{"zero datacenter and worker bits", with(func(l *Layout) { l.DatacenterBits, l.WorkerBits = 0, 0 }), nil},
		{"64 bits when unsigned", with(func(l *Layout) { l.TimeBits = 42; l.Unsigned = true }), nil},
		{"56 time bits", with(func(l *Layout) {
			l.TimeBits, l.DatacenterBits, l.WorkerBits, l.SequenceBits, l.Unit = 56, 0, 3, 4, time.Nanosecond
		}), nil},
		{"epoch before 1970", with(func(l *Layout) { l.Epoch = time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC) }), nil},
		{"zero epoch", with(func(l *Layout) { l.Epoch = time.Time{} }), []error{ErrLayoutEpoch}},
		{"zero unit", with(func(l *Layout) { l.Unit = 0 }), []error{ErrLayoutUnit}},
		{"negative unit", with(func(l *Layout) { l.Unit = -time.Millisecond }), []error{ErrLayoutUnit}},
		{"zero time bits", with(func(l *Layout) { l.TimeBits = 0 }), []error{ErrLayoutTimeBits}},
		{"57 time bits", with(func(l *Layout) {
			l.TimeBits, l.DatacenterBits, l.WorkerBits, l.SequenceBits, l.Unit = 57, 0, 0, 1, time.Nanosecond
		}), []error{ErrLayoutTimeBits}},
		{"negative time bits", with(func(l *Layout) { l.TimeBits = -1 }), []error{ErrLayoutNegativeBits}},
		{"negative datacenter bits", with(func(l *Layout) { l.DatacenterBits = -1 }), []error{ErrLayoutNegativeBits}},
		{"negative worker bits", with(func(l *Layout) { l.WorkerBits = -5 }), []error{ErrLayoutNegativeBits}},
		{"negative sequence bits", with(func(l *Layout) { l.SequenceBits = -1 }), []error{ErrLayoutNegativeBits}},
		{"zero sequence bits", with(func(l *Layout) { l.SequenceBits = 0 }), []error{ErrLayoutSequenceBits}},
		{"64 bits when signed", with(func(l *Layout) { l.TimeBits = 42 }), []error{ErrLayoutBits}},
		{"65 bits when unsigned", with(func(l *Layout) { l.TimeBits = 43; l.Unsigned = true }), []error{ErrLayoutBits}},
		{"huge widths do not overflow the total", with(func(l *Layout) { l.DatacenterBits, l.WorkerBits = math.MaxInt, math.MaxInt }), []error{ErrLayoutBits}},
		{"span beyond 292 years", with(func(l *Layout) { l.TimeBits, l.SequenceBits = 44, 9 }), nil},
		{"mastodon: 48 bits of ms since 1970", Layout{Epoch: time.Unix(0, 0).UTC(), Unit: time.Millisecond, TimeBits: 48, SequenceBits: 16, Unsigned: true}, nil},
		{"longest span: 56 bits of 1 s", Layout{Epoch: time.Unix(0, 0).UTC(), Unit: time.Second, TimeBits: 56, SequenceBits: 7}, nil},
		{"span beyond time.Time", Layout{Epoch: time.Unix(0, 0).UTC(), Unit: 1000 * time.Hour, TimeBits: 56, SequenceBits: 7}, []error{ErrLayoutSpan}},
		{"everything wrong", Layout{SequenceBits: -1}, []error{ErrLayoutEpoch, ErrLayoutUnit, ErrLayoutTimeBits, ErrLayoutNegativeBits}},
		{"sequence before node", with(func(l *Layout) { l.Order = TimeSequenceNode }), nil},
		{"unknown order", with(func(l *Layout) { l.Order = 2 }), []error{ErrLayoutOrder}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.layout.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want %v", tt.want)
			}
			for _, want := range tt.want {
				if !errors.Is(err, want) {
					t.Errorf("Validate() = %v, does not match %v", err, want)
				}
			}
		})
	}
}

func TestLayout_Max(t *testing.T) {
	tests := []struct {
		name                                       string
		layout                                     Layout
		nodeBits                                   int
		maxNode, maxDC, maxWorker, maxSeq, maxTick uint64
	}{
		{"twitter", Twitter, 10, 1023, 31, 31, 4095, 1<<41 - 1},
		{"icicle", Icicle, 10, 1023, 0, 1023, 4095, 1<<41 - 1},
		{"instagram", Instagram, 13, 8191, 0, 8191, 1023, 1<<41 - 1},
		{"discord", Discord, 10, 1023, 31, 31, 4095, 1<<42 - 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.layout
			got := []uint64{uint64(l.NodeBits()), l.MaxNode(), l.MaxDatacenter(), l.MaxWorker(), l.MaxSequence(), l.MaxTick()}
			want := []uint64{uint64(tt.nodeBits), tt.maxNode, tt.maxDC, tt.maxWorker, tt.maxSeq, tt.maxTick}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("NodeBits, MaxNode, MaxDatacenter, MaxWorker, MaxSequence, MaxTick = %v, want %v", got, want)
					break
				}
			}
		})
	}
}

func TestLayout_CheckID(t *testing.T) {
	sonyflakeLike := Layout{
		Epoch: time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC), Unit: 10 * time.Millisecond,
		TimeBits: 39, DatacenterBits: 16, SequenceBits: 7,
	}
	tests := []struct {
		name    string
		layout  Layout
		id      ID
		wantMax ID
		wantErr bool
	}{
		{"zero", Twitter, 0, math.MaxInt64, false},
		{"largest signed", Twitter, math.MaxInt64, math.MaxInt64, false},
		{"top bit on a signed layout", Twitter, 1 << 63, math.MaxInt64, true},
		{"all bits on a signed layout", Icicle, math.MaxUint64, math.MaxInt64, true},
		{"top bit on an unsigned layout", Discord, 1 << 63, math.MaxUint64, false},
		{"all bits on an unsigned layout", Instagram, math.MaxUint64, math.MaxUint64, false},
		{"largest of a 62-bit layout", sonyflakeLike, 1<<62 - 1, 1<<62 - 1, false},
		{"above a 62-bit layout", sonyflakeLike, 1 << 62, 1<<62 - 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.layout.MaxID(); got != tt.wantMax {
				t.Errorf("MaxID() = %d, want %d", got, tt.wantMax)
			}
			err := tt.layout.CheckID(tt.id)
			if got := errors.Is(err, ErrIDRange); got != tt.wantErr || (err != nil) != tt.wantErr {
				t.Fatalf("CheckID(%d) = %v, want ErrIDRange: %v", tt.id, err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), tt.id.String()) {
				t.Errorf("CheckID(%d) = %q, which does not name the ID", tt.id, err)
			}
		})
	}
}

func TestLayout_Node(t *testing.T) {
	tests := []struct {
		name               string
		layout             Layout
		datacenter, worker uint64
		want               uint64
		err                error
	}{
		{"zero", Twitter, 0, 0, 0, nil},
		{"datacenter 1 worker 2", Twitter, 1, 2, 1<<5 | 2, nil},
		{"maximum", Twitter, 31, 31, 1023, nil},
		{"datacenter too large", Twitter, 32, 0, 0, ErrDatacenterRange},
		{"worker too large", Twitter, 0, 32, 0, ErrWorkerRange},
		{"no datacenter bits", Icicle, 0, 1023, 1023, nil},
		{"datacenter without bits", Icicle, 1, 0, 0, ErrDatacenterRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.layout.Node(tt.datacenter, tt.worker)
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("Node(%d, %d) error = %v, want %v", tt.datacenter, tt.worker, err, tt.err)
			}
			if got != tt.want {
				t.Errorf("Node(%d, %d) = %d, want %d", tt.datacenter, tt.worker, got, tt.want)
			}
		})
	}
}

func TestLayout_Tick(t *testing.T) {
	epoch := Twitter.Epoch
	tests := []struct {
		name string
		t    time.Time
		want uint64
		err  error
	}{
		{"epoch", epoch, 0, nil},
		{"inside the first tick", epoch.Add(999 * time.Microsecond), 0, nil},
		{"second tick", epoch.Add(time.Millisecond), 1, nil},
		{"one second", epoch.Add(time.Second + 500*time.Microsecond), 1000, nil},
		{"last tick", Twitter.End().Add(-time.Nanosecond), Twitter.MaxTick(), nil},
		{"end", Twitter.End(), 0, floe.ErrTimeExhausted},
		{"far future", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), 0, floe.ErrTimeExhausted},
		{"before epoch", epoch.Add(-time.Nanosecond), 0, ErrBeforeEpoch},
		{"zero time", time.Time{}, 0, ErrBeforeEpoch},
		{"other location", epoch.In(time.FixedZone("x", 3600)).Add(2 * time.Millisecond), 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Twitter.Tick(tt.t)
			if err != tt.err {
				t.Fatalf("Tick(%v) error = %v, want %v", tt.t, err, tt.err)
			}
			if got != tt.want {
				t.Errorf("Tick(%v) = %d, want %d", tt.t, got, tt.want)
			}
		})
	}
}

func TestLayout_End(t *testing.T) {
	tests := []struct {
		name   string
		layout Layout
		want   string // End
		last   string // TickTime(MaxTick)
	}{
		{"twitter", Twitter, "2080-07-10T17:30:30.209Z", "2080-07-10T17:30:30.208Z"},
		{"icicle", Icicle, "2039-09-23T21:02:13.025Z", "2039-09-23T21:02:13.024Z"},
		{"instagram", Instagram, "2081-04-30T12:54:37.273Z", "2081-04-30T12:54:37.272Z"},
		{"discord", Discord, "2154-05-15T07:35:11.104Z", "2154-05-15T07:35:11.103Z"},
		// Past what a time.Duration since the epoch holds (292 years).
		{"mastodon", mastodon, "10889-08-02T05:31:50.656Z", "10889-08-02T05:31:50.655Z"},
		{"56 bits of seconds", Layout{Epoch: time.Unix(0, 0).UTC(), Unit: time.Second, TimeBits: 56, SequenceBits: 7}, "2283416224-11-24T12:52:16Z", "2283416224-11-24T12:52:15Z"},
		{"epoch with nanoseconds", Layout{Epoch: time.Unix(0, 999_999_999).UTC(), Unit: time.Millisecond, TimeBits: 48, SequenceBits: 15}, "10889-08-02T05:31:51.655999999Z", "10889-08-02T05:31:51.654999999Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.layout.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := tt.layout.End().Format(time.RFC3339Nano); got != tt.want {
				t.Errorf("End() = %s, want %s", got, tt.want)
			}
			if got := tt.layout.TickTime(tt.layout.MaxTick()).Format(time.RFC3339Nano); got != tt.last {
				t.Errorf("TickTime(MaxTick()) = %s, want %s", got, tt.last)
			}
			if _, err := tt.layout.Tick(tt.layout.End()); err != floe.ErrTimeExhausted {
				t.Errorf("Tick(End()) error = %v, want %v", err, floe.ErrTimeExhausted)
			}
		})
	}
}

// mastodon is the layout of Mastodon's timestamp_id: 48 bits of
// milliseconds since the Unix epoch and 16 bits of sequence, all 64 bits.
var mastodon = Layout{Epoch: time.Unix(0, 0).UTC(), Unit: time.Millisecond, TimeBits: 48, SequenceBits: 16, Unsigned: true}

// TestLayout_LongSpan converts ticks to times and back where the time since
// the epoch is more than a time.Duration holds.
func TestLayout_LongSpan(t *testing.T) {
	long := []Layout{
		mastodon,
		{Epoch: time.Date(2000, 1, 1, 0, 0, 0, 123, time.UTC), Unit: 7 * time.Millisecond, TimeBits: 50, SequenceBits: 13},
		{Epoch: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Nanosecond), Unit: time.Second, TimeBits: 56, SequenceBits: 7},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, l := range long {
		t.Run(l.String(), func(t *testing.T) {
			ticks := []uint64{0, 1, l.MaxTick() - 1, l.MaxTick(), uint64(math.MaxInt64 / int64(l.Unit)), uint64(math.MaxInt64/int64(l.Unit)) + 1}
			for range 1000 {
				ticks = append(ticks, r.Uint64N(l.MaxTick()+1))
			}
			for _, tick := range ticks {
				at := l.TickTime(tick)
				for _, d := range []time.Duration{0, l.Unit - 1} {
					if got, err := l.Tick(at.Add(d)); err != nil || got != tick {
						t.Fatalf("Tick(TickTime(%d) + %v) = %d, %v; want %d", tick, d, got, err, tick)
					}
				}
				if tick > 0 {
					if got, err := l.Tick(at.Add(-1)); err != nil || got != tick-1 {
						t.Fatalf("Tick(TickTime(%d) - 1ns) = %d, %v; want %d", tick, got, err, tick-1)
					}
				}
			}
			if _, err := l.Tick(l.End()); err != floe.ErrTimeExhausted {
				t.Errorf("Tick(End()) error = %v, want %v", err, floe.ErrTimeExhausted)
			}
			if _, ok := l.tickTime(math.MaxUint64); ok {
				// A tick past the end whose start a time.Time holds.
				if got := l.TickTime(math.MaxUint64); !got.After(l.End()) {
					t.Errorf("TickTime(2^64-1) = %v, want a time after End %v", got, l.End())
				}
			} else if got := l.TickTime(math.MaxUint64); !got.Equal(l.End()) {
				t.Errorf("TickTime(2^64-1) = %v, want End %v", got, l.End())
			}
			far := time.Unix(maxUnixSeconds, 0)
			if _, err := l.Tick(far); err != floe.ErrTimeExhausted {
				t.Errorf("Tick(%v) error = %v, want %v", far, err, floe.ErrTimeExhausted)
			}
		})
	}
}

// testLayouts are the layouts the round-trip tests run over: the presets,
// every Snowcast size and some odd ones, 64-bit ones included.
func testLayouts(t testing.TB) map[string]Layout {
	ls := map[string]Layout{
		"twitter":   Twitter,
		"icicle":    Icicle,
		"instagram": Instagram,
		"discord":   Discord,
		"sonyflake-like 39t/8d/16w 10ms": {
			Epoch: time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC), Unit: 10 * time.Millisecond,
			TimeBits: 39, DatacenterBits: 16, SequenceBits: 8,
		},
		"unsigned 64 bits with 1 sequence bit": {
			Epoch: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Unit: time.Second,
			TimeBits: 33, DatacenterBits: 15, WorkerBits: 15, SequenceBits: 1, Unsigned: true,
		},
		"sonyflake":             Sonyflake,
		"hazelcast":             Hazelcast,
		"js53":                  JS53,
		"mastodon":              mastodon,
		"sequence before split": {Epoch: Twitter.Epoch, Unit: time.Millisecond, TimeBits: 41, DatacenterBits: 5, WorkerBits: 5, SequenceBits: 12, Order: TimeSequenceNode},
		"single node 52 sequence bits": {
			Epoch: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Unit: time.Hour,
			TimeBits: 12, SequenceBits: 52, Unsigned: true,
		},
	}
	for n := snowcastMinNodes; n <= snowcastMaxNodes; n *= 2 {
		l, err := Snowcast(n)
		if err != nil {
			t.Fatalf("Snowcast(%d): %v", n, err)
		}
		ls["snowcast "+itoa(n)] = l
	}
	return ls
}

func itoa(n int) string { return ID(n).String() }

// randomParts returns in-range fields for l, biased to the edges.
func randomParts(r *rand.Rand, l Layout) (tick, dc, worker, seq uint64) {
	pick := func(max uint64) uint64 {
		switch r.IntN(4) {
		case 0:
			return 0
		case 1:
			return max
		}
		if max == math.MaxUint64 {
			return r.Uint64()
		}
		return r.Uint64N(max + 1)
	}
	return pick(l.MaxTick()), pick(l.MaxDatacenter()), pick(l.MaxWorker()), pick(l.MaxSequence())
}

func TestLayout_ComposeParts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for name, l := range testLayouts(t) {
		t.Run(name, func(t *testing.T) {
			if err := l.Validate(); err != nil {
				t.Fatalf("Validate() = %v", err)
			}
			for range 2000 {
				tick, dc, worker, seq := randomParts(r, l)
				node := dc<<uint(l.WorkerBits) | worker
				want := ID(tick<<uint(l.NodeBits()+l.SequenceBits) | node<<uint(l.SequenceBits) | seq)
				if l.Order == TimeSequenceNode {
					want = ID(tick<<uint(l.NodeBits()+l.SequenceBits) | seq<<uint(l.NodeBits()) | node)
				}

				got, err := l.Compose(Parts{Tick: tick, Datacenter: dc, Worker: worker, Sequence: seq})
				if err != nil || got != want {
					t.Fatalf("Compose(tick %d, dc %d, worker %d, seq %d) = %d, %v; want %d", tick, dc, worker, seq, got, err, want)
				}
				if !l.Unsigned && got > math.MaxInt64 {
					t.Fatalf("signed layout made %d, above 2^63-1", got)
				}
				if err := l.CheckID(got); err != nil {
					t.Fatalf("CheckID(Compose(...)) = %v", err)
				}
				p := l.Parts(got)
				wantParts := Parts{Time: l.TickTime(tick), Tick: tick, Datacenter: dc, Worker: worker, Node: node, Sequence: seq}
				if !partsEqual(p, wantParts) {
					t.Fatalf("Parts(%d) = %+v, want %+v", got, p, wantParts)
				}
				if !l.Time(got).Equal(p.Time) || !got.Time(l).Equal(p.Time) || !partsEqual(got.Parts(l), p) {
					t.Fatalf("Time/ID.Time/ID.Parts disagree with Parts for %d", got)
				}
				again, err := l.Compose(p)
				if err != nil || again != got {
					t.Fatalf("Compose(Parts(%d)) = %d, %v", got, again, err)
				}
				byNode, err := l.Compose(Parts{Time: p.Time, Node: node, Sequence: seq})
				if err != nil || byNode != got {
					t.Fatalf("Compose by time and node = %d, %v; want %d", byNode, err, got)
				}
			}
		})
	}
}

func partsEqual(a, b Parts) bool {
	return a.Time.Equal(b.Time) && a.Tick == b.Tick && a.Datacenter == b.Datacenter &&
		a.Worker == b.Worker && a.Node == b.Node && a.Sequence == b.Sequence
}

func TestLayout_ComposeErrors(t *testing.T) {
	epoch := Twitter.Epoch
	tests := []struct {
		name   string
		layout Layout
		parts  Parts
		err    error
	}{
		{"invalid layout", Layout{}, Parts{}, ErrLayoutEpoch},
		{"time before epoch", Twitter, Parts{Time: epoch.Add(-time.Millisecond)}, ErrBeforeEpoch},
		{"time at end", Twitter, Parts{Time: Twitter.End()}, floe.ErrTimeExhausted},
		{"tick above max", Twitter, Parts{Tick: 1 << 41}, floe.ErrTimeExhausted},
		{"time and tick disagree", Twitter, Parts{Time: epoch.Add(5 * time.Millisecond), Tick: 4}, ErrPartsMismatch},
		{"datacenter too large", Twitter, Parts{Datacenter: 32}, ErrDatacenterRange},
		{"worker too large", Twitter, Parts{Worker: 32}, ErrWorkerRange},
		{"node too large", Twitter, Parts{Node: 1024}, ErrNodeRange},
		{"node and worker disagree", Twitter, Parts{Worker: 1, Node: 2}, ErrPartsMismatch},
		{"sequence too large", Twitter, Parts{Sequence: 4096}, ErrSequenceRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.layout.Compose(tt.parts)
			if !errors.Is(err, tt.err) {
				t.Fatalf("Compose(%+v) = %d, %v; want error %v", tt.parts, got, err, tt.err)
			}
		})
	}
}

func TestLayout_FirstLast(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for name, l := range testLayouts(t) {
		t.Run(name, func(t *testing.T) {
			for range 500 {
				tick, dc, worker, seq := randomParts(r, l)
				id := l.compose(tick, dc<<uint(l.WorkerBits)|worker, seq)
				at := l.TickTime(tick).Add(time.Duration(r.Int64N(int64(l.Unit))))
				first, last := l.First(at), l.Last(at)
				if id < first || id > last {
					t.Fatalf("%d not in [First, Last] = [%d, %d] of its tick %d", id, first, last, tick)
				}
				if p := l.Parts(first); p.Tick != tick || p.Node != 0 || p.Sequence != 0 {
					t.Fatalf("Parts(First) = %+v, want tick %d, node 0, sequence 0", p, tick)
				}
				if p := l.Parts(last); p.Tick != tick || p.Node != l.MaxNode() || p.Sequence != l.MaxSequence() {
					t.Fatalf("Parts(Last) = %+v, want tick %d and maximum node and sequence", p, tick)
				}
				if tick > 0 && l.Last(l.TickTime(tick-1)) >= first {
					t.Fatalf("Last of tick %d reaches into tick %d", tick-1, tick)
				}
			}
		})
	}
	t.Run("clamped before epoch", func(t *testing.T) {
		if got := Twitter.First(time.Time{}); got != 0 {
			t.Errorf("First(zero time) = %d, want 0", got)
		}
		if got, want := Twitter.Last(Twitter.Epoch.Add(-time.Hour)), ID(1<<22-1); got != want {
			t.Errorf("Last(before epoch) = %d, want %d", got, want)
		}
	})
	t.Run("clamped after end", func(t *testing.T) {
		if got, want := Twitter.Last(Twitter.End().Add(time.Hour)), ID(math.MaxInt64); got != want {
			t.Errorf("Last(after end) = %d, want %d", got, want)
		}
		if got, want := Twitter.First(Twitter.End()), ID(math.MaxInt64-(1<<22-1)); got != want {
			t.Errorf("First(end) = %d, want %d", got, want)
		}
	})
}

func TestLayout_String(t *testing.T) {
	sc, _ := Snowcast(8192)
	tests := []struct {
		name   string
		layout Layout
		want   string
	}{
		{"twitter", Twitter, "41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z"},
		{"icicle", Icicle, "41t/10w/12s 1ms since 1970-01-17T05:14:37.473Z"},
		{"instagram", Instagram, "41t/13w/10s 1ms since 2011-08-24T21:07:01.721Z unsigned"},
		{"discord", Discord, "42t/5d/5w/12s 1ms since 2015-01-01T00:00:00Z unsigned"},
		{"snowcast 8192", sc, "41t/13w/10s 1ms since 2010-11-04T01:42:54.657Z unsigned"},
		{"epoch in another zone", with(func(l *Layout) {
			l.Epoch = time.Date(2020, 1, 1, 1, 0, 0, 0, time.FixedZone("CET", 3600))
			l.Unit = 10 * time.Millisecond
		}), "41t/5d/5w/12s 10ms since 2020-01-01T00:00:00Z"},
		{"zero layout", Layout{}, "0t/0s 0s since 0001-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.layout.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLayout_Equal(t *testing.T) {
	tests := []struct {
		name string
		a, b Layout
		want bool
	}{
		{"same", Twitter, Twitter, true},
		{"epoch in another location", Twitter, func() Layout { l := Twitter; l.Epoch = l.Epoch.Local(); return l }(), true},
		{"other epoch", validLayout, with(func(l *Layout) { l.Epoch = l.Epoch.Add(1) }), false},
		{"other unit", validLayout, with(func(l *Layout) { l.Unit = time.Second }), false},
		{"other time bits", validLayout, with(func(l *Layout) { l.TimeBits = 40 }), false},
		{"other datacenter bits", validLayout, with(func(l *Layout) { l.DatacenterBits = 4 }), false},
		{"other worker bits", validLayout, with(func(l *Layout) { l.WorkerBits = 4 }), false},
		{"other sequence bits", validLayout, with(func(l *Layout) { l.SequenceBits = 11 }), false},
		{"unsigned", validLayout, with(func(l *Layout) { l.Unsigned = true }), false},
		{"other order", validLayout, with(func(l *Layout) { l.Order = TimeSequenceNode }), false},
		{"order without node bits", with(func(l *Layout) { l.DatacenterBits, l.WorkerBits, l.SequenceBits = 0, 0, 22 }),
			with(func(l *Layout) { l.DatacenterBits, l.WorkerBits, l.SequenceBits, l.Order = 0, 0, 22, TimeSequenceNode }), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Equal(tt.b); got != tt.want {
				t.Errorf("Equal() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLayout_JSON(t *testing.T) {
	b, err := json.Marshal(Twitter)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"epoch":"2010-11-04T01:42:54.657Z","unit":1000000,"time_bits":41,"datacenter_bits":5,"worker_bits":5,"sequence_bits":12,"unsigned":false}`
	if string(b) != want {
		t.Errorf("json.Marshal(Twitter) = %s, want %s", b, want)
	}
	b, err = json.Marshal(Sonyflake)
	if err != nil {
		t.Fatal(err)
	}
	const wantSony = `{"epoch":"2014-09-01T00:00:00Z","unit":10000000,"time_bits":39,"datacenter_bits":0,"worker_bits":16,"sequence_bits":8,"unsigned":false,"order":"time-sequence-node"}`
	if string(b) != wantSony {
		t.Errorf("json.Marshal(Sonyflake) = %s, want %s", b, wantSony)
	}
	var bad Layout
	if err := json.Unmarshal([]byte(`{"order":"node-first"}`), &bad); !errors.Is(err, ErrLayoutOrder) {
		t.Errorf("json.Unmarshal of an unknown order = %v, want %v", err, ErrLayoutOrder)
	}
	for name, l := range testLayouts(t) {
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			var got Layout
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if !got.Equal(l) {
				t.Errorf("round trip of %s gave %s", l, got)
			}
		})
	}
}

// TestLayout_InvalidNoPanic calls every method of broken layouts: the results
// are meaningless, but none may panic.
func TestLayout_InvalidNoPanic(t *testing.T) {
	broken := []Layout{
		{},
		{TimeBits: -3, DatacenterBits: -70, WorkerBits: 200, SequenceBits: -1, Unit: -1},
		{TimeBits: math.MaxInt, DatacenterBits: math.MinInt, WorkerBits: math.MaxInt, SequenceBits: math.MaxInt, Unit: 1},
		{TimeBits: 64, SequenceBits: 64, Unit: time.Nanosecond, Epoch: time.Unix(0, 0)},
		{TimeBits: -3, DatacenterBits: -70, WorkerBits: 200, SequenceBits: -1, Unit: -1, Order: TimeSequenceNode},
		{TimeBits: 56, SequenceBits: 7, Unit: math.MaxInt64, Epoch: time.Unix(math.MaxInt64-62135596800, 0), Order: 9},
	}
	for _, l := range broken {
		_ = l.Validate()
		_, _ = l.Node(3, 4)
		_, _ = l.Tick(time.Now())
		_ = l.TickTime(math.MaxUint64)
		_ = l.End()
		_, _ = l.Compose(Parts{Tick: 5, Worker: 1, Sequence: 1})
		_ = l.compose(math.MaxUint64, math.MaxUint64, math.MaxUint64)
		_ = l.First(time.Now())
		_ = l.Last(time.Now())
		_ = l.Parts(math.MaxUint64)
		_ = l.Time(math.MaxUint64)
		_ = l.MaxID()
		_ = l.CheckID(math.MaxUint64)
		_ = l.String()
		_ = l.Equal(Twitter)
	}
}

func TestLayout_composeAllocs(t *testing.T) {
	l := Twitter
	var sink ID
	allocs := testing.AllocsPerRun(100, func() { sink = l.compose(5, 6, 7) })
	if allocs != 0 {
		t.Errorf("compose allocates %v times", allocs)
	}
	_ = sink
}

func TestLayout_Range(t *testing.T) {
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		layout      Layout
		from, to    time.Time
		first, last ID
		err         error
	}{
		{"one tick of twitter", Twitter, at, at, Twitter.First(at), Twitter.First(at) + 1<<22 - 1, nil},
		{"one tick of sonyflake", Sonyflake, at, at.Add(9 * time.Millisecond), Sonyflake.First(at), Sonyflake.First(at) + 1<<24 - 1, nil},
		{"one tick of hazelcast", Hazelcast, at, at, Hazelcast.First(at), Hazelcast.First(at) + 1<<22 - 1, nil},
		{"a day of js53", JS53, at, at.Add(24*time.Hour - 1), JS53.First(at), JS53.Last(at.Add(24*time.Hour - 1)), nil},
		{"the last tick of js53", JS53, JS53.End().Add(-1), JS53.End().Add(-1), JS53.First(JS53.End().Add(-1)), 1<<53 - 1, nil},
		{"the whole of mastodon", mastodon, mastodon.Epoch, mastodon.End().Add(-1), 0, math.MaxUint64, nil},
		{"before the epoch", JS53, JS53.Epoch.Add(-1), at, 0, 0, ErrBeforeEpoch},
		{"to at the end", JS53, at, JS53.End(), 0, 0, floe.ErrTimeExhausted},
		{"to before from", Twitter, at, at.Add(-time.Millisecond), 0, 0, ErrEmptyRange},
		{"to before from in one tick", Twitter, at.Add(time.Microsecond), at, 0, 0, ErrEmptyRange},
		{"invalid layout", Layout{}, at, at, 0, 0, ErrLayoutEpoch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, last, err := tt.layout.Range(tt.from, tt.to)
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("Range = %d, %d, %v; want error %v", first, last, err, tt.err)
			}
			if first != tt.first || last != tt.last {
				t.Errorf("Range = %d, %d; want %d, %d", first, last, tt.first, tt.last)
			}
		})
	}
}
