package bench

import (
	"testing"
	"time"

	"github.com/bwmarrin/snowflake"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
)

// twitterEpochMilli is the Twitter epoch, 2010-11-04T01:42:54.657Z, in Unix
// milliseconds: bwmarrin's default and id64.Twitter's.
const twitterEpochMilli = 1288834974657

// setSnowflakeLayout sets bwmarrin's package-level layout and restores the
// previous one when the test or benchmark ends. bwmarrin's ID methods read
// shifts and masks that only NewNode recomputes, so it calls NewNode after
// each change. Callers must not run in parallel with other users of the
// globals.
func setSnowflakeLayout(tb testing.TB, epoch int64, nodeBits, stepBits uint8) {
	tb.Helper()
	oldEpoch, oldNode, oldStep := snowflake.Epoch, snowflake.NodeBits, snowflake.StepBits
	apply := func(epoch int64, nodeBits, stepBits uint8) {
		snowflake.Epoch, snowflake.NodeBits, snowflake.StepBits = epoch, nodeBits, stepBits
		if _, err := snowflake.NewNode(0); err != nil {
			tb.Fatal(err)
		}
	}
	apply(epoch, nodeBits, stepBits)
	tb.Cleanup(func() { apply(oldEpoch, oldNode, oldStep) })
}

// compareSnowflake reports every field on which the floe Twitter ID id and
// the bwmarrin ID sf, meant to be the same ID, disagree.
func compareSnowflake(t *testing.T, id id64.ID, sf snowflake.ID) {
	t.Helper()
	p := id64.Twitter.Parts(id)
	if got, want := sf.Int64(), id.Int64(); got != want {
		t.Errorf("value: bwmarrin %d, floe %d", got, want)
	}
	if got, want := sf.String(), id.String(); got != want {
		t.Errorf("text: bwmarrin %q, floe %q", got, want)
	}
	if got, want := sf.Time(), p.Time.UnixMilli(); got != want {
		t.Errorf("%s: time: bwmarrin %d ms, floe %d ms (%v)", id, got, want, p.Time)
	}
	if got, want := sf.Node(), int64(p.Node); got != want {
		t.Errorf("%s: node: bwmarrin %d, floe %d (datacenter %d, worker %d)", id, got, want, p.Datacenter, p.Worker)
	}
	if got, want := sf.Step(), int64(p.Sequence); got != want {
		t.Errorf("%s: sequence: bwmarrin %d, floe %d", id, got, want)
	}
	if got, want := sf.IntBytes(), [8]byte(id.Bytes()); got != want {
		t.Errorf("%s: bytes: bwmarrin %x, floe %x", id, got, want)
	}
}

func TestSnowflake_TwitterIDsDecodeInBwmarrin(t *testing.T) {
	setSnowflakeLayout(t, twitterEpochMilli, 10, 12)
	tests := []struct {
		name               string
		start              time.Time
		datacenter, worker uint64
	}{
		{"node 0 at the epoch", time.UnixMilli(twitterEpochMilli), 0, 0},
		{"datacenter 1 worker 2", time.Date(2024, 6, 1, 12, 34, 56, 789_123_456, time.UTC), 1, 2},
		{"top node", time.Date(2079, 12, 31, 23, 59, 59, 0, time.UTC), 31, 31},
		{"datacenter 17 worker 5", time.Date(2018, 5, 25, 13, 5, 53, 759_000_000, time.UTC), 17, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := floetest.NewClock(tt.start)
			g, err := id64.NewGenerator(id64.Config{
				Layout:     id64.Twitter,
				Datacenter: tt.datacenter,
				Worker:     tt.worker,
				Clock:      clock,
			})
			if err != nil {
				t.Fatal(err)
			}
			node := int64(tt.datacenter<<5 | tt.worker)
			for i := range 20 {
				id, err := g.Next()
				if err != nil {
					t.Fatalf("Next #%d: %v", i, err)
				}
				sf := snowflake.ParseInt64(id.Int64())
				compareSnowflake(t, id, sf)
				if sf.Node() != node {
					t.Errorf("%s: bwmarrin reads node %d, generator has %d<<5|%d = %d", id, sf.Node(), tt.datacenter, tt.worker, node)
				}
				if got, want := sf.Time(), clock.Now().UnixMilli(); got != want {
					t.Errorf("%s: bwmarrin reads %d ms, clock reads %d ms", id, got, want)
				}
				if parsed, err := snowflake.ParseString(id.String()); err != nil || parsed != sf {
					t.Errorf("bwmarrin ParseString(%q) = %d, %v", id, parsed, err)
				}
				if i%6 == 5 {
					clock.Step(time.Duration(i) * time.Millisecond)
				}
			}
		})
	}
}

func TestSnowflake_BwmarrinIDsDecodeInFloe(t *testing.T) {
	setSnowflakeLayout(t, twitterEpochMilli, 10, 12)
	for _, n := range []int64{0, 1, 34, 555, 1023} {
		node, err := snowflake.NewNode(n)
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			sf := node.Generate()
			id, err := id64.Parse(sf.String())
			if err != nil {
				t.Fatalf("id64.Parse(%q): %v", sf, err)
			}
			if id != id64.ID(sf.Int64()) {
				t.Errorf("floe parses %q as %d", sf, id)
			}
			b := sf.IntBytes()
			if fromBytes, err := id64.FromBytes(b[:]); err != nil || fromBytes != id {
				t.Errorf("id64.FromBytes(%x) = %d, %v; want %d", b, fromBytes, err, id)
			}
			compareSnowflake(t, id, sf)
			p := id64.Twitter.Parts(id)
			if p.Datacenter != uint64(n>>5) || p.Worker != uint64(n&31) {
				t.Errorf("%s: floe reads datacenter %d worker %d, bwmarrin node %d", id, p.Datacenter, p.Worker, n)
			}
		}
	}
}
