package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
	"github.com/floeid/floe/internal/floev1"
	"github.com/floeid/floe/sequencer"
)

// benchGRPCMaxReply bounds a reply a run over gRPC reads: -b IDs of
// benchMaxHTTPBatch, 16 bytes and their framing each, fit in it.
const benchGRPCMaxReply = 64 << 20

// benchGRPCFormats are the formats of floe.v1, as sequencer names them.
var benchGRPCFormats = map[floev1.Format]sequencer.Format{
	floev1.Format_FORMAT_ID64:  sequencer.Format64,
	floev1.Format_FORMAT_ID80:  sequencer.Format80,
	floev1.Format_FORMAT_ID96:  sequencer.Format96,
	floev1.Format_FORMAT_ID128: sequencer.Format128,
}

// benchGRPCTarget names the run's calls in its report.
func (cfg *benchConfig) grpcTarget() string {
	scheme, method := "grpc", "Next"
	if cfg.tls != nil {
		scheme = "grpcs"
	}
	if cfg.stream {
		method = "Stream"
	}
	return scheme + "://" + cfg.grpc + "/floe.v1.IDs/" + method
}

// benchGRPCContext returns ctx with the run's token as the call metadata
// "authorization: Bearer <token>", if there is a token.
func benchGRPCContext(ctx context.Context, cfg *benchConfig) context.Context {
	if cfg.token == "" {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+cfg.token)
}

// benchGRPCError says err, a call's error, as its status code and message.
func benchGRPCError(err error) error {
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	return fmt.Errorf("%v: %s", st.Code(), st.Message())
}

// benchDialGRPC opens the connections of a run over gRPC, one client
// connection each, and learns the sequence's format from the first: a
// call for one ID, and for an id64 sequence an Inspect of it for the
// layout. It fails if any connection fails.
func benchDialGRPC(cfg *benchConfig) ([]*benchConn, error) {
	var creds credentials.TransportCredentials = insecure.NewCredentials()
	if cfg.tls != nil {
		creds = credentials.NewTLS(cfg.tls)
	}
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithUserAgent("floe-bench"),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(benchGRPCMaxReply)),
	}
	conns := make([]*benchConn, 0, cfg.conns)
	fail := func(err error) ([]*benchConn, error) {
		for _, w := range conns {
			w.cc.Close()
		}
		return nil, fmt.Errorf("connection %d of %d: %w", len(conns), cfg.conns, err)
	}
	for i := range cfg.conns {
		cc, err := grpc.NewClient(cfg.grpc, opts...)
		if err != nil {
			return fail(err)
		}
		conns = append(conns, &benchConn{id: i + 1, cc: cc, rpc: floev1.NewIDsClient(cc), limit: benchLimit(cfg, i)})
		if i == 0 {
			err = benchResolveGRPC(cfg, conns[0].rpc)
		} else {
			err = benchAwaitReady(cc, cfg.timeout)
		}
		if err != nil {
			return fail(err)
		}
	}
	return conns, nil
}

// benchResolveGRPC asks the server for an ID of the run's sequence, and
// for the layout of an id64 one, and sets cfg.format from the answers.
func benchResolveGRPC(cfg *benchConfig, rpc floev1.IDsClient) error {
	ctx, cancel := context.WithTimeout(benchGRPCContext(context.Background(), cfg), cfg.timeout)
	defer cancel()
	resp, err := rpc.Next(ctx, &floev1.NextRequest{Sequence: cfg.seq, Count: 1})
	if err != nil {
		return fmt.Errorf("floe.v1.IDs/Next: %w", benchGRPCError(err))
	}
	d := sequencer.Definition{Format: benchGRPCFormats[resp.GetFormat()]}
	if d.Format == "" {
		return fmt.Errorf("sequence %s: format %v unknown to this floe", resp.GetSequence(), resp.GetFormat())
	}
	if d.Format == sequencer.Format64 {
		ids := resp.GetIds64()
		if len(ids) != 1 {
			return fmt.Errorf("floe.v1.IDs/Next: a reply of %d IDs, want 1", len(ids))
		}
		ir, err := rpc.Inspect(ctx, &floev1.InspectRequest{Sequence: resp.GetSequence(), Id: &floev1.InspectRequest_Id64{Id64: ids[0]}})
		if err != nil {
			return fmt.Errorf("floe.v1.IDs/Inspect: %w", benchGRPCError(err))
		}
		if d.Layout, err = id64.ParseLayout(ir.GetId64().GetLayout()); err != nil {
			return fmt.Errorf("sequence %s: layout %q: %w", resp.GetSequence(), ir.GetId64().GetLayout(), err)
		}
	}
	if cfg.format, err = benchFormatOf(resp.GetSequence(), d); err != nil {
		return err
	}
	benchBinaryOf(&cfg.format, d)
	return nil
}

// benchAwaitReady connects cc and waits until it is ready, at most timeout.
func benchAwaitReady(cc *grpc.ClientConn, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cc.Connect()
	for s := cc.GetState(); s != connectivity.Ready; s = cc.GetState() {
		if s == connectivity.TransientFailure || s == connectivity.Shutdown {
			return fmt.Errorf("gRPC connection %v", s)
		}
		if !cc.WaitForStateChange(ctx, s) {
			return fmt.Errorf("gRPC connection %v after %v", s, timeout)
		}
	}
	return nil
}

