package server

import (
	"context"
	"fmt"
	"slices"
	"time"
	"unsafe"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/floev1"
)

// idsService serves floe.v1.IDs. A request names its sequence (empty: the
// default one) and, for a sequence with tokens, carries one as
// "authorization: Bearer <token>" metadata, as over HTTP; it asks for 1 to
// Config.MaxHTTPCount IDs. It is safe for concurrent use.
type idsService struct {
	floev1.UnimplementedIDsServer
	s *Server
}

var _ floev1.IDsServer = (*idsService)(nil)

// Next returns req.Count new IDs of a sequence.
func (svc *idsService) Next(ctx context.Context, req *floev1.NextRequest) (*floev1.NextResponse, error) {
	seq, n, text, err := svc.check(ctx, "ids", req.GetSequence(), req.GetCount(), req.GetEncoding())
	if err != nil {
		return nil, err
	}
	return svc.issue(ctx, "ids", seq, n, text)
}

// Stream sends req.Count new IDs of a sequence per message until the
// client cancels (the context of the stream ends), issuing fails or the
// server stops (Unavailable, "shutting down"). grpc-go's flow control
// holds each Send until the client has room for it, so a stream issues
// IDs as fast as its client reads them and no faster. Each message is a
// request of its own: it takes its turn among the sequence's requests, and
// counts in the metrics as op "stream".
func (svc *idsService) Stream(req *floev1.StreamRequest, stream grpc.ServerStreamingServer[floev1.NextResponse]) error {
	ctx := stream.Context()
	seq, n, text, err := svc.check(ctx, "stream", req.GetSequence(), req.GetCount(), req.GetEncoding())
	if err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return status.FromContextError(err).Err()
		}
		resp, err := svc.issue(ctx, "stream", seq, n, text)
		if err != nil {
			return err
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
}

// check resolves and authorizes the sequence of a request for IDs and
// reads its count and encoding; it returns the refusal's status error.
func (svc *idsService) check(ctx context.Context, op, name string, count uint32, enc floev1.Encoding) (*sequence, int, bool, error) {
	seq, err := svc.lookup(ctx, op, name)
	if err != nil {
		return nil, 0, false, err
	}
	max := svc.s.cfg.MaxHTTPCount
	if count == 0 || uint64(count) > uint64(max) {
		return nil, 0, false, svc.refuse(ctx, op, "bad_request", fmt.Sprintf("count must be 1..%d, not %d", max, count))
	}
	switch enc {
	case floev1.Encoding_ENCODING_UNSPECIFIED, floev1.Encoding_ENCODING_BINARY:
		return seq, int(count), false, nil
	case floev1.Encoding_ENCODING_TEXT:
		return seq, int(count), true, nil
	}
	return nil, 0, false, svc.refuse(ctx, op, "bad_request", fmt.Sprintf("unknown encoding %d: want ENCODING_BINARY or ENCODING_TEXT", enc))
}

// lookup resolves the sequence name of a request of op and checks its
// token, as the HTTP API's lookup does.
func (svc *idsService) lookup(ctx context.Context, op, name string) (*sequence, error) {
	seq, err := svc.s.sequence(name)
	if err != nil {
		return nil, svc.refuse(ctx, op, "unknown_sequence", err.Error())
	}
	if seq.locked() {
		if token, ok := bearer(ctx); !ok || !seq.hasToken(token) {
			return nil, svc.refuse(ctx, op, "unauthorized", "sequence "+seq.name+" requires a token")
		}
	}
	return seq, nil
}

// issue returns n new IDs of seq, as text or in binary, waiting as an
// HTTP request does (see waiter) with the call's context as the client's.
func (svc *idsService) issue(ctx context.Context, op string, seq *sequence, n int, text bool) (*floev1.NextResponse, error) {
	s := svc.s
	if !s.begin() {
		return nil, svc.failed(ctx, op, seq, n, time.Now(), errShuttingDown)
	}
	start := time.Now()
	w := waiter{s: s, arrival: start, client: ctx}
	resp := &floev1.NextResponse{Sequence: seq.name, Format: formatOf(seq.format)}
	err := seq.issue(resp, n, text, &w)
	w.done()
	s.end()
	if err != nil {
		return nil, svc.failed(ctx, op, seq, n, start, err)
	}
	s.m.grpcIssued(op, n, start, nil)
	return resp, nil
}

// failed counts a request that issuing failed, logs it at most every
// logEvery per code (not when its client went away) and returns its
// status error.
func (svc *idsService) failed(ctx context.Context, op string, seq *sequence, n int, start time.Time, err error) error {
	s := svc.s
	s.m.grpcIssued(op, n, start, err)
	code := codeOf(err)
	if code != "client_gone" {
		s.logs.warn("grpc/"+code, "gRPC request failed", "op", op, "seq", seq.name, "code", code, "err", err, "remote", grpcPeer(ctx))
	}
	return grpcError(code, err.Error())
}

// issue fills resp with n new IDs, within the request's bound w: id64 IDs
// as numbers, the others' as bytes, or every format's as text.
func (seq *sequence) issue(resp *floev1.NextResponse, n int, text bool, w *waiter) error {
	if seq.format == Format64 && !text {
		resp.Ids64 = make([]uint64, n)
		// An id64.ID is a uint64: the generator writes the reply's slice.
		return seq.fill64(unsafe.Slice((*id64.ID)(unsafe.SliceData(resp.Ids64)), n), w)
	}
	if text {
		resp.IdsText = make([]string, 0, n)
		_, err := seq.appendText(nil, n, func(dst, id []byte) []byte {
			resp.IdsText = append(resp.IdsText, string(id))
			return dst
		}, w)
		return err
	}
	resp.IdsBinary = make([][]byte, 0, n)
	_, err := seq.appendEach(nil, n, seq.sq.AppendNextBinaryContext, func(dst, id []byte) []byte {
		resp.IdsBinary = append(resp.IdsBinary, slices.Clone(id))
		return dst
	}, w)
	return err
}

// formatOf returns the floe.v1 Format of f.
func formatOf(f Format) floev1.Format {
	switch f {
	case Format80:
		return floev1.Format_FORMAT_ID80
	case Format96:
		return floev1.Format_FORMAT_ID96
	case Format128:
		return floev1.Format_FORMAT_ID128
	}
	return floev1.Format_FORMAT_ID64
}
