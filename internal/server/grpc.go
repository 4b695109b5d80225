package server

import (
	"context"
	"errors"
	"net"
	"runtime"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	protocodec "google.golang.org/grpc/encoding/proto"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/reflection"

	"github.com/floeid/floe/internal/floev1"
)

// The gRPC API: the service floe.v1.IDs (grpcids.go), the standard health
// service with a status per sequence (grpchealth.go) and server
// reflection, on any number of listeners (ServeGRPC). Its errors are the
// HTTP API's, as status codes (grpcerrors.go).

// maxGRPCRequest bounds a request message: floe.v1's hold a sequence name
// (64 bytes), an ID and a layout, reflection's a symbol name. A larger one
// is refused with ResourceExhausted before it is read whole.
const maxGRPCRequest = 16 << 10

// ServeGRPC serves the gRPC API on l until Shutdown or Close, after which
// it returns ErrServerClosed. It closes l. Its connections count toward
// Config.MaxConns, apart from the binary protocol's, and close after
// Config.IdleTimeout without a call (see grpcLimits). opts are grpc-go's,
// added to the server's own: for TLS,
// grpc.Creds(credentials.NewTLS(cfg)).
//
// Shutdown stops it gracefully: calls for IDs in progress finish, a
// stream ends after the message it is issuing with Unavailable, and calls
// still open when Shutdown's context ends (a reflection stream a client
// keeps open) are cut.
func (s *Server) ServeGRPC(l net.Listener, opts ...grpc.ServerOption) error {
	gs := s.newGRPCServer(opts...)
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	s.grpcs[gs] = struct{}{}
	s.mu.Unlock()
	err := gs.Serve(&grpcListener{Listener: l, s: s})
	if err == nil || errors.Is(err, grpc.ErrServerStopped) || s.closing.Load() {
		return ErrServerClosed
	}
	return err
}

// newGRPCServer returns a gRPC server with the server's services, its
// codec and its metrics.
func (s *Server) newGRPCServer(opts ...grpc.ServerOption) *grpc.Server {
	own := []grpc.ServerOption{
		grpc.ForceServerCodecV2(requestCodec{encoding.GetCodecV2(protocodec.Name)}),
		grpc.MaxRecvMsgSize(maxGRPCRequest),
		grpc.ChainUnaryInterceptor(s.m.grpcUnary),
		grpc.ChainStreamInterceptor(s.m.grpcStream),
	}
	own = append(own, s.grpcLimits()...)
	own = append(own, grpcSpeed()...)
	gs := grpc.NewServer(append(own, opts...)...)
	gs.RegisterService(idsServiceDesc, &idsService{s: s})
	healthpb.RegisterHealthServer(gs, &healthService{s: s})
	reflection.Register(gs)
	return gs
}

// stopGRPC stops the gRPC servers: gracefully when clean (no new calls;
// the calls in progress finish), else at once. done is closed once all
// have stopped.
func (s *Server) stopGRPC(clean bool) (done chan struct{}) {
	s.mu.Lock()
	var all []*grpc.Server
	for gs := range s.grpcs {
		all = append(all, gs)
	}
	s.mu.Unlock()
	done = make(chan struct{})
	go func() {
		defer close(done)
		for _, gs := range all {
			if clean {
				gs.GracefulStop()
			} else {
				gs.Stop()
			}
		}
	}()
	return done
}

// awaitGRPC waits for the stop done to finish; a graceful one, until ctx
// ends: then the calls still open are cut.
func (s *Server) awaitGRPC(ctx context.Context, clean bool, done chan struct{}) {
	if !clean {
		<-done
		return
	}
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	s.mu.Lock()
	n := len(s.grpcs)
	for gs := range s.grpcs {
		gs.Stop()
	}
	s.mu.Unlock()
	<-done
	s.log.Warn("gRPC calls still open at the end of the shutdown were cut", "servers", n)
}

// grpcWindow is the fixed flow-control window of a gRPC connection and of
// each of its calls, for the messages the server receives: requests of at
// most maxGRPCRequest.
const grpcWindow = 1 << 20

