package server

import (
	"context"
	"errors"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/floev1"
)

func TestGRPC_Health(t *testing.T) {
	s, _, cc := newGRPCTest(t, Config{})
	h := healthpb.NewHealthClient(cc)
	ctx := context.Background()
	check := func(service string) (healthpb.HealthCheckResponse_ServingStatus, codes.Code) {
		t.Helper()
		resp, err := h.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
		return resp.GetStatus(), status.Code(err)
	}
	tests := []struct {
		service string
		status  healthpb.HealthCheckResponse_ServingStatus
		code    codes.Code
	}{
		{"", healthpb.HealthCheckResponse_SERVING, codes.OK},
		{"default", healthpb.HealthCheckResponse_SERVING, codes.OK},
		{"uuid", healthpb.HealthCheckResponse_SERVING, codes.OK},
		{"nope", healthpb.HealthCheckResponse_SERVICE_UNKNOWN, codes.NotFound},
	}
	for _, tt := range tests {
		if st, code := check(tt.service); st != tt.status && code == codes.OK || code != tt.code {
			t.Errorf("Check(%q) = %v, %v; want %v, %v", tt.service, st, code, tt.status, tt.code)
		}
	}
	list, err := h.List(ctx, &healthpb.HealthListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(list.GetStatuses()), 1+len(grpcTestSequences); got != want {
		t.Errorf("List has %d services, want %d", got, want)
	}

	// A watch of one sequence sees it stop serving when it is detached,
	// and serve again once attached.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := h.Watch(wctx, &healthpb.HealthCheckRequest{Service: "sno"})
	if err != nil {
		t.Fatal(err)
	}
	next := func(want healthpb.HealthCheckResponse_ServingStatus) {
		t.Helper()
		resp, err := w.Recv()
		if err != nil || resp.GetStatus() != want {
			t.Fatalf("Watch sent %v, %v; want %v", resp.GetStatus(), err, want)
		}
	}
	next(healthpb.HealthCheckResponse_SERVING)
	if err := s.Detach(ctx, "sno"); err != nil {
		t.Fatal(err)
	}
	next(healthpb.HealthCheckResponse_NOT_SERVING)
	if st, _ := check("sno"); st != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("Check(sno) of a detached sequence = %v", st)
	}
	if st, _ := check(""); st != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("Check(\"\") with a named sequence detached = %v, want SERVING as /readyz", st)
	}
	if err := s.Attach(ctx, "sno"); err != nil {
		t.Fatal(err)
	}
	next(healthpb.HealthCheckResponse_SERVING)

	// At shutdown every watch sees NOT_SERVING and ends.
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	next(healthpb.HealthCheckResponse_NOT_SERVING)
	if _, err := w.Recv(); status.Code(err) != codes.Unavailable {
		t.Errorf("Watch after the shutdown: %v, want Unavailable", err)
	}
}

func TestGRPC_Reflection(t *testing.T) {
	_, _, cc := newGRPCTest(t, Config{})
	st, err := reflectionpb.NewServerReflectionClient(cc).ServerReflectionInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer st.CloseSend()
	if err := st.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := st.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, svc := range resp.GetListServicesResponse().GetService() {
		names = append(names, svc.GetName())
	}
	for _, want := range []string{"floe.v1.IDs", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection"} {
		if !slices.Contains(names, want) {
			t.Errorf("reflection lists %v, without %s", names, want)
		}
	}
	// The file of floe.v1.IDs, for clients that build their stubs from it.
	if err := st.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: "floe.v1.IDs"}}); err != nil {
		t.Fatal(err)
	}
	if resp, err = st.Recv(); err != nil || len(resp.GetFileDescriptorResponse().GetFileDescriptorProto()) == 0 {
		t.Errorf("file of floe.v1.IDs: %v, %v", resp, err)
	}
}

// TestGRPC_ShutdownStream shuts the server down with a stream open and a
// call waiting at the reservation ceiling: the stream gets whole messages
// and then Unavailable, the shutdown is clean and ServeGRPC returns
// ErrServerClosed.
func TestGRPC_ShutdownStream(t *testing.T) {
	s, c, _ := newGRPCTest(t, Config{})
	ctx := context.Background()
	st, err := c.Stream(ctx, &floev1.StreamRequest{Count: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Recv(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(ctx) }()
	var msgs int
	for {
		resp, err := st.Recv()
		if err != nil {
			if status.Code(err) != codes.Unavailable || reasonOf(err) != "shutdown" {
				t.Errorf("the stream ended with %v, want Unavailable (shutdown)", err)
			}
			break
		}
		if len(resp.GetIds64()) != 10 {
			t.Fatalf("a message of %d IDs, want 10", len(resp.GetIds64()))
		}
		msgs++
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown hangs with a stream open")
	}
	if _, err := c.Next(ctx, &floev1.NextRequest{Count: 1}); status.Code(err) != codes.Unavailable {
		t.Errorf("Next after the shutdown: %v, want Unavailable", err)
	}
}

// TestServer_ServeGRPCAfterClose refuses a listener once the server is
// closed, closing it.
func TestServer_ServeGRPCAfterClose(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	s.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ServeGRPC(l); !errors.Is(err, ErrServerClosed) {
		t.Errorf("ServeGRPC after Close = %v, want ErrServerClosed", err)
	}
	if _, err := l.Accept(); err == nil {
		t.Error("the listener is still open")
	}
}

func TestGRPC_Metrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	_, c, cc := newGRPCTest(t, Config{Registry: reg, Clock: floetest.NewClock(start)})
	ctx := context.Background()
	c.Next(ctx, &floev1.NextRequest{Count: 3})
	c.Next(ctx, &floev1.NextRequest{Count: 0})
	c.Next(ctx, &floev1.NextRequest{Sequence: "private", Count: 1})
	healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{})
	rawInvoke(cc, "/floe.v1.IDs/Next", []byte{0xff})

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += " " + l.GetName() + "=" + l.GetValue()
			}
			got[key] = m.GetCounter().GetValue() + float64(m.GetHistogram().GetSampleCount())
		}
	}
	for key, want := range map[string]float64{
		"floe_requests_total code=ok op=ids proto=grpc":                                                                      1,
		"floe_requests_total code=bad_request op=ids proto=grpc":                                                             2,
		"floe_requests_total code=unauthorized op=ids proto=grpc":                                                            1,
		"floe_request_batch_size proto=grpc":                                                                                 1,
		"floe_auth_failures_total":                                                                                           1,
		"floe_grpc_server_handled_total grpc_code=OK grpc_method=Next grpc_service=floe.v1.IDs grpc_type=unary":              1,
		"floe_grpc_server_handled_total grpc_code=InvalidArgument grpc_method=Next grpc_service=floe.v1.IDs grpc_type=unary": 2,
		"floe_grpc_server_handled_total grpc_code=Unauthenticated grpc_method=Next grpc_service=floe.v1.IDs grpc_type=unary": 1,
		"floe_grpc_server_handled_total grpc_code=OK grpc_method=Check grpc_service=grpc.health.v1.Health grpc_type=unary":   1,
	} {
		if got[key] != want {
			t.Errorf("%s = %v, want %v", key, got[key], want)
		}
	}
}
