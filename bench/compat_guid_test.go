package bench

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id96"
	"github.com/fogfish/guid/v2"
)

// compareGuid reports every field on which the floe ID id and the guid K k,
// meant to be the same ID, disagree.
func compareGuid(t *testing.T, id id96.ID, k guid.K) {
	t.Helper()
	if got, want := guid.Bytes(k), id.Bytes(); !bytes.Equal(got, want) {
		t.Errorf("bytes: guid %x, floe %x", got, want)
	}
	if got, want := guid.String(k), id.String(); got != want {
		t.Errorf("text: guid %q, floe %q", got, want)
	}
	if got, want := guid.Node(k), uint64(id.Node()); got != want {
		t.Errorf("%s: node: guid %#x, floe %#x", id, got, want)
	}
	if got, want := guid.Seq(k), uint64(id.Sequence()); got != want {
		t.Errorf("%s: sequence: guid %d, floe %d", id, got, want)
	}
	// guid's Time is Unix nanoseconds at the tick's precision, 2^17 ns.
	if got, want := guid.Time(k), id.Tick()<<17; got != want {
		t.Errorf("%s: time: guid %d ns, floe tick %d = %d ns", id, got, id.Tick(), want)
	}
	if got, want := guid.EpochT(k), id.Time(); !got.Equal(want) {
		t.Errorf("%s: time: guid EpochT %v, floe %v", id, got, want)
	}
	if got, want := k.Hi>>29, uint64(id.Drift()); got != want {
		t.Errorf("%s: drift code: guid %d, floe %d", id, got, want)
	}
	if got, want := guid.ToL(k), (guid.K{Lo: id.Uint64()}); got != want {
		t.Errorf("%s: 64-bit cast: guid ToL %+v, floe Uint64 %#x", id, got, id.Uint64())
	}
}

// floeInGuid reads a floe ID with guid, from its text and from its bytes,
// and checks both readings against it.
func floeInGuid(t *testing.T, id id96.ID) guid.K {
	t.Helper()
	fromText, err := guid.FromStringG(id.String())
	if err != nil {
		t.Fatalf("guid.FromStringG(%q): %v", id, err)
	}
	fromBytes, err := guid.FromBytes(id.Bytes())
	if err != nil {
		t.Fatalf("guid.FromBytes(%x): %v", id.Bytes(), err)
	}
	if fromText != fromBytes {
		t.Errorf("guid reads %q as %+v and its bytes as %+v", id, fromText, fromBytes)
	}
	compareGuid(t, id, fromText)
	return fromText
}

// guidInFloe reads a guid K with floe, from its text and from its bytes,
// and checks both readings against it.
func guidInFloe(t *testing.T, k guid.K) id96.ID {
	t.Helper()
	fromText, err := id96.Parse(guid.String(k))
	if err != nil {
		t.Fatalf("id96.Parse(%q): %v", guid.String(k), err)
	}
	fromBytes, err := id96.FromBytes(guid.Bytes(k))
	if err != nil {
		t.Fatalf("id96.FromBytes(%x): %v", guid.Bytes(k), err)
	}
	if fromText != fromBytes {
		t.Errorf("floe reads %q as %x and its bytes as %x", guid.String(k), fromText, fromBytes)
	}
	compareGuid(t, fromText, k)
	return fromText
}

func TestGuid_FloeIDsParseInGuid(t *testing.T) {
	tests := []struct {
		name  string
		start time.Time
		cfg   id96.Config
	}{
		{"node 1, default drift", time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC), id96.Config{Node: 1}},
		{"node deadbeef, drift 1", time.Date(2001, 9, 9, 1, 46, 40, 123_456_789, time.UTC), id96.Config{Node: 0xdeadbeef, Drift: 1}},
		{"top node, drift 7", time.Date(2200, 12, 31, 23, 59, 59, 999_999_999, time.UTC), id96.Config{Node: 0xffffffff, Drift: 7}},
		{"top node bit, drift 4", time.Date(2030, 6, 15, 0, 0, 0, 0, time.UTC), id96.Config{Node: 0x80000000, Drift: 4}},
		{"random node", time.Date(2026, 7, 8, 9, 10, 11, 12, time.UTC), id96.Config{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := floetest.NewClock(tt.start)
			cfg := tt.cfg
			cfg.Clock = clock
			g, err := id96.NewGenerator(cfg)
			if err != nil {
				t.Fatal(err)
			}
			guidClock := guid.NewClock(guid.WithNodeID(uint64(g.Node())))
			for i := range 40 {
				id, err := g.Next()
				if err != nil {
					t.Fatalf("Next #%d: %v", i, err)
				}
				k := floeInGuid(t, id)
				if got, want := guid.Node(k), uint64(g.Node()); got != want {
					t.Errorf("%s: guid reads node %#x, generator has %#x", id, got, want)
				}
				if got, want := guid.Time(k), uint64(clock.Now().UnixNano())>>17<<17; got != want {
					t.Errorf("%s: guid reads time %d ns, clock reads %d ns to the 2^17 ns unit", id, got, want)
				}
				// The cast back, on the generator's node, restores the ID.
				if got, want := guid.FromL(guidClock, guid.ToL(k)), k; got != want {
					t.Errorf("%s: guid FromL(ToL) %+v, want %+v", id, got, want)
				}
				if got := id96.FromUint64(id.Uint64(), g.Node()); got != id {
					t.Errorf("%s: FromUint64(Uint64) = %s", id, got)
				}
				if i%7 == 6 {
					clock.Step(id96.TickUnit * time.Duration(i))
				}
			}
		})
	}
}

