package id96

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid"
	"github.com/floeid/floe/internal/textid/parsetest"
)

// The standard interfaces ID implements.
var (
	_ encoding.TextMarshaler     = ID{}
	_ encoding.TextAppender      = ID{}
	_ encoding.TextUnmarshaler   = (*ID)(nil)
	_ encoding.BinaryMarshaler   = ID{}
	_ encoding.BinaryAppender    = ID{}
	_ encoding.BinaryUnmarshaler = (*ID)(nil)
	_ json.Marshaler             = ID{}
	_ json.Unmarshaler           = (*ID)(nil)
)

func TestID_RoundTrips(t *testing.T) {
	ids := []ID{{}, MustParse("zzzzzzzzzzzzzzzz")}
	for i := range guidVectors {
		ids = append(ids, vectorID(t, i))
	}
	tests := []struct {
		name string
		trip func(ID) (ID, error)
	}{
		{"text", func(id ID) (got ID, err error) {
			b, err := id.MarshalText()
			if err != nil {
				return got, err
			}
			err = got.UnmarshalText(b)
			return got, err
		}},
		{"append text", func(id ID) (got ID, err error) {
			b, err := id.AppendText(nil)
			if err != nil {
				return got, err
			}
			err = got.UnmarshalText(b)
			return got, err
		}},
		{"string", func(id ID) (ID, error) { return Parse(id.String()) }},
		{"binary", func(id ID) (got ID, err error) {
			b, err := id.MarshalBinary()
			if err != nil {
				return got, err
			}
			err = got.UnmarshalBinary(b)
			return got, err
		}},
		{"append binary", func(id ID) (got ID, err error) {
			b, err := id.AppendBinary(nil)
			if err != nil {
				return got, err
			}
			err = got.UnmarshalBinary(b)
			return got, err
		}},
		{"bytes", func(id ID) (ID, error) { return FromBytes(id.Bytes()) }},
		{"json", func(id ID) (got ID, err error) {
			b, err := json.Marshal(id)
			if err != nil {
				return got, err
			}
			err = json.Unmarshal(b, &got)
			return got, err
		}},
		{"json map key", func(id ID) (ID, error) {
			b, err := json.Marshal(map[ID]int{id: 1})
			if err != nil {
				return ID{}, err
			}
			var m map[ID]int
			if err := json.Unmarshal(b, &m); err != nil {
				return ID{}, err
			}
			for k := range m {
				return k, nil
			}
			return ID{}, errors.New("empty map")
		}},
		{"sql text", func(id ID) (got ID, err error) {
			v, err := id.Value()
			if err != nil {
				return got, err
			}
			err = got.Scan(v)
			return got, err
		}},
		{"sql text bytes", func(id ID) (got ID, err error) {
			v, err := id.Value()
			if err != nil {
				return got, err
			}
			err = got.Scan([]byte(v.(string)))
			return got, err
		}},
		{"sql raw bytes", func(id ID) (got ID, err error) {
			err = got.Scan(id.Bytes())
			return got, err
		}},
		{"parts", func(id ID) (ID, error) { return Compose(id.Parts()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, want := range ids {
				got, err := tt.trip(want)
				if err != nil || got != want {
					t.Errorf("round trip of %v = %v, %v", want, got, err)
				}
			}
		})
	}
}

func TestID_MarshalGuidVectors(t *testing.T) {
	for i, v := range guidVectors {
		t.Run(v.text, func(t *testing.T) {
			id := vectorID(t, i)
			text, _ := id.MarshalText()
			if got, want := string(text), v.text; got != want {
				t.Errorf("MarshalText() = %q, want %q", got, want)
			}
			bin, _ := id.MarshalBinary()
			if got, want := bin, id[:]; !bytes.Equal(got, want) {
				t.Errorf("MarshalBinary() = %x, want %x", got, want)
			}
			js, _ := id.MarshalJSON()
			if got, want := string(js), `"`+v.text+`"`; got != want {
				t.Errorf("MarshalJSON() = %s, want %s", got, want)
			}
		})
	}
}

// jsonTests are JSON values and what UnmarshalJSON makes of them; the fuzz
// target starts from them.
var jsonTests = []struct {
	name    string
	json    string
	want    ID
	wantErr error
}{
	{"id", `"Njc7pjKhxrcJu..e"`, newID(3, 13091652260768, 0xdeadbeef, 42), nil},
	{"zero", `"................"`, ID{}, nil},
	{"escaped", `"Njc7pjKhxrcJu\u002e.e"`, newID(3, 13091652260768, 0xdeadbeef, 42), nil},
	// guid's MarshalJSON of the 64-bit cast 0x62fa08d214e8002a, written
	// by a process of node 0x12345678.
	{"guid 64-bit form", `"*Njc7o85Xgw7Ju..e"`, FromUint64(0x62fa08d214e8002a, 0), nil},
	{"empty", `""`, ID{}, floe.ErrInvalidLength},
	{"star only", `"*"`, ID{}, floe.ErrInvalidLength},
	{"short", `"Njc7pjKhxrcJu.."`, ID{}, floe.ErrInvalidLength},
	{"two stars", `"**Njc7o85Xgw7Ju..e"`, ID{}, floe.ErrInvalidLength},
	{"bad character", `"Njc7pjKhxrcJu.-e"`, ID{}, floe.ErrInvalidCharacter},
	{"star inside", `"Njc7pjKhxrcJu.*e"`, ID{}, floe.ErrInvalidCharacter},
	{"number", `12345`, ID{}, floe.ErrUnsupportedType},
	{"unquoted", `Njc7pjKhxrcJu..e`, ID{}, floe.ErrUnsupportedType},
	{"object", `{}`, ID{}, floe.ErrUnsupportedType},
	{"bad escape", `"Njc7pjKhxrcJu.\x"`, ID{}, floe.ErrUnsupportedType},
}

func TestID_UnmarshalJSON(t *testing.T) {
	for _, tt := range jsonTests {
		t.Run(tt.name, func(t *testing.T) {
			var got ID
			err := got.UnmarshalJSON([]byte(tt.json))
			checkParseError(t, err, tt.wantErr, tt.json)
			if got != tt.want {
				t.Errorf("UnmarshalJSON(%s) = %x, want %x", tt.json, got[:], tt.want[:])
			}
		})
	}
}

func TestID_UnmarshalJSONNull(t *testing.T) {
	want := newID(3, 1, 2, 3)
	got := want
	if err := got.UnmarshalJSON([]byte("null")); err != nil || got != want {
		t.Errorf("UnmarshalJSON(null) = %v, %v, want %v unchanged", got, err, want)
	}
}

func TestID_UnmarshalJSONCast(t *testing.T) {
	var got ID
	if err := json.Unmarshal([]byte(`"*Njc7o85Xgw7Ju..e"`), &got); err != nil {
		t.Fatal(err)
	}
	if got, want := got.Uint64(), uint64(0x62fa08d214e8002a); got != want {
		t.Errorf("Uint64() = %#x, want guid's %#x", got, want)
	}
	if got.Node() != 0 {
		t.Errorf("Node() = %#x, want 0", got.Node())
	}
	if b, _ := got.MarshalJSON(); string(b) != `"Njc7o.....7Ju..e"` { // guid: String(FromL(node-0 clock, v))
		t.Errorf("MarshalJSON() = %s", b)
	}
}

func TestID_UnmarshalErrorsKeepValue(t *testing.T) {
	want := newID(3, 1, 2, 3)
	tests := []struct {
		name string
		f    func(*ID) error
	}{
		{"text", func(id *ID) error { return id.UnmarshalText([]byte("bad")) }},
		{"binary", func(id *ID) error { return id.UnmarshalBinary([]byte("bad")) }},
		{"json", func(id *ID) error { return id.UnmarshalJSON([]byte(`"bad"`)) }},
		{"scan", func(id *ID) error { return id.Scan(42) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := want
			if err := tt.f(&got); err == nil || got != want {
				t.Errorf("got %v, %v, want an error and %v unchanged", got, err, want)
			}
		})
	}
}

func TestID_UnmarshalText(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			var got ID
			err := got.UnmarshalText([]byte(tt.text))
			checkParseError(t, err, tt.wantErr, tt.text)
			if got != tt.want {
				t.Errorf("UnmarshalText(%q) = %x, want %x", tt.text, got[:], tt.want[:])
			}
		})
	}
}

