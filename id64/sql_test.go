package id64

import (
	"database/sql/driver"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe"
)

func TestID_Value(t *testing.T) {
	tests := []struct {
		name string
		id   ID
		want driver.Value
	}{
		{"zero", 0, int64(0)},
		{"twitter id", 1541815603606036480, int64(1541815603606036480)},
		{"2^63-1", math.MaxInt64, int64(math.MaxInt64)},
		{"2^63", 1 << 63, "9223372036854775808"},
		{"2^64-1", math.MaxUint64, "18446744073709551615"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.id.Value()
			if err != nil || got != tt.want {
				t.Fatalf("Value() = %#v, %v; want %#v", got, err, tt.want)
			}
			if !driver.IsValue(got) {
				t.Errorf("Value() = %T, not a driver.Value", got)
			}
			var back ID
			if err := back.Scan(got); err != nil || back != tt.id {
				t.Errorf("Scan(Value()) = %d, %v; want %d", back, err, tt.id)
			}
		})
	}
}

// scanTests are database values and what Scan makes of them; they also seed
// FuzzScan. input is the ParseError.Input expected on failure.
var scanTests = []struct {
	name  string
	src   any
	want  ID
	err   error
	input string
}{
	{"nil", nil, 0, nil, ""},
	{"int64", int64(1541815603606036480), 1541815603606036480, nil, ""},
	{"int64 zero", int64(0), 0, nil, ""},
	{"int64 max", int64(math.MaxInt64), math.MaxInt64, nil, ""},
	{"uint64", uint64(1<<64 - 1), 1<<64 - 1, nil, ""},
	{"string", "1541815603606036480", 1541815603606036480, nil, ""},
	{"string padded", "01541815603606036480", 1541815603606036480, nil, ""},
	{"bytes", []byte("18446744073709551615"), 1<<64 - 1, nil, ""},
	{"negative int64: two's complement", int64(-1), 1<<64 - 1, nil, ""},
	{"min int64: two's complement", int64(math.MinInt64), 1 << 63, nil, ""},
	{"empty string", "", 0, floe.ErrInvalidLength, ""},
	{"empty bytes", []byte{}, 0, floe.ErrInvalidLength, ""},
	{"string overflow", "18446744073709551616", 0, floe.ErrOutOfRange, "18446744073709551616"},
	{"negative string: two's complement", "-1", 1<<64 - 1, nil, ""},
	{"negative bytes: two's complement", []byte("-9223372036854775808"), 1 << 63, nil, ""},
	{"negative zero", "-0", 0, nil, ""},
	{"negative padded", "-01", 1<<64 - 1, nil, ""},
	{"negative below min int64", "-9223372036854775809", 0, floe.ErrOutOfRange, "-9223372036854775809"},
	{"negative far below", []byte("-18446744073709551616"), 0, floe.ErrOutOfRange, "-18446744073709551616"},
	{"minus alone", "-", 0, floe.ErrInvalidLength, "-"},
	{"two minus signs", "--1", 0, floe.ErrInvalidCharacter, "--1"},
	{"minus then garbage", []byte("-1x"), 0, floe.ErrInvalidCharacter, "-1x"},
	{"plus sign", "+1", 0, floe.ErrInvalidCharacter, "+1"},
	{"bytes garbage", []byte("12a"), 0, floe.ErrInvalidCharacter, "12a"},
	{"float64", float64(1), 0, floe.ErrUnsupportedType, "float64"},
	{"bool", true, 0, floe.ErrUnsupportedType, "bool"},
	{"time", time.Unix(0, 0), 0, floe.ErrUnsupportedType, "time.Time"},
	{"int", 1, 0, floe.ErrUnsupportedType, "int"},
}

func TestID_Scan(t *testing.T) {
	for _, tt := range scanTests {
		t.Run(tt.name, func(t *testing.T) {
			got := ID(77)
			err := got.Scan(tt.src)
			checkParseError(t, err, tt.err, tt.input)
			want := tt.want
			if tt.err != nil {
				want = 77
			}
			if got != want {
				t.Errorf("Scan(%#v) gave %d, want %d", tt.src, got, want)
			}
		})
	}
}

func TestID_ScanNullResets(t *testing.T) {
	id := ID(5)
	if err := id.Scan(nil); err != nil || id != 0 {
		t.Errorf("Scan(nil) = %v and left %d, want nil and 0", err, id)
	}
}

// TestID_ScanNegative: Instagram's next_id returns negative BIGINTs from
// 2046-06-27T17:00:49.497Z on; Scan reads them as the Instagram IDs with the
// same 64 bits, while a signed layout refuses them with CheckID.
func TestID_ScanNegative(t *testing.T) {
	// An ID next_id makes in 2050 for shard 5, sequence 7: time above 2^40 ms
	// since the epoch, so the top bit is set and the BIGINT negative.
	when := time.Date(2050, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	made, err := Instagram.Compose(Parts{Time: when, Worker: 5, Sequence: 7})
	if err != nil {
		t.Fatal(err)
	}
	bigint := made.Int64()
	if bigint >= 0 {
		t.Fatalf("next_id's BIGINT in 2050 is %d, want negative", bigint)
	}
	text := strconv.FormatInt(bigint, 10)
	tests := []struct {
		name    string
		src     any
		layout  Layout
		wantErr string // from CheckID; "" for none
	}{
		{"int64, instagram", bigint, Instagram, ""},
		{"text, instagram", text, Instagram, ""},
		{"bytes, instagram", []byte(text), Instagram, ""},
		{"int64, twitter", bigint, Twitter, "has the top bit set"},
		{"text, twitter", text, Twitter, "as a signed 64-bit integer it is " + text},
		{"int64, discord", int64(-1), Discord, ""},
		{"int64, redisgen", int64(-1), Redisgen, "has the top bit set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var id ID
			if err := id.Scan(tt.src); err != nil {
				t.Fatalf("Scan(%#v) = %v", tt.src, err)
			}
			err := tt.layout.CheckID(id)
			if tt.wantErr != "" {
				if !errors.Is(err, ErrIDRange) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("CheckID(%d) = %v, want ErrIDRange with %q", id, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("CheckID(%d) = %v", id, err)
			}
			if tt.layout.Equal(Instagram) {
				p := Instagram.Parts(id)
				if !p.Time.Equal(when) || p.Worker != 5 || p.Sequence != 7 || id != made {
					t.Errorf("Scan(%#v) = %d: time %v, shard %d, sequence %d; want %d: %v, 5, 7", tt.src, id, p.Time, p.Worker, p.Sequence, made, when)
				}
				if id.Int64() != bigint {
					t.Errorf("Int64() = %d, want the BIGINT %d", id.Int64(), bigint)
				}
			}
		})
	}
}
