package server

import (
	"context"
	"testing"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/floeid/floe/internal/floev1"
)

// FuzzGRPCRequest runs the handlers of floe.v1.IDs's unary calls on
// arbitrary request bytes and an arbitrary authorization value: each
// either answers or refuses with a status of the table of grpcCodes,
// carrying its floe code, and never panics or hangs. A Next that answers
// gives exactly the IDs it was asked for.
func FuzzGRPCRequest(f *testing.F) {
	seeds := []proto.Message{
		&floev1.NextRequest{Count: 1},
		&floev1.NextRequest{Sequence: "sno", Count: 3, Encoding: floev1.Encoding_ENCODING_TEXT},
		&floev1.NextRequest{Sequence: "private", Count: 2},
		&floev1.NextRequest{Sequence: "nope", Count: 2},
		&floev1.NextRequest{Count: 1001},
		&floev1.NextRequest{Count: 1, Encoding: 7},
		&floev1.InspectRequest{Id: &floev1.InspectRequest_Id64{Id64: 1 << 40}},
		&floev1.InspectRequest{Sequence: "uuid", Id: &floev1.InspectRequest_Text{Text: "01890a5d-ac96-774b-bcce-b302099a8057"}},
		&floev1.InspectRequest{Sequence: "guid", Id: &floev1.InspectRequest_Binary{Binary: make([]byte, 12)}},
		&floev1.InspectRequest{Layout: "snowcast-1024", Id: &floev1.InspectRequest_Text{Text: "-1"}},
	}
	for i, m := range seeds {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(i%2 == 0, b, "Bearer secret")
		f.Add(i%2 == 1, b, "")
	}
	f.Add(true, []byte{0x0a, 0xff}, "Bearer")
	f.Add(false, []byte{0x12, 0x02, 0xc3, 0x28}, "secret")

	// The server of every input: a real clock, so that the IDs never
	// wait for a fake one.
	cfg := Config{Sequences: grpcTestSequences, MaxHTTPCount: 16, Store: newMemStore(), Logger: quietLogger()}
	s, err := New(cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	svc := &idsService{s: s}
	next, inspect := idsServiceDesc.Methods[0], idsServiceDesc.Methods[1]
	if next.MethodName != "Next" || inspect.MethodName != "Inspect" {
		f.Fatalf("the methods are %s and %s, want Next and Inspect", next.MethodName, inspect.MethodName)
	}

	f.Fuzz(func(t *testing.T, isNext bool, raw []byte, auth string) {
		ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", auth))
		dec := func(v any) error {
			*v.(*rawRequest) = raw
			return nil
		}
		m := inspect
		if isNext {
			m = next
		}
		resp, err := m.Handler(svc, ctx, dec, nil)
		if err != nil {
			st, ok := status.FromError(err)
			code := reasonOf(err)
			if !ok || code == "" || grpcCodes[code] != st.Code() {
				t.Fatalf("refusal %v (floe code %q): not a status of the table", err, code)
			}
			return
		}
		if !isNext {
			if r := resp.(*floev1.InspectResponse); r.GetText() == "" || r.GetParts() == nil {
				t.Fatalf("Inspect answered %v", r)
			}
			return
		}
		var req floev1.NextRequest
		if err := proto.Unmarshal(raw, &req); err != nil {
			t.Fatalf("Next answered a request that does not decode: %v", err)
		}
		r := resp.(*floev1.NextResponse)
		if got := len(r.GetIds64()) + len(r.GetIdsBinary()) + len(r.GetIdsText()); got != int(req.GetCount()) {
			t.Fatalf("Next of %d IDs answered %d", req.GetCount(), got)
		}
	})
}