func TestID_UnmarshalBinary(t *testing.T) {
	for _, tt := range binaryTests {
		t.Run(tt.name, func(t *testing.T) {
			var got ID
			err := got.UnmarshalBinary(tt.data)
			checkParseError(t, err, tt.wantErr, string(tt.data))
			if got != tt.want {
				t.Errorf("UnmarshalBinary(%x) = %x, want %x", tt.data, got[:], tt.want[:])
			}
		})
	}
}

func FuzzUnmarshalText(f *testing.F) {
	for _, tt := range parseTests {
		f.Add([]byte(tt.text))
	}
	for _, v := range guidVectors {
		f.Add([]byte(v.text))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		var id ID
		if err := id.UnmarshalText(text); err != nil {
			if id != (ID{}) {
				t.Fatalf("UnmarshalText(%q) = %x, %v", text, id[:], err)
			}
			parsetest.TextFailure(t, err, textForm, text, "16 characters of . 0-9 A-Z _ a-z")
			return
		}
		if got, _ := id.MarshalText(); !bytes.Equal(got, text) {
			t.Fatalf("UnmarshalText(%q) re-encodes as %q", text, got)
		}
	})
}

func FuzzUnmarshalBinary(f *testing.F) {
	for _, tt := range binaryTests {
		f.Add(tt.data)
	}
	for _, v := range guidVectors {
		f.Add(MustParse(v.text).Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var id ID
		if err := id.UnmarshalBinary(data); err != nil {
			if id != (ID{}) || len(data) == Size {
				t.Fatalf("UnmarshalBinary(%x) = %x, %v", data, id[:], err)
			}
			parsetest.LengthFailure(t, err, "id96", data, len(data), "12 bytes")
			return
		}
		if got, _ := id.MarshalBinary(); !bytes.Equal(got, data) {
			t.Fatalf("UnmarshalBinary(%x) re-encodes as %x", data, got)
		}
		if back, err := Parse(id.String()); err != nil || back != id {
			t.Fatalf("text round trip of %x = %v, %v", data, back, err)
		}
	})
}

