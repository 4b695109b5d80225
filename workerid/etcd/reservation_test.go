package etcd

import (
	"errors"
	"testing"
)

var reservationTests = []struct {
	name  string
	in    string
	want  reservation
	error bool
}{
	{name: "all fields", in: `{"r":1234,"last":1000,"owner":"host-a"}`, want: reservation{R: 1234, Last: 1000, Owner: "host-a"}},
	{name: "no last", in: `{"r":5,"owner":"h"}`, want: reservation{R: 5, Owner: "h"}},
	{name: "only r", in: `{"r":18446744073709551615}`, want: reservation{R: 1<<64 - 1}},
	{name: "spaces around", in: " {\"r\":1}\n", want: reservation{R: 1}},
	{name: "empty", in: ``, error: true},
	{name: "no r", in: `{"last":0,"owner":"h"}`, error: true},
	{name: "null r", in: `{"r":null}`, error: true},
	{name: "null object", in: `null`, error: true},
	{name: "array", in: `[1]`, error: true},
	{name: "negative r", in: `{"r":-1}`, error: true},
	{name: "fraction", in: `{"r":1.5}`, error: true},
	{name: "exponent", in: `{"r":1e3}`, error: true},
	{name: "above 64 bits", in: `{"r":18446744073709551616}`, error: true},
	{name: "string r", in: `{"r":"1"}`, error: true},
	{name: "upper-case field", in: `{"R":1}`, error: true},
	{name: "unknown field", in: `{"r":1,"x":2}`, error: true},
	{name: "last above r", in: `{"r":1,"last":2}`, error: true},
	{name: "number owner", in: `{"r":1,"owner":3}`, error: true},
	{name: "trailing data", in: `{"r":1} {}`, error: true},
	{name: "trailing garbage", in: `{"r":1}x`, error: true},
	{name: "truncated", in: `{"r":1`, error: true},
}

func TestDecodeReservation(t *testing.T) {
	for _, tt := range reservationTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeReservation([]byte(tt.in))
			if tt.error {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("decodeReservation(%q) = %+v, %v; want ErrCorrupt", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("decodeReservation(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestReservation_RoundTrip(t *testing.T) {
	for _, want := range []reservation{{}, {R: 1}, {R: 9, Last: 9, Owner: "a \"quoted\" host"}, {R: 1<<64 - 1, Last: 1, Owner: "ü"}} {
		got, err := decodeReservation([]byte(want.encode()))
		if err != nil || got != want {
			t.Errorf("decode(encode(%+v)) = %+v, %v", want, got, err)
		}
	}
}

func FuzzDecodeReservation(f *testing.F) {
	for _, tt := range reservationTests {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeReservation(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not match ErrCorrupt", err)
			}
			return
		}
		if r.Last > r.R {
			t.Fatalf("decoded last %d above r %d", r.Last, r.R)
		}
		again, err := decodeReservation([]byte(r.encode()))
		if err != nil || again != r {
			t.Fatalf("round trip of %+v: %+v, %v", r, again, err)
		}
	})
}
