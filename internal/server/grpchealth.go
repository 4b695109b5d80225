package server

import (
	"context"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// healthService is grpc.health.v1.Health with a status per sequence: the
// service "" is the whole server, SERVING when /readyz answers 200, and a
// sequence's name is that sequence, SERVING when it can issue. Any other
// name is unknown (Check: NotFound; Watch: SERVICE_UNKNOWN, until a
// sequence of that name is attached). Every status is NOT_SERVING once a
// shutdown begins. It reads the readiness at each call, so Check is never
// stale; a Watch reads it at each change of the sequences' states and at
// least every healthPoll. It needs no token.
type healthService struct {
	healthpb.UnimplementedHealthServer
	s *Server
}

// status returns the status of service.
func (h *healthService) status(service string) healthpb.HealthCheckResponse_ServingStatus {
	s := h.s
	ok := false
	if service == "" {
		ok = s.Ready() == nil
	} else {
		seq, found := s.set.Load().byName[service]
		if !found {
			return healthpb.HealthCheckResponse_SERVICE_UNKNOWN
		}
		ok = seq.ready() == nil && !s.closing.Load()
	}
	if ok {
		return healthpb.HealthCheckResponse_SERVING
	}
	return healthpb.HealthCheckResponse_NOT_SERVING
}

func (h *healthService) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	st := h.status(req.GetService())
	if st == healthpb.HealthCheckResponse_SERVICE_UNKNOWN {
		return nil, status.Errorf(codes.NotFound, "unknown service %q: ask \"\" for the server or a sequence's name", req.GetService())
	}
	return &healthpb.HealthCheckResponse{Status: st}, nil
}

func (h *healthService) List(ctx context.Context, req *healthpb.HealthListRequest) (*healthpb.HealthListResponse, error) {
	resp := &healthpb.HealthListResponse{Statuses: map[string]*healthpb.HealthCheckResponse{
		"": {Status: h.status("")},
	}}
	for _, seq := range h.s.seqs() {
		resp.Statuses[seq.name] = &healthpb.HealthCheckResponse{Status: h.status(seq.name)}
	}
	return resp, nil
}

// Watch sends the status of the service at once and then at each change,
// until the client cancels or the server stops: then it sends NOT_SERVING
// and ends with Unavailable, so that a graceful stop need not wait for it.
func (h *healthService) Watch(req *healthpb.HealthCheckRequest, stream grpc.ServerStreamingServer[healthpb.HealthCheckResponse]) error {
	s := h.s
	ctx := stream.Context()
	tick := time.NewTicker(healthPoll)
	defer tick.Stop()
	last := healthpb.HealthCheckResponse_ServingStatus(-1)
	for {
		changes := h.changes(req.GetService())
		st := h.status(req.GetService())
		if st != last {
			if err := stream.Send(&healthpb.HealthCheckResponse{Status: st}); err != nil {
				return err
			}
			last = st
		}
		select {
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		case <-s.halt.Done():
			if last != healthpb.HealthCheckResponse_NOT_SERVING {
				stream.Send(&healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_NOT_SERVING})
			}
			return status.Error(codes.Unavailable, "the server is shutting down")
		case <-changes:
		case <-tick.C:
		}
	}
}

// changes returns a channel closed at the next change of state of the
// sequence named service, or of the default sequence for "" (the others'
// changes are seen within healthPoll), or nil for an unknown one.
func (h *healthService) changes(service string) <-chan struct{} {
	set := h.s.set.Load()
	if service == "" {
		return set.list[0].sq.Changes()
	}
	if seq, ok := set.byName[service]; ok {
		return seq.sq.Changes()
	}
	return nil
}
