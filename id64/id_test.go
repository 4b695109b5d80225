package id64

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestID_Basics(t *testing.T) {
	tests := []struct {
		name   string
		id     ID
		i64    int64
		zero   bool
		cmpOne int // Compare(1)
	}{
		{"zero", 0, 0, true, -1},
		{"one", 1, 1, false, 0},
		{"2^63-1", math.MaxInt64, math.MaxInt64, false, 1},
		{"2^63", 1 << 63, math.MinInt64, false, 1},
		{"2^64-1", math.MaxUint64, -1, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.id.Int64(); got != tt.i64 {
				t.Errorf("Int64() = %d, want %d", got, tt.i64)
			}
			if got := tt.id.Uint64(); got != uint64(tt.id) {
				t.Errorf("Uint64() = %d, want %d", got, uint64(tt.id))
			}
			if got := tt.id.IsZero(); got != tt.zero {
				t.Errorf("IsZero() = %v, want %v", got, tt.zero)
			}
			if got := tt.id.Compare(1); got != tt.cmpOne {
				t.Errorf("Compare(1) = %d, want %d", got, tt.cmpOne)
			}
		})
	}
}

// TestID_OrderBinaryIsTime checks that for one layout, IDs made at
// increasing ticks increase as integers and as big-endian bytes, whatever
// their node and sequence.
func TestID_OrderBinaryIsTime(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, name := range []string{"twitter", "discord", "snowcast 128"} {
		l := testLayouts(t)[name]
		t.Run(name, func(t *testing.T) {
			at := l.Epoch
			prev := ID(0)
			prevTime := time.Time{}
			for i := range 5000 {
				// Step by up to ten years; stop before the layout ends.
				at = at.Add(time.Duration(r.Int64N(int64(10 * 365 * 24 * time.Hour / 5000))))
				if !at.Before(l.End()) {
					break
				}
				tick, err := l.Tick(at)
				if err != nil {
					t.Fatal(err)
				}
				_, dc, worker, seq := randomParts(r, l)
				id := l.compose(tick, dc<<uint(l.WorkerBits)|worker, seq)
				if i > 0 && l.TickTime(tick).After(prevTime) {
					if id.Compare(prev) <= 0 {
						t.Fatalf("%d (at %v) not above %d (at %v)", id, at, prev, prevTime)
					}
					if bytes.Compare(id.Bytes(), prev.Bytes()) <= 0 {
						t.Fatalf("bytes of %d not above bytes of %d", id, prev)
					}
				}
				prev, prevTime = id, l.TickTime(tick)
			}
		})
	}
}

// TestID_OrderText checks that text order equals binary order for decimals
// of equal length and, for all IDs, for the padded form; and that plain
// decimals of different lengths do not.
func TestID_OrderText(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ids := make([]ID, 0, 4000)
	for range 2000 {
		ids = append(ids, ID(r.Uint64()>>r.UintN(64)))
	}
	for _, g := range goldenDecimal {
		ids = append(ids, g.id, g.id+1, g.id-1)
	}
	for range 2000 {
		a, b := ids[r.IntN(len(ids))], ids[r.IntN(len(ids))]
		want := bytes.Compare(a.Bytes(), b.Bytes())
		if got := a.Compare(b); got != want {
			t.Fatalf("Compare(%d, %d) = %d, bytes say %d", a, b, got, want)
		}
		if got := strings.Compare(a.PaddedString(), b.PaddedString()); got != want {
			t.Fatalf("padded %s vs %s = %d, want %d", a.PaddedString(), b.PaddedString(), got, want)
		}
		if sa, sb := a.String(), b.String(); len(sa) == len(sb) {
			if got := strings.Compare(sa, sb); got != want {
				t.Fatalf("%s vs %s = %d, want %d", sa, sb, got, want)
			}
		}
	}
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	byPadded := slices.Clone(ids)
	slices.SortFunc(byPadded, func(a, b ID) int { return strings.Compare(a.PaddedString(), b.PaddedString()) })
	if !slices.Equal(sorted, byPadded) {
		t.Error("sorting by PaddedString differs from sorting by value")
	}
	if strings.Compare(ID(999).String(), ID(1000).String()) <= 0 {
		t.Error(`"999" sorts before "1000"; the String doc says it does not`)
	}
}

