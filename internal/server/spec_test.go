package server

import (
	"errors"
	"testing"

	"github.com/floeid/floe/id64"
)

// specs returns the Specs of a few valid sequences.
func specs(tb testing.TB) []string {
	tb.Helper()
	snow, err := id64.Snowcast(1024)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, sc := range []SequenceConfig{
		{Name: "a", Format: Format64, Layout: id64.Twitter},
		{Name: "b", Format: Format64, Layout: snow},
		{Name: "c", Format: Format80},
		{Name: "d", Format: Format96, Node: 1},
		{Name: "e", Format: Format128},
	} {
		s, err := Spec(sc)
		if err != nil {
			tb.Fatalf("Spec(%+v): %v", sc, err)
		}
		out = append(out, s)
	}
	return out
}

func TestSequenceFromSpec(t *testing.T) {
	valid := specs(t)
	tests := []struct {
		name string
		spec string
		ok   bool
	}{
		{"twitter", valid[0], true},
		{"snowcast-1024", valid[1], true},
		{"id80", valid[2], true},
		{"id96", valid[3], true},
		{"id128", valid[4], true},
		{"layout for id128", `{"format":"id128","layout":{}}`, false},
		{"empty", "", false},
		{"not JSON", "id64", false},
		{"unknown field", `{"format":"id64","nodes":5}`, false},
		{"unknown format", `{"format":"id65"}`, false},
		{"layout for id80", `{"format":"id80","layout":{}}`, false},
		{"not canonical: spaces", " " + valid[2], false},
		{"trailing data", valid[2] + "{}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := SequenceFromSpec("s", tt.spec)
			if got := err == nil; got != tt.ok {
				t.Fatalf("SequenceFromSpec(%q) = %+v, %v; want ok %v", tt.spec, sc, err, tt.ok)
			}
			if err != nil {
				if !errors.Is(err, ErrConfig) {
					t.Errorf("error %v is not ErrConfig", err)
				}
				return
			}
			if got, err := Spec(sc); err != nil || got != tt.spec {
				t.Errorf("Spec(SequenceFromSpec(%q)) = %q, %v; want the spec back", tt.spec, got, err)
			}
		})
	}
}

// FuzzSequenceFromSpec reads specs as a coordinator's catalog may hold
// them: never a panic, an ErrConfig for anything but a canonical spec, and
// a spec read is the spec written.
func FuzzSequenceFromSpec(f *testing.F) {
	for _, s := range specs(f) {
		f.Add(s)
	}
	f.Add(`{"format":"id64","layout":{"epoch":"x"}}`)
	f.Add(`{"format":"id64","layout":null}`)
	f.Fuzz(func(t *testing.T, s string) {
		sc, err := SequenceFromSpec("s", s)
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("SequenceFromSpec(%q): %v is not ErrConfig", s, err)
			}
			return
		}
		got, err := Spec(sc)
		if err != nil || got != s {
			t.Fatalf("Spec(SequenceFromSpec(%q)) = %q, %v", s, got, err)
		}
		if n := WorkerIDs(sc); n < 1 || n > maxWorkerIDs {
			t.Fatalf("spec %q: %d worker IDs", s, n)
		}
	})
}
