package id96

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/floeid/floe"
)

// vectorID returns the ID of golden vector i from its bytes.
func vectorID(t testing.TB, i int) ID {
	t.Helper()
	b, err := hex.DecodeString(guidVectors[i].bytes)
	if err != nil || len(b) != Size {
		t.Fatalf("vector %d: bad bytes %q", i, guidVectors[i].bytes)
	}
	return ID(b)
}

func TestNewID_GuidVectors(t *testing.T) {
	for i, v := range guidVectors {
		t.Run(v.text, func(t *testing.T) {
			want := vectorID(t, i)
			got := newID(v.drift, v.tick, v.node, v.seq)
			if got != want {
				t.Errorf("newID(%d, %d, %#x, %d) = %x, want %x", v.drift, v.tick, v.node, v.seq, got[:], want[:])
			}
		})
	}
}

func TestID_PartsGuidVectors(t *testing.T) {
	for i, v := range guidVectors {
		t.Run(v.text, func(t *testing.T) {
			id := vectorID(t, i)
			got := id.Parts()
			want := Parts{
				Time:     timeOf(v.tick),
				Tick:     v.tick,
				Drift:    v.drift,
				Node:     v.node,
				Sequence: v.seq,
			}
			if got != want {
				t.Errorf("Parts() = %+v, want %+v", got, want)
			}
			if got, want := id.Tick(), v.tick; got != want {
				t.Errorf("Tick() = %d, want %d", got, want)
			}
			if got, want := id.Node(), v.node; got != want {
				t.Errorf("Node() = %#x, want %#x", got, want)
			}
			if got, want := id.Sequence(), v.seq; got != want {
				t.Errorf("Sequence() = %d, want %d", got, want)
			}
			if got, want := id.Drift(), v.drift; got != want {
				t.Errorf("Drift() = %d, want %d", got, want)
			}
			if got, want := id.Time(), timeOf(v.tick); !got.Equal(want) {
				t.Errorf("Time() = %v, want %v", got, want)
			}
			if got, want := id.Bytes(), id[:]; !bytes.Equal(got, want) {
				t.Errorf("Bytes() = %x, want %x", got, want)
			}
		})
	}
}

func TestNewID_Masks(t *testing.T) {
	tests := []struct {
		name  string
		drift Drift
		tick  uint64
		seq   uint16
		want  ID
	}{
		{"drift above 3 bits", 8 + 3, 5, 1, newID(3, 5, 7, 1)},
		{"tick above 47 bits", 3, 1<<47 | 5, 1, newID(3, 5, 7, 1)},
		{"sequence above 14 bits", 3, 5, 1<<14 | 1, newID(3, 5, 7, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := newID(tt.drift, tt.tick, 7, tt.seq); got != tt.want {
				t.Errorf("newID = %x, want %x", got[:], tt.want[:])
			}
		})
	}
}

func TestID_PartsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 10000; i++ {
		want := Parts{
			Tick:     r.Uint64() & MaxTick,
			Drift:    Drift(r.IntN(8)),
			Node:     r.Uint32(),
			Sequence: uint16(r.IntN(MaxSequence + 1)),
		}
		want.Time = timeOf(want.Tick)
		id, err := Compose(want)
		if err != nil {
			t.Fatalf("Compose(%+v): %v", want, err)
		}
		if got := id.Parts(); got != want {
			t.Fatalf("Compose(%+v).Parts() = %+v", want, got)
		}
	}
}

