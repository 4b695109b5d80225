package etcd

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestCatalog_Decode(t *testing.T) {
	c := &Catalog{prefix: "/f/"}
	tests := []struct {
		name  string
		value string
		spec  string
		err   error
	}{
		{"spec", `{"spec":"{\"format\":\"id80\"}"}`, `{"format":"id80"}`, nil},
		{"empty spec", `{"spec":""}`, "", nil},
		{"empty value", ``, "", ErrCorrupt},
		{"not JSON", `spec`, "", ErrCorrupt},
		{"spec not a string", `{"spec":5}`, "", ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.decode("s", []byte(tt.value), 7)
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("decode(%q): %v, want %v", tt.value, err, tt.err)
			}
			if err == nil && (got.Name != "s" || got.Spec != tt.spec || got.Gen != 7) {
				t.Errorf("decode(%q) = %+v, want spec %q, gen 7", tt.value, got, tt.spec)
			}
		})
	}
}

// FuzzCatalogDecode reads sequence values as etcd may hold them: never a
// panic, ErrCorrupt for anything that is not a sequence, and the spec as
// written otherwise.
func FuzzCatalogDecode(f *testing.F) {
	f.Add([]byte(`{"spec":"{\"format\":\"id64\"}"}`))
	f.Add([]byte(`{"spec":null}`))
	f.Add([]byte(`[]`))
	c := &Catalog{prefix: "/f/"}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := c.decode("s", b, 1)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("decode(%q): %v is not ErrCorrupt", b, err)
			}
			return
		}
		var v sequenceValue
		if json.Unmarshal(b, &v) != nil || got.Spec != v.Spec || got.Gen != 1 {
			t.Fatalf("decode(%q) = %+v", b, got)
		}
	})
}
