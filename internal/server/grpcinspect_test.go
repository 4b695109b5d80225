package server

import (
	"context"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/floev1"
)

// TestGRPC_Inspect issues an ID of each format and inspects it by each
// of its forms: every form gives the same answer, with the sequence's
// node in the parts and the time of the fake clock.
func TestGRPC_Inspect(t *testing.T) {
	_, c, _ := newGRPCTest(t, Config{})
	ctx := context.Background()
	tests := []struct {
		seq   string
		check func(*floev1.InspectResponse) bool
	}{
		{"default", func(r *floev1.InspectResponse) bool {
			p := r.GetId64()
			return p.GetWorker() == 5 && p.GetDatacenter() == 0 && p.GetLayout() == id64.Twitter.String()
		}},
		{"discord", func(r *floev1.InspectResponse) bool {
			return r.GetId64().GetWorker() == 7 && r.GetId64().GetLayout() == id64.Discord.String()
		}},
		{"sno", func(r *floev1.InspectResponse) bool { return r.GetId80().GetPartition() == 9 }},
		{"guid", func(r *floev1.InspectResponse) bool { return r.GetId96().GetNode() == 9 }},
		{"uuid", func(r *floev1.InspectResponse) bool { return r.GetId128().GetWorker() == 9 }},
	}
	for _, tt := range tests {
		t.Run(tt.seq, func(t *testing.T) {
			bin, err := c.Next(ctx, &floev1.NextRequest{Sequence: tt.seq, Count: 1})
			if err != nil {
				t.Fatal(err)
			}
			var forms []*floev1.InspectRequest
			if ids := bin.GetIds64(); len(ids) == 1 {
				forms = append(forms,
					&floev1.InspectRequest{Sequence: tt.seq, Id: &floev1.InspectRequest_Id64{Id64: ids[0]}},
					&floev1.InspectRequest{Sequence: tt.seq, Id: &floev1.InspectRequest_Binary{Binary: id64.ID(ids[0]).Bytes()}})
			} else {
				forms = append(forms, &floev1.InspectRequest{Sequence: tt.seq, Id: &floev1.InspectRequest_Binary{Binary: bin.GetIdsBinary()[0]}})
			}
			var first *floev1.InspectResponse
			for i, req := range forms {
				resp, err := c.Inspect(ctx, req)
				if err != nil {
					t.Fatalf("form %d: %v", i, err)
				}
				if first == nil {
					first = resp
					// And by its text, which the first answer gives.
					forms = append(forms, &floev1.InspectRequest{Sequence: tt.seq, Id: &floev1.InspectRequest_Text{Text: resp.GetText()}})
				} else if !proto.Equal(resp, first) {
					t.Errorf("form %d: %v, want %v as by the first form", i, resp, first)
				}
				if !tt.check(resp) {
					t.Errorf("form %d: parts %v", i, resp)
				}
				if got := resp.GetTime().AsTime(); got.Sub(start).Abs() > 1e9 || resp.GetSequence() != tt.seq {
					t.Errorf("form %d: time %v, sequence %q; want about %v, %q", i, got, resp.GetSequence(), start, tt.seq)
				}
			}
		})
	}
	// Another layout reads an ID of the default sequence otherwise.
	resp, err := c.Inspect(ctx, &floev1.InspectRequest{Layout: "discord", Id: &floev1.InspectRequest_Text{Text: "1"}})
	if err != nil || resp.GetId64().GetLayout() != id64.Discord.String() || resp.GetId64().GetSequence() != 1 {
		t.Errorf("Inspect of 1 in layout discord = %v, %v", resp, err)
	}
}