func TestCompose(t *testing.T) {
	at := time.Date(2024, 5, 17, 12, 30, 45, 123456789, time.UTC)
	tick := uint64(at.UnixNano()) >> 17
	tests := []struct {
		name    string
		parts   Parts
		want    ID
		wantErr error
	}{
		{"zero parts", Parts{}, ID{}, nil},
		{"tick", Parts{Tick: tick, Drift: 3, Node: 9, Sequence: 4}, newID(3, tick, 9, 4), nil},
		{"time when tick is zero", Parts{Time: at, Drift: 3, Node: 9, Sequence: 4}, newID(3, tick, 9, 4), nil},
		{"tick wins over time", Parts{Time: at, Tick: 1, Drift: 3}, newID(3, 1, 0, 0), nil},
		{"unix epoch", Parts{Time: time.Unix(0, 0)}, ID{}, nil},
		{"last tick", Parts{Time: timeOf(MaxTick).Add(TickUnit - 1), Drift: 7}, newID(7, MaxTick, 0, 0), nil},
		{"max fields", Parts{Tick: MaxTick, Drift: MaxDrift, Node: 1<<32 - 1, Sequence: MaxSequence}, MustParse("zzzzzzzzzzzzzzzz"), nil},
		{"drift above 7", Parts{Drift: 8}, ID{}, floe.ErrOutOfRange},
		{"tick above 47 bits", Parts{Tick: MaxTick + 1}, ID{}, floe.ErrOutOfRange},
		{"sequence above 14 bits", Parts{Sequence: MaxSequence + 1}, ID{}, floe.ErrOutOfRange},
		{"time before 1970", Parts{Time: time.Unix(-1, 0)}, ID{}, floe.ErrOutOfRange},
		{"time past the last tick", Parts{Time: timeOf(MaxTick).Add(TickUnit)}, ID{}, floe.ErrOutOfRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Compose(tt.parts)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Compose() error = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				var pe *floe.ParseError
				if !errors.As(err, &pe) || pe.Format != "id96" {
					t.Errorf("Compose() error = %#v, want *floe.ParseError of id96", err)
				}
			}
			if got != tt.want {
				t.Errorf("Compose() = %x, want %x", got[:], tt.want[:])
			}
		})
	}
}