// benchBinaryOf sets how f reads IDs in floe.v1's binary encoding: an
// id64's tick from its number, another format's key and tick from its
// big-endian bytes.
func benchBinaryOf(f *benchFormat, d sequencer.Definition) {
	switch f.name {
	case sequencer.Format64:
		l := d.Layout
		if l == (id64.Layout{}) {
			l = id64.Twitter
		}
		f.tick64 = func(v uint64) uint64 { return l.Parts(id64.ID(v)).Tick }
	case sequencer.Format80:
		f.fromBytes = func(b []byte) (benchKey, uint64, error) {
			id, err := id80.FromBytes(b)
			return benchKeyOf(id[:]), id.Parts().Timestamp, err
		}
	case sequencer.Format96:
		f.fromBytes = func(b []byte) (benchKey, uint64, error) {
			id, err := id96.FromBytes(b)
			return benchKeyOf(id[:]), id.Tick(), err
		}
	case sequencer.Format128:
		f.fromBytes = func(b []byte) (benchKey, uint64, error) {
			id, err := id128.FromBytes(b)
			return benchKeyOf(id[:]), id.Tick(), err
		}
	}
}

// runGRPC calls floe.v1.IDs on the connection, Next for -b IDs at a time
// or, with -stream, one Stream of -b IDs a message, until the run ends,
// the request limit is reached or a call fails, then closes it.
func (w *benchConn) runGRPC(r *benchRun) {
	defer w.cc.Close()
	cfg := r.cfg
	ctx, cancel := context.WithCancelCause(benchGRPCContext(context.Background(), cfg))
	defer cancel(nil)
	// A watchdog reset a few times per timeout, as the other modes
	// refresh their connection's deadline: a silent server fails the
	// call instead of hanging the run.
	watchdog := time.AfterFunc(cfg.timeout, func() { cancel(os.ErrDeadlineExceeded) })
	defer watchdog.Stop()
	end := time.Duration(math.MaxInt64)
	if cfg.duration > 0 {
		end = cfg.warmup + cfg.duration
	}
	left := w.limit
	var refresh time.Duration
	var next func() (*floev1.NextResponse, error) // the next reply
	opened := time.Since(r.start)
	prev := opened // the last reply's time, or the stream's open
	if cfg.stream {
		st, err := w.rpc.Stream(ctx, &floev1.StreamRequest{Sequence: cfg.seq, Count: uint32(cfg.batch)})
		if err != nil {
			w.failGRPC(r, ctx, err)
			return
		}
		next = st.Recv
	} else {
		req := &floev1.NextRequest{Sequence: cfg.seq, Count: uint32(cfg.batch)}
		next = func() (*floev1.NextResponse, error) { return w.rpc.Next(ctx, req) }
	}
	for {
		now := time.Since(r.start)
		if now >= end || left == 0 || r.stop.Load() {
			return
		}
		if now >= refresh {
			watchdog.Reset(cfg.timeout)
			refresh = now + cfg.timeout/4
		}
		// A call is sent now; a stream's message is asked for by reading
		// the one before it.
		sentAt, lagAt := now, now
		if cfg.stream {
			sentAt, lagAt = prev, opened
		}
		if left > 0 && sentAt >= cfg.warmup {
			left--
		}
		resp, err := next()
		if err != nil {
			w.failGRPC(r, ctx, err)
			return
		}
		done := time.Since(r.start)
		if err := w.replyGRPC(resp, r, sentAt, lagAt, done); err != nil {
			w.fail(r, err)
			return
		}
		w.completed.Add(1)
		prev = done
	}
}

// failGRPC ends the connection with the error of a call: the watchdog's
// when it fired, else the call's status.
func (w *benchConn) failGRPC(r *benchRun, ctx context.Context, err error) {
	if cause := context.Cause(ctx); cause != nil {
		err = cause
	} else {
		err = benchGRPCError(err)
	}
	w.fail(r, err)
}

// replyGRPC checks the IDs of one reply, and times it and the lag of its
// IDs' time behind lagAt when its request was sent after the warmup.
func (w *benchConn) replyGRPC(resp *floev1.NextResponse, r *benchRun, sentAt, lagAt, done time.Duration) error {
	cfg := r.cfg
	f := &cfg.format
	measured := sentAt >= cfg.warmup
	sendTick := f.tick(r.start.Add(lagAt))
	var n int
	if f.tick64 != nil {
		ids := resp.GetIds64()
		for _, v := range ids {
			w.checkKey(r, benchKey{hi: v}, f.tick64(v), measured, sendTick)
		}
		n = len(ids)
	} else {
		ids := resp.GetIdsBinary()
		for i, b := range ids {
			k, tick, err := f.fromBytes(b)
			if err != nil {
				return fmt.Errorf("a reply's ID %d: %w", i+1, err)
			}
			w.checkKey(r, k, tick, measured, sendTick)
		}
		n = len(ids)
	}
	return w.counted(n, cfg.batch, measured, sentAt, done)
}