// grpcSpeed returns the server options that make a call for a few IDs
// cheaper, each measured against HTTP (docs/performance.md):
//   - worker goroutines, one for each CPU Go may use, serve the calls,
//     where grpc-go would start a goroutine for each, whose stack grows
//     on every call; a call that finds every worker busy gets its own
//     goroutine as before;
//   - fixed flow-control windows: grpc-go then sends no BDP ping after
//     the requests it receives, which on a connection with one call at a
//     time is a ping and a window update for almost every call.
func grpcSpeed() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.NumStreamWorkers(uint32(runtime.GOMAXPROCS(0))),
		grpc.StaticStreamWindowSize(grpcWindow),
		grpc.StaticConnWindowSize(grpcWindow),
	}
}

// rawRequest is a floe.v1 request as it arrives, not yet decoded: its
// handler decodes it (decodeRequest), so that a malformed message is an
// InvalidArgument that the metrics count and the log reports, where
// grpc-go's codec would answer Internal before any of the server's code
// runs.
type rawRequest []byte

// requestCodec is grpc-go's proto codec, except that a rawRequest takes
// the message's bytes as they are.
type requestCodec struct{ encoding.CodecV2 }

func (c requestCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if r, ok := v.(*rawRequest); ok {
		*r = data.Materialize()
		return nil
	}
	return c.CodecV2.Unmarshal(data, v)
}

// idsServiceDesc is floe.v1.IDs as generated, but for its handlers, which
// read a rawRequest and decode it themselves.
var idsServiceDesc = func() *grpc.ServiceDesc {
	desc := floev1.IDs_ServiceDesc
	desc.Methods = []grpc.MethodDesc{
		unaryMethod("Next", (*idsService).Next),
		unaryMethod("Inspect", (*idsService).Inspect),
	}
	desc.Streams = []grpc.StreamDesc{{
		StreamName:    "Stream",
		ServerStreams: true,
		Handler: func(srv any, stream grpc.ServerStream) error {
			var raw rawRequest
			if err := stream.RecvMsg(&raw); err != nil {
				return err
			}
			svc := srv.(*idsService)
			req := new(floev1.StreamRequest)
			if err := decodeRequest(raw, req); err != nil {
				return svc.malformed(stream.Context(), "stream", err)
			}
			return svc.Stream(req, &grpc.GenericServerStream[floev1.StreamRequest, floev1.NextResponse]{ServerStream: stream})
		},
	}}
	return &desc
}()

// unaryMethod returns the MethodDesc of the unary call name, served by
// call: its handler decodes the request inside the interceptors, which
// then see a malformed request's status too.
func unaryMethod[Req any, Resp any, PReq interface {
	*Req
	requestMessage
}](name string, call func(*idsService, context.Context, PReq) (Resp, error)) grpc.MethodDesc {
	full := "/" + floev1.IDs_ServiceDesc.ServiceName + "/" + name
	return grpc.MethodDesc{
		MethodName: name,
		Handler: func(srv any, ctx context.Context, dec func(any) error, intercept grpc.UnaryServerInterceptor) (any, error) {
			var raw rawRequest
			if err := dec(&raw); err != nil {
				return nil, err
			}
			svc := srv.(*idsService)
			handler := func(ctx context.Context, _ any) (any, error) {
				req := PReq(new(Req))
				if err := decodeRequest(raw, req); err != nil {
					return nil, svc.malformed(ctx, opOf(name), err)
				}
				return call(svc, ctx, req)
			}
			if intercept == nil {
				return handler(ctx, raw)
			}
			return intercept(ctx, raw, &grpc.UnaryServerInfo{Server: srv, FullMethod: full}, handler)
		},
	}
}

// opOf names the floe_requests_total op of a floe.v1.IDs method.
func opOf(method string) string {
	switch method {
	case "Next":
		return "ids"
	case "Inspect":
		return "inspect"
	}
	return "stream"
}

// The interval at which a health watch reads the readiness again: what
// changes it without a change of the sequencer's state (a reservation
// that cannot be extended, a clock behind) is seen within it.
const healthPoll = time.Second
