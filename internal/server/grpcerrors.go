package server

import (
	"context"
	"net/http"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// grpcCodes maps the codes of the HTTP API's errors that a gRPC call can
// meet to gRPC status codes, one to one with their HTTP statuses: two
// codes share a status code exactly when they share an HTTP status (see
// httpStatus and docs/grpc.md). Every error's status carries its code as
// the Reason of an errdetails.ErrorInfo in domain errorDomain.
var grpcCodes = map[string]codes.Code{
	"bad_request":      codes.InvalidArgument,    // 400
	"unauthorized":     codes.Unauthenticated,    // 401
	"unknown_sequence": codes.NotFound,           // 404
	"time_exhausted":   codes.FailedPrecondition, // 410
	"error":            codes.Internal,           // 500
	"clock":            codes.Unavailable,        // 503
	"ceiling":          codes.Unavailable,        // 503
	"not_ready":        codes.Unavailable,        // 503
	"shutdown":         codes.Unavailable,        // 503
	"client_gone":      codes.Unavailable,        // 503, never seen by the client
}

// errorDomain is the Domain of the ErrorInfo of floed's gRPC errors.
const errorDomain = "floe.v1"

// httpStatus returns the HTTP status of an error of the HTTP API by its
// code: the refusals of lookup and parseCount, and the issuing errors of
// statusOf.
func httpStatus(code string) int {
	switch code {
	case "bad_request":
		return http.StatusBadRequest
	case "unauthorized":
		return http.StatusUnauthorized
	case "unknown_sequence":
		return http.StatusNotFound
	case "clock", "ceiling", "not_ready", "shutdown", "client_gone":
		return http.StatusServiceUnavailable
	case "time_exhausted":
		return http.StatusGone
	}
	return http.StatusInternalServerError
}

// grpcError returns the status error of the floe code with msg.
func grpcError(code, msg string) error {
	c, ok := grpcCodes[code]
	if !ok {
		c, code = codes.Internal, "error"
	}
	st, err := status.New(c, msg).WithDetails(&errdetails.ErrorInfo{Reason: code, Domain: errorDomain})
	if err != nil {
		return status.Error(c, msg)
	}
	return st.Err()
}

// requestMessage is a floe.v1 request.
type requestMessage interface {
	proto.Message
	GetSequence() string
}

// decodeRequest decodes raw, the bytes of a request, into m. Unknown
// fields are kept and ignored, as proto3 wants of a newer client's
// request; a message that is not protobuf, or whose fields have the wrong
// types or invalid UTF-8 in a string, is an error.
func decodeRequest(raw []byte, m proto.Message) error {
	return proto.Unmarshal(raw, m)
}

// malformed counts, logs and returns the refusal of a request that does
// not decode.
func (svc *idsService) malformed(ctx context.Context, op string, err error) error {
	return svc.refuse(ctx, op, "bad_request", "malformed request: "+err.Error())
}

// refuse counts a refused request of op, logs it at most every logEvery
// per code, and returns its status error.
func (svc *idsService) refuse(ctx context.Context, op, code, msg string) error {
	s := svc.s
	s.m.grpcRequest(op, code)
	if code == "unauthorized" {
		s.m.authFailed()
	}
	s.logs.info("grpc/"+code, "gRPC request refused", "op", op, "code", code, "err", msg, "remote", grpcPeer(ctx))
	return grpcError(code, msg)
}

// bearer returns the token of the call's "authorization" metadata,
// "Bearer <token>", as HTTP reads its header: the first value.
func bearer(ctx context.Context) ([]byte, bool) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return nil, false
	}
	token, ok := strings.CutPrefix(vals[0], "Bearer ")
	return []byte(token), ok
}

// grpcPeer returns the address of the client of ctx, for logs.
func grpcPeer(ctx context.Context) string {
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		return p.Addr.String()
	}
	return "unknown"
}