// TestID_DigitCountDates computes when IDs of each preset change digit
// count, the dates doc.go and String quote.
func TestID_DigitCountDates(t *testing.T) {
	tests := []struct {
		name   string
		layout Layout
		digits int
		from   string // first tick whose every ID has that many digits
		upTo   string // start of the last tick whose every ID has fewer
	}{
		{"twitter 19 digits", Twitter, 19, "2018-05-25T13:05:53.759Z", "2018-05-25T13:05:53.757Z"},
		{"discord 19 digits", Discord, 19, "2022-07-22T11:22:59.102Z", "2022-07-22T11:22:59.1Z"},
		{"discord 20 digits", Discord, 20, "2090-07-20T17:49:51.016Z", "2090-07-20T17:49:51.014Z"},
		{"instagram 20 digits", Instagram, 20, "2049-06-03T06:01:57.229Z", "2049-06-03T06:01:57.227Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.layout
			// Binary search for the first tick whose First has the digits.
			lo, hi := uint64(0), l.MaxTick()
			for lo < hi {
				mid := lo + (hi-lo)/2
				if len(l.compose(mid, 0, 0).String()) >= tt.digits {
					hi = mid
				} else {
					lo = mid + 1
				}
			}
			if got := l.TickTime(lo).Format(time.RFC3339Nano); got != tt.from {
				t.Errorf("%d digits from %s, want %s", tt.digits, got, tt.from)
			}
			// The tick before is mixed; the one before it is entirely shorter.
			last := l.compose(lo-2, l.MaxNode(), l.MaxSequence())
			if len(last.String()) >= tt.digits || len(l.compose(lo-1, l.MaxNode(), l.MaxSequence()).String()) < tt.digits {
				t.Errorf("tick %d is not the single mixed tick", lo-1)
			}
			if got := l.TickTime(lo - 2).Format(time.RFC3339Nano); got != tt.upTo {
				t.Errorf("fewer digits up to %s, want %s", got, tt.upTo)
			}
		})
	}
	t.Run("twitter never reaches 20 digits", func(t *testing.T) {
		if got := len(Twitter.Last(Twitter.End()).String()); got != 19 {
			t.Errorf("last Twitter ID has %d digits", got)
		}
	})
}

func TestID_Allocs(t *testing.T) {
	id := ID(1541815603606036480)
	buf := make([]byte, 0, 64)
	// Inputs are made outside the measured functions, as a decoder or a
	// database driver hands them over.
	text := []byte("1541815603606036480")
	jsonString := []byte(`"1541815603606036480"`)
	var srcBytes any = []byte("1541815603606036480")
	tests := []struct {
		name string
		f    func()
	}{
		{"AppendText", func() { _, _ = id.AppendText(buf[:0]) }},
		{"AppendPadded", func() { _ = id.AppendPadded(buf[:0]) }},
		{"AppendBinary", func() { _, _ = id.AppendBinary(buf[:0]) }},
		{"Parse", func() { _, _ = Parse("1541815603606036480") }},
		{"UnmarshalText", func() { var x ID; _ = x.UnmarshalText(text) }},
		{"UnmarshalBinary", func() { var x ID; _ = x.UnmarshalBinary([]byte{1, 2, 3, 4, 5, 6, 7, 8}) }},
		{"UnmarshalJSON string", func() { var x ID; _ = x.UnmarshalJSON(jsonString) }},
		{"UnmarshalJSON number", func() { var x ID; _ = x.UnmarshalJSON(text) }},
		{"Scan int64", func() { var x ID; _ = x.Scan(int64(1541815603606036480)) }},
		{"Scan string", func() { var x ID; _ = x.Scan("1541815603606036480") }},
		{"Scan bytes", func() { var x ID; _ = x.Scan(srcBytes) }},
		{"Layout.Parts", func() { _ = Twitter.Parts(id) }},
		{"Layout.Tick", func() { _, _ = Twitter.Tick(Twitter.Epoch.Add(time.Hour)) }},
		{"Layout.Tick error", func() { _, _ = Twitter.Tick(time.Time{}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if allocs := testing.AllocsPerRun(100, tt.f); allocs != 0 {
				t.Errorf("%s allocates %v times per run, want 0", tt.name, allocs)
			}
		})
	}
}

var (
	sinkString string
	sinkBytes  []byte
	sinkID     ID
)

func BenchmarkID_String(b *testing.B) {
	id := ID(1541815603606036480)
	b.ReportAllocs()
	for b.Loop() {
		sinkString = id.String()
	}
}

func BenchmarkID_AppendText(b *testing.B) {
	id := ID(1541815603606036480)
	buf := make([]byte, 0, 32)
	b.ReportAllocs()
	b.SetBytes(19)
	for b.Loop() {
		sinkBytes, _ = id.AppendText(buf[:0])
	}
}

func BenchmarkID_AppendPadded(b *testing.B) {
	id := ID(1541815603606036480)
	buf := make([]byte, 0, 32)
	b.ReportAllocs()
	b.SetBytes(20)
	for b.Loop() {
		sinkBytes = id.AppendPadded(buf[:0])
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(19)
	for b.Loop() {
		sinkID, _ = Parse("1541815603606036480")
	}
}

func BenchmarkID_UnmarshalJSON(b *testing.B) {
	in := []byte(`"1541815603606036480"`)
	b.ReportAllocs()
	for b.Loop() {
		_ = sinkID.UnmarshalJSON(in)
	}
}

func BenchmarkLayout_compose(b *testing.B) {
	l := Twitter
	b.ReportAllocs()
	var i uint64
	for b.Loop() {
		i++
		sinkID = l.compose(i&l.MaxTick(), 5, i&l.MaxSequence())
	}
}

func BenchmarkLayout_Parts(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Twitter.Parts(1541815603606036480)
	}
}
