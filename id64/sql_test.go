package id64

import (
	"database/sql/driver"
	"math"
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
	{"negative int64", int64(-1), 0, floe.ErrOutOfRange, "-1"},
	{"min int64", int64(math.MinInt64), 0, floe.ErrOutOfRange, "-9223372036854775808"},
	{"empty string", "", 0, floe.ErrInvalidLength, ""},
	{"empty bytes", []byte{}, 0, floe.ErrInvalidLength, ""},
	{"string overflow", "18446744073709551616", 0, floe.ErrOutOfRange, "18446744073709551616"},
	{"negative string", "-1", 0, floe.ErrInvalidCharacter, "-1"},
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
