package server

import (
	"math"
	"strconv"
	"testing"

	"github.com/floeid/floe/id64"
)

// decimalsByStrconv is appendDecimals written the plain way, one
// strconv.AppendUint for each ID.
func decimalsByStrconv(dst []byte, ids []id64.ID, open, end string) []byte {
	for _, id := range ids {
		dst = append(strconv.AppendUint(append(dst, open...), uint64(id), 10), end...)
	}
	return dst
}

// run returns n consecutive IDs from first.
func run(first uint64, n int) []id64.ID {
	ids := make([]id64.ID, n)
	for i := range ids {
		ids[i] = id64.ID(first + uint64(i))
	}
	return ids
}

func TestAppendDecimals(t *testing.T) {
	joined := func(parts ...[]id64.ID) []id64.ID {
		var ids []id64.ID
		for _, p := range parts {
			ids = append(ids, p...)
		}
		return ids
	}
	tests := []struct {
		name string
		ids  []id64.ID
	}{
		{"none", nil},
		{"one", run(7, 1)},
		{"from zero", run(0, 1000)},
		{"across one digit more", run(9_990, 40)},
		{"across 10^19", run(9_999_999_999_999_999_950, 100)},
		{"a tick's run", run(2124352626169479168, 1000)},
		{"not from a ten", run(2124352626169479163, 995)},
		{"every tens digit carried", run(1_999_999_999_999_999_900, 300)},
		{"to the largest", run(math.MaxUint64-999, 1000)},
		{"two ticks", joined(run(2124352626169479168, 25), run(2124352630464446464, 975))},
		{"a gap inside a ten", joined(run(1000, 15), run(1016, 30))},
		{"a ten out of order", joined(run(100, 10), run(130, 10), run(120, 10))},
		{"hundreds from zero", run(0, 350)},
		{"hundreds across one digit more", run(99_800, 400)},
		{"a gap inside a hundred", joined(run(1000, 150), run(1151, 200))},
		{"a hundred out of order", joined(run(1000, 100), run(1200, 100), run(1100, 100), run(1300, 100))},
		{"a hundred cut short", run(5_000, 199)},
		{"a step of two", []id64.ID{10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32}},
		{"wrapping", joined(run(math.MaxUint64-5, 6), run(0, 4))},
		{"a jump of 2^63 among four", joined(run(math.MaxUint64-30, 5), run(math.MaxUint64-25-1<<63, 15))},
		{"repeats", []id64.ID{10, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}},
	}
	for _, tc := range tests {
		for _, form := range []struct{ open, end string }{{`"`, `",`}, {"", "\n"}} {
			t.Run(tc.name+"/"+strconv.Quote(form.end), func(t *testing.T) {
				prefix := []byte(`{"ids":[`)
				got := string(appendDecimals(prefix, tc.ids, form.open, form.end))
				want := string(decimalsByStrconv(prefix, tc.ids, form.open, form.end))
				if got != want {
					t.Errorf("got\n%s\nwant\n%s", got, want)
				}
			})
		}
	}
}

func FuzzAppendDecimals(f *testing.F) {
	f.Add(uint64(2124352626169479168), uint16(1000), uint16(0), uint64(0))
	f.Add(uint64(9_990), uint16(40), uint16(13), uint64(7))
	f.Add(uint64(math.MaxUint64-30), uint16(20), uint16(5), uint64(1<<63))
	f.Fuzz(func(t *testing.T, first uint64, n, at uint16, jump uint64) {
		// A run of n IDs from first, all from at on jump further on.
		ids := make([]id64.ID, n%2048)
		for i := range ids {
			ids[i] = id64.ID(first + uint64(i))
			if i >= int(at) {
				ids[i] += id64.ID(jump)
			}
		}
		got := string(appendDecimals(nil, ids, `"`, `",`))
		if want := string(decimalsByStrconv(nil, ids, `"`, `",`)); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	})
}

func BenchmarkAppendDecimals(b *testing.B) {
	ids := run(2124352626169479168, 1000)
	buf := make([]byte, 0, 32<<10)
	for _, bc := range []struct {
		name   string
		append func([]byte, []id64.ID, string, string) []byte
	}{{"runs", appendDecimals}, {"strconv", decimalsByStrconv}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				buf = bc.append(buf[:0], ids, `"`, `",`)
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}
