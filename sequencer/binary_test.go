package sequencer_test

import (
	"bytes"
	"testing"

	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
	"github.com/floeid/floe/sequencer"
)

// AppendNextBinary appends each format's binary form, one ID of the
// sequence at a time: interleaved with AppendNext, the IDs it makes and
// the ones AppendNext makes strictly increase together.
func TestSequencer_AppendNextBinary(t *testing.T) {
	tests := []struct {
		format sequencer.Format
		size   int
		text   func(text []byte) ([]byte, error) // the bytes of an ID's text
	}{
		{sequencer.Format64, 8, func(b []byte) ([]byte, error) { id, err := id64.Parse(string(b)); return id.Bytes(), err }},
		{sequencer.Format80, 10, func(b []byte) ([]byte, error) { id, err := id80.Parse(string(b)); return id.Bytes(), err }},
		{sequencer.Format96, 12, func(b []byte) ([]byte, error) { id, err := id96.Parse(string(b)); return id.Bytes(), err }},
		{sequencer.Format128, 16, func(b []byte) ([]byte, error) { id, err := id128.Parse(string(b)); return id.Bytes(), err }},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			sq := open(t, sequencer.Config{Definition: sequencer.Definition{Format: tt.format}})
			prefix := []byte("kept")
			var last []byte
			for i := range 100 {
				var id []byte
				if i%2 == 0 {
					got, err := sq.AppendNextBinary(bytes.Clone(prefix))
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.HasPrefix(got, prefix) || len(got) != len(prefix)+tt.size {
						t.Fatalf("AppendNextBinary(%q) = %x, want the prefix and %d bytes", prefix, got, tt.size)
					}
					id = got[len(prefix):]
				} else {
					text, err := sq.AppendNext(nil)
					if err != nil {
						t.Fatal(err)
					}
					if id, err = tt.text(text); err != nil {
						t.Fatal(err)
					}
				}
				if last != nil && bytes.Compare(id, last) <= 0 {
					t.Fatalf("ID %d %x not above %x", i, id, last)
				}
				last = id
			}
		})
	}
}
