package redis

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

var reservationTests = []struct {
	name  string
	in    string
	want  reservation
	error bool
}{
	{name: "all fields", in: "1234:1000:host-a", want: reservation{R: 1234, Last: 1000, Owner: "host-a"}},
	{name: "no last tick", in: "5:0:h", want: reservation{R: 5, Owner: "h"}},
	{name: "zero", in: "0:0:", want: reservation{}},
	{name: "last at R", in: "9:9:h", want: reservation{R: 9, Last: 9, Owner: "h"}},
	{name: "top of uint64", in: "18446744073709551615:18446744073709551615:h", want: reservation{R: 1<<64 - 1, Last: 1<<64 - 1, Owner: "h"}},
	{name: "colons in the owner", in: "7:1:host:a:0", want: reservation{R: 7, Last: 1, Owner: "host:a:0"}},
	{name: "newline in the owner", in: "7:1:a\nb", want: reservation{R: 7, Last: 1, Owner: "a\nb"}},
	{name: "UTF-8 owner", in: "7:0:hôte", want: reservation{R: 7, Owner: "hôte"}},
	{name: "owner of 255 bytes", in: "1:0:" + strings.Repeat("a", 255), want: reservation{R: 1, Owner: strings.Repeat("a", 255)}},
	{name: "empty", in: "", error: true},
	{name: "R only", in: "5", error: true},
	{name: "no owner field", in: "5:0", error: true},
	{name: "empty R", in: ":0:h", error: true},
	{name: "empty last", in: "5::h", error: true},
	{name: "leading zero in R", in: "05:0:h", error: true},
	{name: "leading zero in last", in: "5:00:h", error: true},
	{name: "sign", in: "+5:0:h", error: true},
	{name: "negative", in: "-5:0:h", error: true},
	{name: "space", in: " 5:0:h", error: true},
	{name: "underscore", in: "1_0:0:h", error: true},
	{name: "hexadecimal", in: "0x5:0:h", error: true},
	{name: "above uint64", in: "18446744073709551616:0:h", error: true},
	{name: "last above R", in: "5:6:h", error: true},
	{name: "owner of 256 bytes", in: "1:0:" + strings.Repeat("a", 256), error: true},
	{name: "owner not UTF-8", in: "1:0:a\xff", error: true},
}

func TestDecodeReservation(t *testing.T) {
	for _, tt := range reservationTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeReservation(tt.in)
			if tt.error {
				if !errors.Is(err, ErrBadReservation) {
					t.Fatalf("decodeReservation(%q) = %+v, %v; want ErrBadReservation", tt.in, got, err)
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
	for _, want := range []reservation{
		{},
		{R: 1},
		{R: 9, Last: 9, Owner: "a:b"},
		{R: 1<<64 - 1, Last: 1, Owner: "ü"},
		{R: 1 << 53, Last: 1<<53 - 1, Owner: strings.Repeat("x", maxOwner)},
	} {
		got, err := decodeReservation(want.String())
		if err != nil || got != want {
			t.Errorf("decodeReservation(%q) = %+v, %v; want %+v", want.String(), got, err, want)
		}
	}
}

// FuzzDecodeReservation: a value is accepted only as String writes it, and
// then holds last <= R and a valid owner.
func FuzzDecodeReservation(f *testing.F) {
	for _, tt := range reservationTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := decodeReservation(s)
		if err != nil {
			if !errors.Is(err, ErrBadReservation) {
				t.Fatalf("error %v does not match ErrBadReservation", err)
			}
			return
		}
		if r.Last > r.R {
			t.Fatalf("decoded last tick %d above R %d", r.Last, r.R)
		}
		if len(r.Owner) > maxOwner {
			t.Fatalf("decoded an owner of %d bytes", len(r.Owner))
		}
		if got := r.String(); got != s {
			t.Fatalf("decodeReservation(%q) = %+v, which String writes as %q", s, r, got)
		}
	})
}

var decimalTests = []struct {
	in   string
	want uint64
	ok   bool
}{
	{"0", 0, true},
	{"1", 1, true},
	{"10", 10, true},
	{"9007199254740993", 1<<53 + 1, true},
	{"18446744073709551615", 1<<64 - 1, true},
	{"", 0, false},
	{"00", 0, false},
	{"01", 0, false},
	{"+1", 0, false},
	{"-1", 0, false},
	{" 1", 0, false},
	{"1 ", 0, false},
	{"1_0", 0, false},
	{"0x1", 0, false},
	{"1e3", 0, false},
	{"18446744073709551616", 0, false},
	{"99999999999999999999", 0, false},
}

func TestParseDecimal(t *testing.T) {
	for _, tt := range decimalTests {
		got, ok := parseDecimal(tt.in)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("parseDecimal(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzParseDecimal: a string is accepted exactly when it is how strconv
// writes the value, which is how the scripts compare decimals.
func FuzzParseDecimal(f *testing.F) {
	for _, tt := range decimalTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := parseDecimal(s)
		want, err := strconv.ParseUint(s, 10, 64)
		canonical := err == nil && strconv.FormatUint(want, 10) == s
		if ok != canonical || ok && v != want {
			t.Fatalf("parseDecimal(%q) = %d, %v; strconv reads %d, %v", s, v, ok, want, err)
		}
	})
}
