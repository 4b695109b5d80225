package id80

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floeid/floe"
)

func TestCompose(t *testing.T) {
	tests := []struct {
		name    string
		parts   Parts
		want    string // hex
		wantErr error
	}{
		{
			name:  "zero parts",
			parts: Parts{},
			want:  "00000000000000000000",
		},
		{
			name: "from time",
			parts: Parts{
				Time:      time.Date(2020, 2, 29, 12, 34, 56, 789_000_000, time.UTC),
				Meta:      1,
				Partition: Partition{'P', 1},
				Sequence:  1,
			},
			want: "2554e1684a0150010001",
		},
		{
			name: "from timestamp",
			parts: Parts{
				Timestamp: 80168924197,
				Meta:      1,
				Partition: Partition{'P', 1},
				Sequence:  1,
			},
			want: "2554e1684a0150010001",
		},
		{
			name: "time wins over timestamp",
			parts: Parts{
				Time:      time.Date(2020, 2, 29, 12, 34, 56, 789_000_000, time.UTC),
				Timestamp: 5,
				Meta:      1,
				Partition: Partition{'P', 1},
				Sequence:  1,
			},
			want: "2554e1684a0150010001",
		},
		{
			name:  "tick-tock",
			parts: Parts{Timestamp: MaxTimestamp, TickTock: true},
			want:  "ffffffffff0000000000",
		},
		{
			name:    "timestamp above max",
			parts:   Parts{Timestamp: MaxTimestamp + 1},
			wantErr: floe.ErrOutOfRange,
		},
		{
			name:    "time before epoch",
			parts:   Parts{Time: Epoch.Add(-time.Millisecond)},
			wantErr: floe.ErrOutOfRange,
		},
		{
			name:    "time after the last",
			parts:   Parts{Time: time.Date(2079, 9, 7, 15, 47, 35, 552_000_000, time.UTC)},
			wantErr: floe.ErrOutOfRange,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Compose(tt.parts)
			if tt.wantErr != nil {
				var pe *floe.ParseError
				if !errors.Is(err, tt.wantErr) || !errors.As(err, &pe) || pe.Format != "id80" {
					t.Fatalf("Compose() error = %v, want a *floe.ParseError wrapping %v", err, tt.wantErr)
				}
				if got != (ID{}) {
					t.Errorf("Compose() = %x on error, want the zero ID", got[:])
				}
				return
			}
			if err != nil {
				t.Fatalf("Compose() error = %v", err)
			}
			if want := idFromHex(t, tt.want); got != want {
				t.Errorf("Compose() = %x, want %x", got[:], want[:])
			}
		})
	}
}

func TestCompose_RoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 10000 {
		id := randomID(r)
		got, err := Compose(id.Parts())
		if err != nil || got != id {
			t.Fatalf("Compose(%x.Parts()) = %x, %v", id[:], got[:], err)
		}
		p := id.Parts()
		p.Time = time.Time{} // from the timestamp alone
		if got, err = Compose(p); err != nil || got != id {
			t.Fatalf("Compose(%+v) = %x, %v, want %x", p, got[:], err, id[:])
		}
	}
}
