package bench

import (
	"testing"

	"github.com/floeid/floe/id128"
	gofrs "github.com/gofrs/uuid/v5"
	"github.com/google/uuid"
)

func newID128(b *testing.B) *id128.Generator {
	g, err := id128.NewGenerator(id128.Config{Worker: 1})
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkUUIDv7 compares floe's version-7 UUIDs with google/uuid's and
// gofrs/uuid's NewV7: one ID per op ("floe-id128", "google", "gofrs"), the
// ID and its text appended to a reused buffer ("floe-id128-text", the
// allocation-free path), and runs of nextN IDs (AppendNext, ns/id).
func BenchmarkUUIDv7(b *testing.B) {
	pair(b, "floe-id128", 1, func(b *testing.B) func() func() {
		g := newID128(b)
		return errOp(func() error { _, err := g.Next(); return err })(b)
	})
	pair(b, "floe-id128-text", 1, func(b *testing.B) func() func() {
		g := newID128(b)
		return func() func() {
			buf := make([]byte, 0, id128.EncodedLen)
			return func() {
				id, err := g.Next()
				if err != nil {
					b.Error(err)
				}
				buf, _ = id.AppendText(buf[:0])
			}
		}
	})
	pair(b, "floe-id128-AppendNext", nextN, func(b *testing.B) func() func() {
		g := newID128(b)
		return func() func() {
			dst := make([]id128.ID, 0, nextN)
			return func() {
				var err error
				if dst, err = g.AppendNext(dst[:0], nextN); err != nil {
					b.Error(err)
				}
			}
		}
	})
	pair(b, "google", 1, errOp(func() error { _, err := uuid.NewV7(); return err }))
	pair(b, "gofrs", 1, errOp(func() error { _, err := gofrs.NewV7(); return err }))
}