func TestGuid_GuidIDsParseInFloe(t *testing.T) {
	drifts := []struct {
		name  string
		drift []time.Duration // guid's variadic drift argument
		want  id96.Drift
	}{
		{"default drift", nil, id96.DefaultDrift},
		{"30 s", []time.Duration{30 * time.Second}, 1},
		{"5 min", []time.Duration{5 * time.Minute}, 4},
		{"2 h", []time.Duration{2 * time.Hour}, 7},
	}
	nodes := []uint32{1, 0xdeadbeef, 0xffffffff}
	for _, d := range drifts {
		t.Run(d.name, func(t *testing.T) {
			for _, node := range nodes {
				clock := guid.NewClock(guid.WithNodeID(uint64(node)))
				for range 20 {
					id := guidInFloe(t, guid.G(clock, d.drift...))
					if id.Node() != node {
						t.Errorf("%s: floe reads node %#x, guid clock has %#x", id, id.Node(), node)
					}
					if id.Drift() != d.want {
						t.Errorf("%s: floe reads drift %d, want %d", id, id.Drift(), d.want)
					}
				}
			}
		})
	}
	t.Run("package clock", func(t *testing.T) {
		for range 20 {
			k := guid.G(guid.Clock)
			id := guidInFloe(t, k)
			if got, want := uint64(id.Node()), guid.Clock.L(); got != want {
				t.Errorf("%s: floe reads node %#x, guid clock has %#x", id, got, want)
			}
		}
	})
	t.Run("fixed times", func(t *testing.T) {
		for _, ns := range []uint64{
			1 << 17,
			1_700_000_000_123_456_789,
			uint64(time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()) - 1,
		} {
			clock := guid.NewClock(guid.WithNodeID(0x01020304), guid.WithClock(func() uint64 { return ns }))
			id := guidInFloe(t, guid.G(clock))
			if got, want := id.Time(), time.Unix(0, int64(ns>>17<<17)); !got.Equal(want) {
				t.Errorf("%s: floe time %v, want %v (%d ns to the 2^17 ns unit)", id, got, want, ns)
			}
		}
	})
	t.Run("64-bit L values", func(t *testing.T) {
		for _, node := range nodes {
			clock := guid.NewClock(guid.WithNodeID(uint64(node)))
			for range 20 {
				l := guid.L(clock)
				id := id96.FromUint64(l.Lo, node)
				if id.Uint64() != l.Lo {
					t.Errorf("FromUint64(%#x, %#x).Uint64() = %#x", l.Lo, node, id.Uint64())
				}
				if want := guidInFloe(t, guid.FromL(clock, l)); id != want {
					t.Errorf("FromUint64(%#x, %#x) = %s, guid FromL = %s", l.Lo, node, id, want)
				}
			}
		}
	})
}

func TestGuid_JSON(t *testing.T) {
	type floeDoc struct {
		ID id96.ID `json:"id"`
	}
	type guidDoc struct {
		ID guid.K `json:"id"`
	}

	t.Run("floe to guid", func(t *testing.T) {
		g, err := id96.NewGenerator(id96.Config{Node: 0xcafe})
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			id, err := g.Next()
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(floeDoc{id})
			if err != nil {
				t.Fatal(err)
			}
			var doc guidDoc
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatalf("guid reading %s: %v", b, err)
			}
			compareGuid(t, id, doc.ID)
		}
	})

	t.Run("guid to floe", func(t *testing.T) {
		clock := guid.NewClock(guid.WithNodeID(0xbabe))
		for range 20 {
			k := guid.G(clock)
			b, err := json.Marshal(guidDoc{k})
			if err != nil {
				t.Fatal(err)
			}
			var doc floeDoc
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatalf("floe reading %s: %v", b, err)
			}
			compareGuid(t, doc.ID, k)
			if back, err := json.Marshal(doc); err != nil || !bytes.Equal(back, b) {
				t.Errorf("JSON: guid %s, floe %s (%v)", b, back, err)
			}
		}
	})

	t.Run("guid 64-bit to floe", func(t *testing.T) {
		// guid writes an L value as "*" and the 96-bit text of the value on
		// its package clock's node; floe reads it with the node dropped.
		clock := guid.NewClock(guid.WithNodeID(0xbabe))
		for range 20 {
			l := guid.L(clock)
			b, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			var id id96.ID
			if err := json.Unmarshal(b, &id); err != nil {
				t.Fatalf("floe reading %s: %v", b, err)
			}
			if id.Uint64() != l.Lo || id.Node() != 0 {
				t.Errorf("floe reads %s as %s: cast %#x node %#x, want cast %#x node 0", b, id, id.Uint64(), id.Node(), l.Lo)
			}
			var k guid.K
			if err := json.Unmarshal(b, &k); err != nil {
				t.Fatal(err)
			}
			if k != l {
				t.Errorf("guid reads its own %s as %+v, wrote %+v", b, k, l)
			}
		}
	})

	t.Run("floe cast to guid", func(t *testing.T) {
		// floe writes a cast as the 96-bit ID on node 0; guid reads that ID,
		// whose own cast is the value.
		clock := guid.NewClock(guid.WithNodeID(0xbabe))
		for range 20 {
			v := guid.L(clock).Lo
			id := id96.FromUint64(v, 0)
			b, err := json.Marshal(id)
			if err != nil {
				t.Fatal(err)
			}
			var k guid.K
			if err := json.Unmarshal(b, &k); err != nil {
				t.Fatalf("guid reading %s: %v", b, err)
			}
			compareGuid(t, id, k)
			if guid.ToL(k).Lo != v {
				t.Errorf("guid reads %s with cast %#x, want %#x", b, guid.ToL(k).Lo, v)
			}
		}
	})
}
