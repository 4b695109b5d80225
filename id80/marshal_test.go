package id80

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid"
	"github.com/floeid/floe/internal/textid/parsetest"
)

var (
	_ encoding.TextAppender      = ID{}
	_ encoding.TextMarshaler     = ID{}
	_ encoding.TextUnmarshaler   = (*ID)(nil)
	_ encoding.BinaryAppender    = ID{}
	_ encoding.BinaryMarshaler   = ID{}
	_ encoding.BinaryUnmarshaler = (*ID)(nil)
	_ json.Marshaler             = ID{}
	_ json.Unmarshaler           = (*ID)(nil)
)

func TestID_TextRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	ids := []ID{{}, MustParse("xxxxxxxxxxxxxxxx")}
	for range 1000 {
		ids = append(ids, randomID(r))
	}
	for _, id := range ids {
		text, err := id.MarshalText()
		if err != nil || string(text) != id.String() {
			t.Fatalf("MarshalText() = %q, %v, want %q", text, err, id.String())
		}
		appended, err := id.AppendText([]byte("prefix:"))
		if err != nil || string(appended) != "prefix:"+id.String() {
			t.Fatalf("AppendText() = %q, %v", appended, err)
		}
		var got ID
		if err := got.UnmarshalText(text); err != nil || got != id {
			t.Fatalf("UnmarshalText(%q) = %x, %v, want %x", text, got[:], err, id[:])
		}
	}
}

func TestID_AppendTextGrows(t *testing.T) {
	id := MustParse("6ncg4s4c27a24223")
	for n := range 20 {
		dst := make([]byte, n, n+3) // too small for most n
		got, err := id.AppendText(dst)
		if err != nil || len(got) != n+EncodedSize || string(got[n:]) != "6ncg4s4c27a24223" {
			t.Fatalf("AppendText(len %d) = %q, %v", n, got, err)
		}
	}
}

func TestID_UnmarshalText(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			id := MustParse("6ncg4s4c27a24223")
			before := id
			err := id.UnmarshalText([]byte(tt.in))
			if tt.wantErr != nil {
				checkParseError(t, err, tt.wantErr)
				if id != before {
					t.Errorf("UnmarshalText() changed the ID on error to %x", id[:])
				}
				return
			}
			if err != nil {
				t.Fatalf("UnmarshalText(%q) error = %v", tt.in, err)
			}
			if want := idFromHex(t, tt.want); id != want {
				t.Errorf("UnmarshalText(%q) = %x, want %x", tt.in, id[:], want[:])
			}
		})
	}
}

func TestID_BinaryRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for range 1000 {
		id := randomID(r)
		b, err := id.MarshalBinary()
		if err != nil || !bytes.Equal(b, id[:]) {
			t.Fatalf("MarshalBinary() = %x, %v, want %x", b, err, id[:])
		}
		appended, err := id.AppendBinary([]byte{0xee})
		if err != nil || !bytes.Equal(appended, append([]byte{0xee}, id[:]...)) {
			t.Fatalf("AppendBinary() = %x, %v", appended, err)
		}
		var got ID
		if err := got.UnmarshalBinary(b); err != nil || got != id {
			t.Fatalf("UnmarshalBinary(%x) = %x, %v", b, got[:], err)
		}
	}
}

func TestID_UnmarshalBinary(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		wantErr error
	}{
		{name: "ten bytes", in: []byte{0x25, 0x54, 0xe1, 0x68, 0x4a, 0x01, 0x50, 0x01, 0x00, 0x01}},
		{name: "nil", in: nil, wantErr: floe.ErrInvalidLength},
		{name: "text", in: []byte("6ncg4s4c27a24223"), wantErr: floe.ErrInvalidLength},
		{name: "eleven", in: make([]byte, 11), wantErr: floe.ErrInvalidLength},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := MustParse("xxxxxxxxxxxxxxxx")
			before := id
			err := id.UnmarshalBinary(tt.in)
			if tt.wantErr != nil {
				checkParseError(t, err, tt.wantErr)
				if id != before {
					t.Errorf("UnmarshalBinary() changed the ID on error to %x", id[:])
				}
				return
			}
			if err != nil || !bytes.Equal(id[:], tt.in) {
				t.Errorf("UnmarshalBinary(%x) = %x, %v", tt.in, id[:], err)
			}
		})
	}
}

