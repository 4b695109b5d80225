package id64

import (
	"errors"
	"testing"
)

func TestLayout_ParseID(t *testing.T) {
	tests := []struct {
		name    string
		layout  Layout
		in      string
		want    ID
		wantErr error
	}{
		{"decimal", Twitter, "1234", 1234, nil},
		{"largest of a signed layout", Twitter, "9223372036854775807", 1<<63 - 1, nil},
		{"top bit on a signed layout", Twitter, "9223372036854775808", 0, ErrIDRange},
		{"negative on a signed layout", Twitter, "-1", 0, ErrIDRange},
		{"negative on a layout that uses the top bit", Instagram, "-8292456368057609209", 10154287705651942407, nil},
		{"-1 is the largest ID", Instagram, "-1", 1<<64 - 1, nil},
		{"smallest int64", Instagram, "-9223372036854775808", 1 << 63, nil},
		{"below int64", Instagram, "-9223372036854775809", 0, nil},
		{"bad byte after the sign", Instagram, "-12x", 0, nil},
		{"sign alone", Instagram, "-", 0, nil},
		{"empty", Twitter, "", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.layout.ParseID(tc.in)
			wantFail := tc.wantErr != nil || tc.want == 0
			if wantFail {
				if err == nil {
					t.Fatalf("ParseID(%q) = %d, want an error", tc.in, uint64(got))
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Fatalf("ParseID(%q) error %v, want %v", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseID(%q) = %d, %v; want %d", tc.in, uint64(got), err, uint64(tc.want))
			}
		})
	}
}
