package id80

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// referenceEncode encodes id one bit at a time, as the alphabet and layout
// define it, to check the eight-lane encoder against.
func referenceEncode(id ID) string {
	var sb strings.Builder
	for c := range EncodedSize {
		v := 0
		for bit := c * 5; bit < c*5+5; bit++ {
			v = v<<1 | int(id[bit/8]>>(7-bit%8)&1)
		}
		sb.WriteByte(alphabet[v])
	}
	return sb.String()
}

func randomID(r *rand.Rand) ID {
	var id ID
	for i := range id {
		id[i] = byte(r.Uint32())
	}
	return id
}

func TestEncode_MatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ids := []ID{{}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}
	for i := range Size * 8 { // every single bit
		var id ID
		id[i/8] = 0x80 >> (i % 8)
		ids = append(ids, id)
	}
	for pos := range EncodedSize / 2 { // every pair of characters at every place
		for v := range 1 << 10 {
			var id ID
			for bit := range 10 {
				if v>>(9-bit)&1 != 0 {
					n := pos*10 + bit
					id[n/8] |= 0x80 >> (n % 8)
				}
			}
			ids = append(ids, id)
		}
	}
	for range 10000 {
		ids = append(ids, randomID(r))
	}
	for _, id := range ids {
		want := referenceEncode(id)
		if got := id.String(); got != want {
			t.Fatalf("String() of %x = %q, want %q", id[:], got, want)
		}
		if got, _ := id.AppendText([]byte("x")); string(got) != "x"+want {
			t.Fatalf("AppendText(\"x\") of %x = %q, want %q", id[:], got, "x"+want)
		}
		if got, _ := id.MarshalText(); string(got) != want {
			t.Fatalf("MarshalText() of %x = %q, want %q", id[:], got, want)
		}
		got, ok := decode(want)
		if !ok || got != id {
			t.Fatalf("decode(%q) = %x, %v, want %x, true", want, got[:], ok, id[:])
		}
	}
}

func TestDecode_EveryByteAtEveryPosition(t *testing.T) {
	for pos := range EncodedSize {
		for c := range 256 {
			src := []byte("6ncg4s4c27a24223")
			src[pos] = byte(c)
			_, got := decode(src)
			want := strings.IndexByte(alphabet, byte(c)) >= 0
			if got != want {
				t.Fatalf("decode with byte %#x at %d: ok = %v, want %v", c, pos, got, want)
			}
		}
	}
}

func TestDecode_TwoBadBytes(t *testing.T) {
	// Bytes at or above 0x80 carry into their neighbours inside the
	// eight-lane check; make sure no pair of them cancels out.
	bad := []byte{0x00, '0', '1', ':', '`', 'y', 'z', 0x7f, 0x80, 0xb2, 0xe1, 0xf8, 0xff}
	for _, a := range bad {
		for _, b := range bad {
			for pos := range EncodedSize - 1 {
				src := []byte("xxxxxxxxxxxxxxxx")
				src[pos], src[pos+1] = a, b
				if id, ok := decode(src); ok {
					t.Fatalf("decode(%q) = %x, want failure", src, id[:])
				}
			}
		}
	}
}

func TestGather(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 10000 {
		h := r.Uint64() & blockMask
		var x uint64 // the eight 5-bit groups of h, one per byte
		for i := range 8 {
			x |= h >> (5 * i) & 0x1f << (8 * i)
		}
		if got := gather(x); got != h {
			t.Fatalf("gather(%#x) = %#x, want %#x", x, got, h)
		}
	}
}

func TestID_Allocs(t *testing.T) {
	id := MustParse("6ncg4s4c27a24223")
	buf := make([]byte, 0, 64)
	var text any = []byte("6ncg4s4c27a24223")
	tests := []struct {
		name string
		fn   func()
		want float64
	}{
		{"string", func() { sinkString = id.String() }, 1},
		{"marshal text", func() { sinkBytes, _ = id.MarshalText() }, 1},
		{"marshal json", func() { sinkBytes, _ = id.MarshalJSON() }, 1},
		{"append text", func() { buf, _ = id.AppendText(buf[:0]) }, 0},
		{"append binary", func() { buf, _ = id.AppendBinary(buf[:0]) }, 0},
		{"parse", func() { _, _ = Parse("6ncg4s4c27a24223") }, 0},
		{"unmarshal text", func() { _ = id.UnmarshalText([]byte("6ncg4s4c27a24223")) }, 0},
		{"unmarshal binary", func() { _ = id.UnmarshalBinary(buf[:Size]) }, 0},
		{"scan bytes", func() { _ = id.Scan(text) }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := testing.AllocsPerRun(100, tt.fn); got != tt.want {
				t.Errorf("allocations = %v, want %v", got, tt.want)
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
	id := MustParse("6ncg4s4c27a24223")
	b.ReportAllocs()
	for b.Loop() {
		sinkString = id.String()
	}
}

func BenchmarkID_AppendText(b *testing.B) {
	id := MustParse("6ncg4s4c27a24223")
	buf := make([]byte, 0, EncodedSize)
	b.ReportAllocs()
	b.SetBytes(EncodedSize)
	for b.Loop() {
		buf, _ = id.AppendText(buf[:0])
	}
	sinkBytes = buf
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(EncodedSize)
	for b.Loop() {
		sinkID, _ = Parse("6ncg4s4c27a24223")
	}
}

func BenchmarkID_UnmarshalText(b *testing.B) {
	src := []byte("6ncg4s4c27a24223")
	var id ID
	b.ReportAllocs()
	b.SetBytes(EncodedSize)
	for b.Loop() {
		_ = id.UnmarshalText(src)
	}
	sinkID = id
}

func BenchmarkID_MarshalJSON(b *testing.B) {
	id := MustParse("6ncg4s4c27a24223")
	b.ReportAllocs()
	for b.Loop() {
		sinkBytes, _ = id.MarshalJSON()
	}
}
