package servertest

import (
	"testing"

	"github.com/floeid/floe/internal/server"
)

var _ server.Store = (*Store)(nil)

// The zero Store loads nothing; it loads what it saved last, per name.
func TestStore(t *testing.T) {
	var s Store
	if rec, ok, err := s.Load("a"); ok || err != nil || rec != (server.Record{}) {
		t.Fatalf("Load of an empty store = %+v, %v, %v; want nothing", rec, ok, err)
	}
	steps := []struct {
		name string
		rec  server.Record
	}{
		{"a", server.Record{Definition: "d", Reserved: 10}},
		{"b", server.Record{Definition: "e", Reserved: 5}},
		{"a", server.Record{Definition: "d", Reserved: 20, Last: 15}},
	}
	want := map[string]server.Record{}
	for _, st := range steps {
		if err := s.Save(st.name, st.rec); err != nil {
			t.Fatalf("Save(%q): %v", st.name, err)
		}
		want[st.name] = st.rec
		for name, w := range want {
			if got, ok, err := s.Load(name); !ok || err != nil || got != w {
				t.Errorf("after Save(%q, %+v): Load(%q) = %+v, %v, %v; want %+v", st.name, st.rec, name, got, ok, err, w)
			}
		}
	}
}
