package id80

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestEpoch(t *testing.T) {
	if got, want := Epoch, time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("Epoch = %v, want %v", got, want)
	}
	if got, want := timeOf(MaxTimestamp), time.Date(2079, 9, 7, 15, 47, 35, 548_000_000, time.UTC); !got.Equal(want) {
		t.Errorf("time of MaxTimestamp = %v, want %v", got, want)
	}
}

func TestID_Parts(t *testing.T) {
	tests := []struct {
		name string
		hex  string
		want Parts
	}{
		{
			name: "zero",
			hex:  "00000000000000000000",
			want: Parts{Time: Epoch},
		},
		{
			name: "written by sno in 2020",
			hex:  "2554e1684a0150010001",
			want: Parts{
				Time:      time.Date(2020, 2, 29, 12, 34, 56, 788_000_000, time.UTC),
				Timestamp: 80168924197,
				Meta:      1,
				Partition: Partition{'P', 1},
				Sequence:  1,
			},
		},
		{
			name: "written by sno in 2024",
			hex:  "34f5d0c8027fabcd1234",
			want: Parts{
				Time:      time.Date(2024, 6, 1, 8, 0, 0, 4_000_000, time.UTC),
				Timestamp: 113731200001,
				Meta:      0x7f,
				Partition: Partition{0xab, 0xcd},
				Sequence:  0x1234,
			},
		},
		{
			name: "last time with tick-tock clear",
			hex:  "fffffffffeffffffffff",
			want: Parts{
				Time:      time.Date(2079, 9, 7, 15, 47, 35, 548_000_000, time.UTC),
				Timestamp: MaxTimestamp,
				Meta:      0xff,
				Partition: Partition{0xff, 0xff},
				Sequence:  0xffff,
			},
		},
		{
			name: "tick-tock set",
			hex:  "0123456789abcdef0123",
			want: Parts{
				Time:      time.Date(2010, 4, 24, 2, 50, 36, 688_000_000, time.UTC),
				Timestamp: 0x0123456789 >> 1,
				TickTock:  true,
				Meta:      0xab,
				Partition: Partition{0xcd, 0xef},
				Sequence:  0x0123,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := idFromHex(t, tt.hex)
			got := id.Parts()
			if !got.Time.Equal(tt.want.Time) || got.Time.Location() != time.UTC {
				t.Errorf("Parts().Time = %v, want %v in UTC", got.Time, tt.want.Time)
			}
			got.Time, tt.want.Time = time.Time{}, time.Time{}
			if got != tt.want {
				t.Errorf("Parts() = %+v, want %+v", got, tt.want)
			}
			// The accessors agree with Parts.
			p := id.Parts()
			if !id.Time().Equal(p.Time) || id.Timestamp() != p.Timestamp || id.TickTock() != p.TickTock ||
				id.Meta() != p.Meta || id.Partition() != p.Partition || id.Sequence() != p.Sequence {
				t.Errorf("accessors disagree with Parts() = %+v", p)
			}
		})
	}
}

func TestNewID(t *testing.T) {
	tests := []struct {
		name      string
		block     uint64
		meta      byte
		partition uint16
		seq       uint16
		want      string // hex
	}{
		{"zero", 0, 0, 0, 0, "00000000000000000000"},
		{"all ones", blockMask, 0xff, 0xffff, 0xffff, "ffffffffffffffffffff"},
		{"tick-tock only", 1, 0, 0, 0, "00000000010000000000"},
		{"timestamp one", 1 << 1, 0, 0, 0, "00000000020000000000"},
		{"bits above the block dropped", 1<<40 | 3, 0, 0, 0, "00000000030000000000"},
		{"fields", 0x2554e1684a, 1, 0x5001, 1, "2554e1684a0150010001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := newID(tt.block, tt.meta, tt.partition, tt.seq)
			if want := idFromHex(t, tt.want); got != want {
				t.Errorf("newID(%#x, %#x, %#x, %#x) = %x, want %x", tt.block, tt.meta, tt.partition, tt.seq, got[:], want[:])
			}
			if got.block() != tt.block&blockMask {
				t.Errorf("block() = %#x, want %#x", got.block(), tt.block&blockMask)
			}
		})
	}
}