func TestID_Time(t *testing.T) {
	tests := []struct {
		name string
		tick uint64
		want time.Time
	}{
		{"zero", 0, time.Unix(0, 0).UTC()},
		{"one tick", 1, time.Unix(0, 1<<17).UTC()},
		{"2024", 13091652260768, time.Unix(0, 13091652260768<<17).UTC()},
		{"past 2262", MaxTick, time.Unix(18446744073, 709420544).UTC()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := newID(DefaultDrift, tt.tick, 1, 1).Time()
			if !got.Equal(tt.want) || got.Location() != time.UTC {
				t.Errorf("Time() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestID_Compare(t *testing.T) {
	tests := []struct {
		name string
		a, b ID
		want int
	}{
		{"equal", newID(3, 10, 1, 1), newID(3, 10, 1, 1), 0},
		{"sequence", newID(3, 10, 1, 1), newID(3, 10, 1, 2), -1},
		{"tick", newID(3, 11, 1, 1), newID(3, 10, 1, 1), +1},
		{"node within a window", newID(3, 11, 1, 1), newID(3, 10, 2, 1), -1},
		{"window over node", newID(3, 1<<21, 1, 1), newID(3, 1<<21-1, 2, 1), +1},
		{"drift code first", newID(2, MaxTick, 1<<32-1, 1), newID(3, 0, 0, 0), -1},
		{"high word first", ID{0, 0, 0, 1}, ID{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, +1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Compare(tt.b); got != tt.want {
				t.Errorf("Compare() = %d, want %d", got, tt.want)
			}
			if got := tt.b.Compare(tt.a); got != -tt.want {
				t.Errorf("reverse Compare() = %d, want %d", got, -tt.want)
			}
			if got := bytes.Compare(tt.a[:], tt.b[:]); got != tt.want {
				t.Errorf("bytes.Compare() = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestID_OrderOneNode checks that the IDs of one node sort by time, then
// sequence, for every drift code.
func TestID_OrderOneNode(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for c := Drift(0); c <= MaxDrift; c++ {
		t.Run(fmt.Sprintf("drift %d", c), func(t *testing.T) {
			node := r.Uint32()
			type event struct {
				tick uint64
				seq  uint16
			}
			events := make([]event, 2000)
			for i := range events {
				// mix nearby ticks, which share windows, with far ones
				tick := r.Uint64() & MaxTick
				if i%2 == 1 {
					tick = events[i-1].tick + uint64(r.IntN(1<<12))&MaxTick
				}
				events[i] = event{tick, uint16(r.IntN(MaxSequence + 1))}
			}
			slices.SortFunc(events, func(a, b event) int {
				if a.tick != b.tick {
					return cmpU64(a.tick, b.tick)
				}
				return int(a.seq) - int(b.seq)
			})
			for i := 1; i < len(events); i++ {
				a := newID(c, events[i-1].tick, node, events[i-1].seq)
				b := newID(c, events[i].tick, node, events[i].seq)
				want := 0
				if events[i-1] != events[i] {
					want = -1
				}
				if got := a.Compare(b); got != want {
					t.Fatalf("%v vs %v: Compare() = %d, want %d", events[i-1], events[i], got, want)
				}
			}
		})
	}
}

// TestID_KOrder checks guid's order across nodes: with drift code c, IDs
// whose ticks lie in different windows of 2^(18+c) ticks sort by time
// whatever their nodes; in one window they sort by node first.
func TestID_KOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for c := Drift(0); c <= MaxDrift; c++ {
		t.Run(fmt.Sprintf("drift %d", c), func(t *testing.T) {
			d := uint(c) + 18
			for i := 0; i < 5000; i++ {
				ta, tb := r.Uint64()&MaxTick, r.Uint64()&MaxTick
				if i%2 == 1 { // same or adjacent window
					tb = ta + uint64(r.IntN(1<<(d+1)))&MaxTick
				}
				na, nb := r.Uint32(), r.Uint32()
				if i%5 == 0 {
					nb = na
				}
				sa, sb := uint16(r.IntN(MaxSequence+1)), uint16(r.IntN(MaxSequence+1))
				a, b := newID(c, ta, na, sa), newID(c, tb, nb, sb)

				var want int
				switch {
				case ta>>d != tb>>d:
					want = cmpU64(ta>>d, tb>>d)
				case na != nb:
					want = cmpU64(uint64(na), uint64(nb))
				case ta != tb:
					want = cmpU64(ta, tb)
				default:
					want = int(sa) - int(sb)
					want = max(-1, min(1, want))
				}
				if got := a.Compare(b); got != want {
					t.Fatalf("(tick %d, node %#x, seq %d) vs (tick %d, node %#x, seq %d): Compare() = %d, want %d",
						ta, na, sa, tb, nb, sb, got, want)
				}
				// The bound guid promises: a window or more apart is time order.
				if dist := absDiff(ta, tb); dist >= 1<<d && a.Compare(b) != cmpU64(ta, tb) {
					t.Fatalf("ticks %d and %d are %d apart, but sort against time", ta, tb, dist)
				}
			}
		})
	}
}

func TestID_IsZero(t *testing.T) {
	tests := []struct {
		name string
		id   ID
		want bool
	}{
		{"zero", ID{}, true},
		{"zero parts with drift", newID(DefaultDrift, 0, 0, 0), false},
		{"last byte", ID{11: 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.id.IsZero(); got != tt.want {
				t.Errorf("IsZero() = %v, want %v", got, tt.want)
			}
		})
	}
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return +1
	}
	return 0
}

func absDiff(a, b uint64) uint64 {
	if a > b {
		return a - b
	}
	return b - a
}

func TestTickOf(t *testing.T) {
	tests := []struct {
		name string
		t    time.Time
	}{
		{"unix epoch", time.Unix(0, 0)},
		{"2024", time.Date(2024, 5, 17, 12, 30, 45, 123456789, time.UTC)},
		{"before 1970 wraps as in guid", time.Date(1969, 12, 31, 23, 0, 0, 1, time.UTC)},
		{"last int64 nanosecond", time.Unix(0, 1<<63-1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// guid's tick: uint64(UnixNano()) >> 17
			if got, want := tickOf(tt.t), uint64(tt.t.UnixNano())>>17; got != want {
				t.Errorf("tickOf(%v) = %d, want %d", tt.t, got, want)
			}
		})
	}
	if got, want := tickOf(timeOf(MaxTick)), uint64(MaxTick); got != want {
		t.Errorf("tickOf(timeOf(MaxTick)) = %d, want %d", got, want)
	}
}