func TestID_MarshalJSON(t *testing.T) {
	tests := []struct {
		name string
		id   string // text
		want string
	}{
		{"zero is null as in sno", "2222222222222222", `null`},
		{"written by sno", "6ncg4s4c27a24223", `"6ncg4s4c27a24223"`},
		{"max", "xxxxxxxxxxxxxxxx", `"xxxxxxxxxxxxxxxx"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MustParse(tt.id).MarshalJSON()
			if err != nil || string(got) != tt.want {
				t.Errorf("MarshalJSON() = %s, %v, want %s", got, err, tt.want)
			}
		})
	}
}

func TestID_UnmarshalJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string // text
		wantErr error
	}{
		{name: "string", in: `"6ncg4s4c27a24223"`, want: "6ncg4s4c27a24223"},
		{name: "null is zero as in sno", in: `null`, want: "2222222222222222"},
		{name: "zero text", in: `"2222222222222222"`, want: "2222222222222222"},
		{name: "escaped", in: `"\u0036ncg4s4c27a24223"`, want: "6ncg4s4c27a24223"},
		{name: "empty string", in: `""`, wantErr: floe.ErrInvalidLength},
		{name: "short string", in: `"6ncg"`, wantErr: floe.ErrInvalidLength},
		{name: "bad character", in: `"6ncg4s4c27a2422z"`, wantErr: floe.ErrInvalidCharacter},
		{name: "upper case", in: `"6NCG4S4C27A24223"`, wantErr: floe.ErrInvalidCharacter},
		{name: "bad escape", in: `"\x36ncg4s4c27a24223"`, wantErr: floe.ErrInvalidCharacter},
		{name: "unquoted", in: `6ncg4s4c27a24223`, wantErr: floe.ErrInvalidCharacter},
		{name: "number", in: `123`, wantErr: floe.ErrInvalidCharacter},
		{name: "empty", in: ``, wantErr: floe.ErrInvalidCharacter},
		{name: "one quote", in: `"`, wantErr: floe.ErrInvalidCharacter},
		{name: "capital null", in: `NULL`, wantErr: floe.ErrInvalidCharacter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := MustParse("xxxxxxxxxxxxxxxx")
			before := id
			err := id.UnmarshalJSON([]byte(tt.in))
			if tt.wantErr != nil {
				checkParseError(t, err, tt.wantErr)
				if id != before {
					t.Errorf("UnmarshalJSON() changed the ID on error to %x", id[:])
				}
				return
			}
			if err != nil {
				t.Fatalf("UnmarshalJSON(%s) error = %v", tt.in, err)
			}
			if want := MustParse(tt.want); id != want {
				t.Errorf("UnmarshalJSON(%s) = %v, want %v", tt.in, id, want)
			}
		})
	}
}

func TestID_JSONInStruct(t *testing.T) {
	type record struct {
		ID    ID  `json:"id"`
		Other ID  `json:"other"`
		Ptr   *ID `json:"ptr"`
	}
	id := MustParse("6ncg4s4c27a24223")
	in := record{ID: id, Ptr: &id}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"id":"6ncg4s4c27a24223","other":null,"ptr":"6ncg4s4c27a24223"}`
	if string(b) != want {
		t.Errorf("json.Marshal() = %s, want %s", b, want)
	}
	var out record
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.ID != id || !out.Other.IsZero() || out.Ptr == nil || *out.Ptr != id {
		t.Errorf("json.Unmarshal() = %+v, want %+v", out, in)
	}
}

func FuzzUnmarshalText(f *testing.F) {
	for _, tt := range parseTests {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var id ID
		if err := id.UnmarshalText(b); err != nil {
			if referenceValid(string(b)) {
				t.Fatalf("UnmarshalText(%q) error = %v", b, err)
			}
			parsetest.TextFailure(t, err, textForm, b, "16 characters of 2-9 a-x")
			return
		}
		text, err := id.MarshalText()
		if err != nil || !bytes.Equal(text, b) {
			t.Fatalf("UnmarshalText(%q) re-encodes to %q, %v", b, text, err)
		}
	})
}

func FuzzUnmarshalBinary(f *testing.F) {
	for _, v := range goldenVectors {
		f.Add(idFromHex(f, v.hex).Bytes())
	}
	f.Add([]byte(nil))
	f.Add([]byte("6ncg4s4c27a24223"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var id ID
		if err := id.UnmarshalBinary(b); err != nil {
			if len(b) == Size {
				t.Fatalf("UnmarshalBinary(%x) error = %v", b, err)
			}
			parsetest.LengthFailure(t, err, "id80", b, len(b), "10 bytes")
			return
		}
		out, err := id.MarshalBinary()
		if err != nil || !bytes.Equal(out, b) {
			t.Fatalf("UnmarshalBinary(%x) re-encodes to %x, %v", b, out, err)
		}
	})
}

func FuzzUnmarshalJSON(f *testing.F) {
	for _, tt := range parseTests {
		q, _ := json.Marshal(tt.in)
		f.Add(q)
	}
	for _, s := range []string{`null`, `""`, `"\u0036ncg4s4c27a24223"`, `123`, `"`, `NULL`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var id ID
		if err := id.UnmarshalJSON(b); err != nil {
			if s, ok := textid.Unquote(b); ok {
				parsetest.TextFailure(t, err, textForm, s, "16 characters of 2-9 a-x")
			} else {
				parsetest.JSONSyntaxFailure(t, err, "id80", b, "a JSON string or null")
			}
			return
		}
		out, err := id.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON() error = %v", err)
		}
		if textid.IsNull(b) {
			if !id.IsZero() || string(out) != "null" {
				t.Fatalf("UnmarshalJSON(null) = %v, marshals to %s", id, out)
			}
			return
		}
		// Whatever decodes is a JSON string whose contents are the text form.
		s, ok := textid.Unquote(b)
		if !ok || string(s) != id.String() {
			t.Fatalf("UnmarshalJSON(%s) = %v, which is not the string's contents %q", b, id, s)
		}
		want := `"` + id.String() + `"`
		if id.IsZero() {
			want = "null"
		}
		if string(out) != want {
			t.Fatalf("UnmarshalJSON(%s) re-encodes to %s, want %s", b, out, want)
		}
		var back ID
		if err := json.Unmarshal(out, &back); err != nil || back != id {
			t.Fatalf("json.Unmarshal(%s) = %v, %v, want %v", out, back, err, id)
		}
	})
}

func TestParseError_Unwrap(t *testing.T) {
	err := new(ID).UnmarshalText([]byte("bad"))
	if !errors.Is(err, floe.ErrInvalidLength) {
		t.Errorf("error %v does not match floe.ErrInvalidLength", err)
	}
	if got, want := err.Error(), `floe: cannot parse "bad" as id80: invalid length 3, want 16 characters of 2-9 a-x`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