func FuzzUnmarshalJSON(f *testing.F) {
	for _, tt := range jsonTests {
		f.Add([]byte(tt.json))
	}
	for _, v := range guidVectors {
		f.Add([]byte(`"` + v.text + `"`))
		f.Add([]byte(`"*` + v.text + `"`))
	}
	f.Add([]byte("null"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var id ID
		if err := id.UnmarshalJSON(data); err != nil {
			if id != (ID{}) {
				t.Fatalf("UnmarshalJSON(%q) = %x, %v", data, id[:], err)
			}
			checkJSONFailure(t, err, data)
			return
		}
		if string(data) == "null" {
			return
		}
		got, _ := id.MarshalJSON()
		// The canonical form re-encodes as itself; escaped strings and
		// guid's 64-bit form ("*" and the text on the writer's node)
		// re-encode as the canonical form of what they decoded to.
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("UnmarshalJSON accepted %q, which is not a JSON string: %v", data, err)
		}
		want := `"` + s + `"`
		if text, ok := strings.CutPrefix(s, "*"); ok {
			want = `"` + FromUint64(MustParse(text).Uint64(), 0).String() + `"`
		}
		if string(got) != want {
			t.Fatalf("UnmarshalJSON(%q) re-encodes as %s, want %s", data, got, want)
		}
	})
}

// checkJSONFailure fails unless err explains, as a reading of data with
// encoding/json does, why data is not the JSON of an ID: not a string, the
// length of the text after any "*", or the first character outside the
// alphabet, at the offset in data where it is written.
func checkJSONFailure(t *testing.T, err error, data []byte) {
	t.Helper()
	s, ok := textid.Unquote(data)
	if !ok {
		pe := parsetest.Failure(t, err, "id96", data, floe.ErrUnsupportedType)
		if pe.Offset != -1 || pe.Length != -1 || pe.Want != "a JSON string or null" {
			t.Fatalf("error %v for %q: %+v", err, data, *pe)
		}
		return
	}
	star := 0
	lengths := "16 characters of . 0-9 A-Z _ a-z"
	if len(s) > 0 && s[0] == '*' {
		star = 1
		lengths += " after the *"
	}
	text := s[star:]
	if len(text) != EncodedLen {
		parsetest.LengthFailure(t, err, "id96", data, len(text), lengths)
		return
	}
	i := textForm.Outside(text)
	pe := parsetest.Failure(t, err, "id96", data, floe.ErrInvalidCharacter)
	if i < 0 || pe.Char != parsetest.CharAt(text, i) || pe.Length != -1 || pe.Want != textForm.Want {
		t.Fatalf("error %v for %q: %+v, want the character %q", err, data, *pe, parsetest.CharAt(text, i))
	}
	// The JSON before Offset holds the text before the character.
	var before string
	if pe.Offset < 1 || pe.Offset >= len(data) {
		t.Fatalf("error %v for %q: offset %d outside the string", err, data, pe.Offset)
	}
	if err := json.Unmarshal(append(bytes.Clone(data[:pe.Offset]), '"'), &before); err != nil || before != string(s[:star+i]) {
		t.Fatalf("error %v for %q: the JSON before offset %d reads %q, %v; want %q", pe, data, pe.Offset, before, err, s[:star+i])
	}
}
