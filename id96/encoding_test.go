package id96

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestID_StringGuidVectors(t *testing.T) {
	for i, v := range guidVectors {
		t.Run(v.text, func(t *testing.T) {
			id := vectorID(t, i)
			if got, want := id.String(), v.text; got != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
			got, err := id.AppendText([]byte("x"))
			if want := "x" + v.text; err != nil || string(got) != want {
				t.Errorf("AppendText() = %q, %v, want %q", got, err, want)
			}
		})
	}
}

func TestID_StringZero(t *testing.T) {
	if got, want := (ID{}).String(), "................"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// referenceEncode encodes id one bit at a time, 6 bits a character, most
// significant first, to check the encoder against.
func referenceEncode(id ID) string {
	var sb strings.Builder
	for c := range EncodedLen {
		v := 0
		for bit := c * 6; bit < c*6+6; bit++ {
			v = v<<1 | int(id[bit/8]>>(7-bit%8)&1)
		}
		sb.WriteByte(alphabet[v])
	}
	return sb.String()
}

func TestEncode_MatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var ones ID
	for i := range ones {
		ones[i] = 0xff
	}
	ids := []ID{{}, ones}
	for i := range Size * 8 { // every single bit
		var id ID
		id[i/8] = 0x80 >> (i % 8)
		ids = append(ids, id)
	}
	for pos := range EncodedLen { // every character at every place
		for v := range 64 {
			var id ID
			for bit := range 6 {
				if v>>(5-bit)&1 != 0 {
					n := pos*6 + bit
					id[n/8] |= 0x80 >> (n % 8)
				}
			}
			ids = append(ids, id)
		}
	}
	for range 10000 {
		var id ID
		for i := range id {
			id[i] = byte(r.Uint32())
		}
		ids = append(ids, id)
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
		if got, _ := id.MarshalJSON(); string(got) != `"`+want+`"` {
			t.Fatalf("MarshalJSON() of %x = %s, want %q", id[:], got, want)
		}
	}
}

// TestID_TextOrder checks that the text of IDs sorts as their bytes do.
func TestID_TextOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	ids := make([]ID, 5000)
	for i := range ids {
		for j := range ids[i] {
			ids[i][j] = byte(r.Uint32())
		}
		if i%3 == 1 { // share a prefix with the previous ID
			copy(ids[i][:r.IntN(Size)], ids[i-1][:])
		}
	}
	ids = append(ids, ID{}, MustParse("zzzzzzzzzzzzzzzz"))
	for i := range guidVectors {
		ids = append(ids, vectorID(t, i))
	}
	byBytes := slices.Clone(ids)
	slices.SortFunc(byBytes, ID.Compare)
	byText := slices.Clone(ids)
	slices.SortFunc(byText, func(a, b ID) int { return strings.Compare(a.String(), b.String()) })
	if !slices.Equal(byBytes, byText) {
		t.Fatal("text order differs from binary order")
	}
	for i := 1; i < len(byBytes); i++ {
		if bytes.Compare(byBytes[i-1][:], byBytes[i][:]) > 0 {
			t.Fatal("Compare order differs from byte order")
		}
	}
}

func TestID_EncodeAllocs(t *testing.T) {
	id := vectorID(t, 0)
	tests := []struct {
		name string
		f    func()
	}{
		{"string", func() { sinkString = id.String() }},
		{"marshal text", func() { sinkBytes, _ = id.MarshalText() }},
		{"marshal json", func() { sinkBytes, _ = id.MarshalJSON() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if allocs := testing.AllocsPerRun(1000, tt.f); allocs != 1 {
				t.Errorf("allocates %v times, want 1 (the result)", allocs)
			}
		})
	}
}

func TestID_AppendTextAllocs(t *testing.T) {
	id := vectorID(t, 0)
	buf := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(1000, func() {
		buf, _ = id.AppendText(buf[:0])
	})
	if allocs != 0 {
		t.Errorf("AppendText allocates %v times, want 0", allocs)
	}
}

func TestID_AppendBinaryAllocs(t *testing.T) {
	id := vectorID(t, 0)
	buf := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(1000, func() {
		buf, _ = id.AppendBinary(buf[:0])
	})
	if allocs != 0 {
		t.Errorf("AppendBinary allocates %v times, want 0", allocs)
	}
}

func TestParseAllocs(t *testing.T) {
	s := guidVectors[0].text
	b := []byte(s)
	var id ID
	tests := []struct {
		name string
		f    func()
	}{
		{"parse", func() { id, _ = Parse(s) }},
		{"unmarshal text", func() { _ = id.UnmarshalText(b) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if allocs := testing.AllocsPerRun(1000, tt.f); allocs != 0 {
				t.Errorf("allocates %v times, want 0", allocs)
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
	id := vectorID(b, 0)
	b.ReportAllocs()
	for b.Loop() {
		sinkString = id.String()
	}
}

func BenchmarkID_AppendText(b *testing.B) {
	id := vectorID(b, 0)
	buf := make([]byte, 0, EncodedLen)
	b.ReportAllocs()
	b.SetBytes(EncodedLen)
	for b.Loop() {
		buf, _ = id.AppendText(buf[:0])
	}
	sinkBytes = buf
}

func BenchmarkParse(b *testing.B) {
	s := guidVectors[0].text
	b.ReportAllocs()
	b.SetBytes(EncodedLen)
	for b.Loop() {
		sinkID, _ = Parse(s)
	}
}

func BenchmarkID_Parts(b *testing.B) {
	id := vectorID(b, 0)
	var p Parts
	b.ReportAllocs()
	for b.Loop() {
		p = id.Parts()
	}
	sinkID[0] = byte(p.Sequence)
}

func BenchmarkNewID(b *testing.B) {
	var n uint64
	b.ReportAllocs()
	for b.Loop() {
		n++
		sinkID = newID(DefaultDrift, n, 0xdeadbeef, uint16(n))
	}
}
