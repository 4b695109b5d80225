package bench

import (
	"testing"
	"time"

	"github.com/floeid/floe/id128"
	gofrs "github.com/gofrs/uuid/v5"
	"github.com/google/uuid"
)

// BenchmarkUUIDTime compares reading the text of a version-1 UUID and its
// time: id128.ParseUUID and Time, google/uuid's Parse and Time, gofrs/uuid's
// FromString and TimestampFromV1.
func BenchmarkUUIDTime(b *testing.B) {
	const text = "c232ab00-9414-11ec-b3c8-9f6bdeced846" // RFC 9562's version-1 example
	want := time.Date(2022, 2, 22, 19, 22, 22, 0, time.UTC)
	b.Run("floe", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			u, err := id128.ParseUUID(text)
			if tm, _ := u.Time(); err != nil || !tm.Equal(want) {
				b.Fatal(tm, err)
			}
		}
	})
	b.Run("google", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			u, err := uuid.Parse(text)
			if err != nil || !time.Unix(u.Time().UnixTime()).Equal(want) {
				b.Fatal(u, err)
			}
		}
	})
	b.Run("gofrs", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			u, err := gofrs.FromString(text)
			ts, _ := gofrs.TimestampFromV1(u)
			if tm, _ := ts.Time(); err != nil || !tm.Equal(want) {
				b.Fatal(tm, err)
			}
		}
	})
}
