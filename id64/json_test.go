package id64

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/floeid/floe"
)

// jsonTests are JSON values and what UnmarshalJSON makes of them; they also
// seed FuzzUnmarshalJSON.
var jsonTests = []struct {
	name string
	in   string
	want ID
	err  error
}{
	{"string", `"1541815603606036480"`, 1541815603606036480, nil},
	{"string zero", `"0"`, 0, nil},
	{"string largest", `"18446744073709551615"`, 1<<64 - 1, nil},
	{"string padded", `"01541815603606036480"`, 1541815603606036480, nil},
	{"string with escape", `"\u0031\u0032"`, 12, nil},
	{"number", `1541815603606036480`, 1541815603606036480, nil},
	{"number zero", `0`, 0, nil},
	{"number largest", `18446744073709551615`, 1<<64 - 1, nil},
	{"null", `null`, 77, nil},
	{"empty input", ``, 0, floe.ErrInvalidLength},
	{"empty string", `""`, 0, floe.ErrInvalidLength},
	{"string overflow", `"18446744073709551616"`, 0, floe.ErrOutOfRange},
	{"number overflow", `18446744073709551616`, 0, floe.ErrOutOfRange},
	{"negative number", `-1`, 0, floe.ErrOutOfRange},
	{"negative zero", `-0`, 0, floe.ErrOutOfRange},
	{"minus alone", `-`, 0, floe.ErrInvalidLength},
	{"minus garbage", `-x`, 0, floe.ErrInvalidCharacter},
	{"negative string", `"-1"`, 0, floe.ErrInvalidCharacter},
	{"fraction", `1.5`, 0, floe.ErrInvalidCharacter},
	{"whole fraction", `1.0`, 0, floe.ErrInvalidCharacter},
	{"zero fraction", `0.0`, 0, floe.ErrInvalidCharacter},
	{"exponent", `1e3`, 0, floe.ErrInvalidCharacter},
	{"zero exponent", `0e1`, 0, floe.ErrInvalidCharacter},
	{"leading zero number", `01`, 0, floe.ErrInvalidCharacter},
	{"unterminated string", `"12`, 0, floe.ErrInvalidCharacter},
	{"bad escape", `"\x31"`, 0, floe.ErrInvalidCharacter},
	{"string with space", `" 1"`, 0, floe.ErrInvalidCharacter},
	{"true", `true`, 0, floe.ErrInvalidCharacter},
	{"object", `{}`, 0, floe.ErrInvalidCharacter},
	{"array", `[1]`, 0, floe.ErrInvalidCharacter},
	{"surrounding space", ` 1 `, 0, floe.ErrInvalidCharacter},
}

func TestID_UnmarshalJSON(t *testing.T) {
	for _, tt := range jsonTests {
		t.Run(tt.name, func(t *testing.T) {
			got := ID(77)
			err := got.UnmarshalJSON([]byte(tt.in))
			checkParseError(t, err, tt.err, tt.in)
			want := tt.want
			if tt.err != nil {
				want = 77
			}
			if got != want {
				t.Errorf("UnmarshalJSON(%s) gave %d, want %d", tt.in, got, want)
			}
		})
	}
}

func TestID_MarshalJSON(t *testing.T) {
	for _, tt := range goldenDecimal {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.id.MarshalJSON()
			if want := `"` + tt.text + `"`; err != nil || string(b) != want {
				t.Fatalf("MarshalJSON() = %s, %v; want %s", b, err, want)
			}
			var got ID
			if err := json.Unmarshal(b, &got); err != nil || got != tt.id {
				t.Errorf("json.Unmarshal(%s) = %d, %v; want %d", b, got, err, tt.id)
			}
		})
	}
}

// TestID_JSONInStruct goes through encoding/json as callers do.
func TestID_JSONInStruct(t *testing.T) {
	type doc struct {
		ID    ID   `json:"id"`
		Ptr   *ID  `json:"ptr"`
		Slice []ID `json:"slice"`
	}
	one := ID(1)
	in := doc{ID: 1 << 63, Ptr: &one, Slice: []ID{0, 1<<64 - 1}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"id":"9223372036854775808","ptr":"1","slice":["0","18446744073709551615"]}`
	if string(b) != want {
		t.Fatalf("json.Marshal = %s, want %s", b, want)
	}
	var out doc
	if err := json.Unmarshal([]byte(`{"id": 9223372036854775808, "ptr": null, "slice": ["0", 18446744073709551615]}`), &out); err != nil {
		t.Fatal(err)
	}
	if out.ID != 1<<63 || out.Ptr != nil || len(out.Slice) != 2 || out.Slice[1] != 1<<64-1 {
		t.Errorf("json.Unmarshal gave %+v", out)
	}
	out = doc{ID: 5}
	if err := json.Unmarshal([]byte(`{"id": null}`), &out); err != nil || out.ID != 5 {
		t.Errorf("null left ID %d, %v; want it unchanged", out.ID, err)
	}
	err = json.Unmarshal([]byte(`{"id": -5}`), &out)
	if !errors.Is(err, floe.ErrOutOfRange) {
		t.Errorf("json.Unmarshal of -5 error = %v, want ErrOutOfRange", err)
	}
}
