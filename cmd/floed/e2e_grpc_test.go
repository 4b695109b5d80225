package main

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/floev1"
)

// startFloedGRPC starts floed with --grpc on a fresh loopback port, and
// returns it with a client connection to that port, closed at cleanup.
func startFloedGRPC(t *testing.T, args ...string) (*floed, *grpc.ClientConn) {
	t.Helper()
	for range 5 {
		addr := floetest.FreeAddrs(t, 1)[0]
		f := tryStart(t, nil, append([]string{"--grpc", addr, "--state", t.TempDir()}, args...))
		if f == nil {
			continue
		}
		cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cc.Close() })
		return f, cc
	}
	t.Fatal("floed did not start in 5 attempts: its ports were taken each time")
	return nil, nil
}

// TestE2E_GRPC runs floed with --grpc and fetches IDs with the generated
// Go client, interleaved with HTTP requests for the same sequence: all
// strictly increase. Refusals have their codes, health and reflection
// answer, and SIGTERM with a stream open stops floed cleanly after the
// stream's last whole message.
func TestE2E_GRPC(t *testing.T) {
	f, cc := startFloedGRPC(t, "--seq", "orders=id64", "--token", "orders=secret", "--seq", "events=id128")
	c := floev1.NewIDsClient(cc)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	auth := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer secret")

	// gRPC and HTTP, turn by turn, for one sequence.
	var ids []uint64
	for i := range 10 {
		resp, err := c.Next(auth, &floev1.NextRequest{Sequence: "orders", Count: 1000})
		if err != nil {
			t.Fatalf("Next %d: %v", i, err)
		}
		if len(resp.GetIds64()) != 1000 || resp.GetFormat() != floev1.Format_FORMAT_ID64 {
			t.Fatalf("Next %d: %d IDs of %v, want 1000 of id64", i, len(resp.GetIds64()), resp.GetFormat())
		}
		ids = append(ids, resp.GetIds64()...)
		code, body := f.mustGet("/v1/ids?seq=orders&n=10", "Authorization", "Bearer secret")
		var reply struct{ IDs []string }
		if err := json.Unmarshal([]byte(body), &reply); code != 200 || err != nil || len(reply.IDs) != 10 {
			t.Fatalf("GET /v1/ids: %d %s", code, body)
		}
		for _, s := range reply.IDs {
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, v)
		}
	}
	checkIncreasing(t, "gRPC and HTTP IDs of orders", ids)

	// id128 as bytes, increasing.
	resp, err := c.Next(ctx, &floev1.NextRequest{Sequence: "events", Count: 100})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range resp.GetIdsBinary() {
		if len(id) != 16 || i > 0 && bytes.Compare(resp.GetIdsBinary()[i-1], id) >= 0 {
			t.Fatalf("id128 %d: %x after %x", i, id, resp.GetIdsBinary()[max(i-1, 0)])
		}
	}

	// Refusals.
	refusals := []struct {
		name string
		ctx  context.Context
		req  *floev1.NextRequest
		code codes.Code
	}{
		{"no token", ctx, &floev1.NextRequest{Sequence: "orders", Count: 1}, codes.Unauthenticated},
		{"wrong token", metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer nope"), &floev1.NextRequest{Sequence: "orders", Count: 1}, codes.Unauthenticated},
		{"unknown sequence", ctx, &floev1.NextRequest{Sequence: "nope", Count: 1}, codes.NotFound},
		{"zero IDs", ctx, &floev1.NextRequest{}, codes.InvalidArgument},
		{"too many IDs", ctx, &floev1.NextRequest{Count: 1001}, codes.InvalidArgument},
	}
	for _, r := range refusals {
		if _, err := c.Next(r.ctx, r.req); status.Code(err) != r.code {
			t.Errorf("%s: %v, want %v", r.name, err, r.code)
		}
	}

	// Health, of the server and of a sequence.
	h := healthpb.NewHealthClient(cc)
	for _, svc := range []string{"", "orders", "events"} {
		hr, err := h.Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || hr.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health of %q: %v, %v; want SERVING", svc, hr.GetStatus(), err)
		}
	}

	// Reflection lists the service.
	rs, err := reflectionpb.NewServerReflectionClient(cc).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	rr, err := rs.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, svc := range rr.GetListServicesResponse().GetService() {
		names = append(names, svc.GetName())
	}
	if !slices.Contains(names, "floe.v1.IDs") {
		t.Errorf("reflection lists %v, without floe.v1.IDs", names)
	}
	rs.CloseSend()

	// A stream open at SIGTERM: whole messages, increasing, then
	// Unavailable; floed exits 0 after a clean stop.
	st, err := c.Stream(ctx, &floev1.StreamRequest{Count: 100})
	if err != nil {
		t.Fatal(err)
	}
	var streamed []uint64
	for range 3 {
		m, err := st.Recv()
		if err != nil {
			t.Fatal(err)
		}
		streamed = append(streamed, m.GetIds64()...)
	}
	if err := f.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for {
		m, err := st.Recv()
		if err != nil {
			if status.Code(err) != codes.Unavailable {
				t.Errorf("the stream ended with %v, want Unavailable", err)
			}
			break
		}
		if len(m.GetIds64()) != 100 {
			t.Errorf("a message of %d IDs at the stop, want 100", len(m.GetIds64()))
		}
		streamed = append(streamed, m.GetIds64()...)
	}
	select {
	case <-f.done:
	case <-time.After(stopDeadline):
		t.Fatalf("floed still running %v after SIGTERM", stopDeadline)
	}
	if f.err != nil {
		t.Errorf("floed exited with %v after SIGTERM, want 0", f.err)
	}
	checkIncreasing(t, "streamed IDs", streamed)
	if !strings.Contains(f.stderr.String(), "stopped cleanly") {
		t.Errorf("floed did not stop cleanly:\n%s", f.stderr.String())
	}
}
