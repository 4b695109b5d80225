package id96

import (
	"math/rand/v2"
	"testing"
)

func TestID_Uint64GuidVectors(t *testing.T) {
	for i, v := range guidVectors {
		t.Run(v.text, func(t *testing.T) {
			id := vectorID(t, i)
			if got, want := id.Uint64(), v.cast; got != want {
				t.Errorf("Uint64() = %#x, want %#x", got, want)
			}
			if got, want := FromUint64(v.cast, v.node), id; got != want {
				t.Errorf("FromUint64(%#x, %#x) = %x, want %x", v.cast, v.node, got[:], want[:])
			}
		})
	}
}

func TestFromUint64(t *testing.T) {
	tests := []struct {
		name string
		v    uint64
		node uint32
		want Parts
	}{
		{"zero", 0, 0, Parts{Time: timeOf(0)}},
		{"all ones", 1<<64 - 1, 7, Parts{Time: timeOf(MaxTick), Tick: MaxTick, Drift: 7, Node: 7, Sequence: MaxSequence}},
		{"fields", 3<<61 | 12345<<14 | 99, 0xabcdef01, Parts{Time: timeOf(12345), Tick: 12345, Drift: 3, Node: 0xabcdef01, Sequence: 99}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := FromUint64(tt.v, tt.node)
			if got := id.Parts(); got != tt.want {
				t.Errorf("FromUint64(%#x, %#x).Parts() = %+v, want %+v", tt.v, tt.node, got, tt.want)
			}
			if got := id.Uint64(); got != tt.v {
				t.Errorf("Uint64() = %#x, want %#x", got, tt.v)
			}
		})
	}
}

// TestID_Uint64Order checks that casts of one drift code sort as the IDs of
// one node do.
func TestID_Uint64Order(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 10000; i++ {
		c := Drift(r.IntN(8))
		node := r.Uint32()
		a := newID(c, r.Uint64(), node, uint16(r.Uint32()))
		b := newID(c, r.Uint64(), node, uint16(r.Uint32()))
		if got, want := cmpU64(a.Uint64(), b.Uint64()), a.Compare(b); got != want {
			t.Fatalf("%v vs %v: casts compare %d, IDs %d", a, b, got, want)
		}
	}
}