func TestID_Compare(t *testing.T) {
	tests := []struct {
		name string
		a, b string // hex
		want int
	}{
		{"equal", "2554e1684a0150010001", "2554e1684a0150010001", 0},
		{"first byte", "0154e1684a0150010001", "2554e1684a0150010001", -1},
		{"tick-tock", "2554e1684b0150010001", "2554e1684a0150010001", +1},
		{"eighth byte", "2554e1684a0150000001", "2554e1684a0150010001", -1},
		{"last byte", "2554e1684a0150010002", "2554e1684a0150010001", +1},
		{"ninth byte", "2554e1684a0150010101", "2554e1684a0150010201", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := idFromHex(t, tt.a), idFromHex(t, tt.b)
			if got := a.Compare(b); got != tt.want {
				t.Errorf("Compare() = %d, want %d", got, tt.want)
			}
			if got := b.Compare(a); got != -tt.want {
				t.Errorf("reverse Compare() = %d, want %d", got, -tt.want)
			}
		})
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 10000 {
		a, b := randomID(r), randomID(r)
		if r.IntN(4) == 0 {
			copy(b[:8], a[:8])
		}
		if got, want := a.Compare(b), bytes.Compare(a[:], b[:]); got != want {
			t.Fatalf("Compare(%x, %x) = %d, want %d", a[:], b[:], got, want)
		}
	}
}

func TestID_IsZero(t *testing.T) {
	if !(ID{}).IsZero() {
		t.Error("ID{}.IsZero() = false")
	}
	for i := range Size {
		var id ID
		id[i] = 1
		if id.IsZero() {
			t.Errorf("IsZero() of %x = true", id[:])
		}
	}
}

func TestID_Bytes(t *testing.T) {
	id := MustParse("6ncg4s4c27a24223")
	b := id.Bytes()
	if !bytes.Equal(b, id[:]) {
		t.Fatalf("Bytes() = %x, want %x", b, id[:])
	}
	b[0]++
	if id != MustParse("6ncg4s4c27a24223") {
		t.Error("changing the result of Bytes() changed the ID")
	}
}

// TestID_Order checks that byte order, text order and time order (timestamp,
// then tick-tock, then the payload) are one and the same.
func TestID_Order(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const n = 5000
	seen := make(map[ID]bool, n)
	var ids []ID
	for len(ids) < n {
		// Few timestamps, so that ties on time are common and the
		// tick-tock bit and payload decide.
		ts := uint64(1_000_000 + r.IntN(50))
		if r.IntN(10) == 0 {
			ts = r.Uint64N(MaxTimestamp + 1)
		}
		block := ts<<1 | uint64(r.IntN(2))
		id := newID(block, byte(r.IntN(3)), uint16(r.IntN(3)), uint16(r.Uint32()))
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}

	byBytes := slices.Clone(ids)
	slices.SortFunc(byBytes, func(a, b ID) int { return bytes.Compare(a[:], b[:]) })

	byText := slices.Clone(ids)
	slices.SortFunc(byText, func(a, b ID) int { return strings.Compare(a.String(), b.String()) })

	byTime := slices.Clone(ids)
	slices.SortFunc(byTime, func(a, b ID) int {
		pa, pb := a.Parts(), b.Parts()
		if c := pa.Time.Compare(pb.Time); c != 0 {
			return c
		}
		if pa.TickTock != pb.TickTock {
			if pa.TickTock {
				return +1
			}
			return -1
		}
		if c := int(pa.Meta) - int(pb.Meta); c != 0 {
			return c
		}
		if c := int(pa.Partition.Uint16()) - int(pb.Partition.Uint16()); c != 0 {
			return c
		}
		return int(pa.Sequence) - int(pb.Sequence)
	})

	byCompare := slices.Clone(ids)
	slices.SortFunc(byCompare, ID.Compare)

	for i := range byBytes {
		if byText[i] != byBytes[i] || byTime[i] != byBytes[i] || byCompare[i] != byBytes[i] {
			t.Fatalf("orders differ at %d: bytes %x, text %x, time %x, Compare %x",
				i, byBytes[i][:], byText[i][:], byTime[i][:], byCompare[i][:])
		}
	}
}

func TestTimestampOf(t *testing.T) {
	tests := []struct {
		name   string
		t      time.Time
		want   uint64
		wantOK bool
	}{
		{"epoch", Epoch, 0, true},
		{"just before epoch", Epoch.Add(-time.Nanosecond), 0, false},
		{"one unit", Epoch.Add(TimeUnit), 1, true},
		{"rounds down", Epoch.Add(2*TimeUnit - time.Nanosecond), 1, true},
		{"other zone", time.Date(2020, 2, 29, 13, 34, 56, 789_000_000, time.FixedZone("CET", 3600)), 80168924197, true},
		{"last", timeOf(MaxTimestamp).Add(TimeUnit - 1), MaxTimestamp, true},
		{"past the last", timeOf(MaxTimestamp).Add(TimeUnit), 0, false},
		{"far future", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), 0, false},
		{"zero time", time.Time{}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := timestampOf(tt.t)
			if ok != tt.wantOK || (ok && got != tt.want) {
				t.Errorf("timestampOf(%v) = %d, %v, want %d, %v", tt.t, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
