package statefile

import (
	"bytes"
	"hash/crc32"
	"strings"
	"testing"
)

func TestDecode_RoundTrip(t *testing.T) {
	tests := []struct {
		name string
		seqs map[string]Sequence
	}{
		{"nil", nil},
		{"empty", map[string]Sequence{}},
		{"sample", sample},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := encode(tc.seqs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil || !equalState(got, tc.seqs) {
				t.Errorf("got %v, want %v", got, tc.seqs)
			}
		})
	}
}

func TestDecode_Corrupt(t *testing.T) {
	for _, tc := range corruptFiles {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := decode(tc.content); err == nil {
				t.Errorf("decode = %v, nil; want an error", got)
			}
		})
	}
}

// TestDecode_EveryBitFlip flips each bit of a valid file in turn: decode
// must refuse the result or return the original state (a flip may only
// change, say, the case of a field name).
func TestDecode_EveryBitFlip(t *testing.T) {
	valid := mustEncode(sample)
	b := bytes.Clone(valid)
	for i := range b {
		for bit := range 8 {
			b[i] ^= 1 << bit
			if got, err := decode(b); err == nil && !equalState(got, sample) {
				t.Errorf("byte %d bit %d: decode accepted a different state %v", i, bit, got)
			}
			b[i] ^= 1 << bit
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(mustEncode(sample))
	f.Add(mustEncode(nil))
	for _, tc := range corruptFiles {
		f.Add(tc.content)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		seqs, err := decode(b)
		if err != nil {
			return
		}
		if seqs == nil {
			t.Fatal("decode accepted a file and returned a nil map")
		}
		enc, err := encode(seqs)
		if err != nil {
			t.Fatalf("decode accepted %q, which does not re-encode: %v", b, err)
		}
		again, err := decode(enc)
		if err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", enc, err)
		}
		if !equalState(again, seqs) {
			t.Fatalf("round trip changed %v to %v", seqs, again)
		}
		if enc2 := mustEncode(again); !bytes.Equal(enc2, enc) {
			t.Fatalf("encoding is not stable: %q then %q", enc, enc2)
		}
	})
}

// TestCastagnoli checks the table of castagnoli against hash/crc32's own
// CRC-32C.
func TestCastagnoli(t *testing.T) {
	tests := []string{"", "a", "123456789", `{"default":{"definition":"id64"}}`, strings.Repeat("floe", 1000)}
	for _, in := range tests {
		got := crc32.Checksum([]byte(in), castagnoli())
		want := crc32.Checksum([]byte(in), crc32.MakeTable(crc32.Castagnoli))
		if got != want {
			t.Errorf("CRC-32C of %.20q: got %08x, want %08x", in, got, want)
		}
	}
}
