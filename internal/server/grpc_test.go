package server

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
	"github.com/floeid/floe/internal/floev1"
)

// grpcTestSequences are the sequences of the gRPC tests: one of each
// format, one with a token, as the HTTP tests have.
var grpcTestSequences = []SequenceConfig{
	{Name: "default", Worker: 5},
	{Name: "sno", Format: Format80, Node: 9},
	{Name: "guid", Format: Format96, Node: 9},
	{Name: "uuid", Format: Format128, Node: 9},
	{Name: "private", Worker: 6, Tokens: []string{"secret"}},
	{Name: "discord", Layout: id64.Discord, Worker: 7},
}

// serveGRPC serves s's gRPC API on a loopback port and returns a client
// connection to it; both stop when the test ends.
func serveGRPC(t testing.TB, s *Server) *grpc.ClientConn {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.ServeGRPC(l) }()
	cc, err := grpc.NewClient(l.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cc.Close()
		s.Close()
		if err := <-done; !errors.Is(err, ErrServerClosed) {
			t.Errorf("ServeGRPC returned %v, want ErrServerClosed", err)
		}
	})
	return cc
}

func newGRPCTest(t testing.TB, cfg Config) (*Server, floev1.IDsClient, *grpc.ClientConn) {
	t.Helper()
	if cfg.Sequences == nil {
		cfg.Sequences = grpcTestSequences
	}
	if cfg.Clock == nil {
		cfg.Clock = floetest.NewClock(start)
	}
	s, _ := newTestServer(t.(*testing.T), cfg)
	cc := serveGRPC(t, s)
	return s, floev1.NewIDsClient(cc), cc
}

func withToken(token string) context.Context {
	return metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+token)
}

// idsOf returns the IDs of resp as byte strings that order as the IDs do.
func idsOf(resp *floev1.NextResponse) [][]byte {
	var out [][]byte
	for _, v := range resp.GetIds64() {
		out = append(out, id64.ID(v).Bytes())
	}
	out = append(out, resp.GetIdsBinary()...)
	return out
}

func TestGRPC_Next(t *testing.T) {
	_, c, _ := newGRPCTest(t, Config{})
	tests := []struct {
		name   string
		ctx    context.Context
		req    *floev1.NextRequest
		format floev1.Format
		size   int // bytes of an ID in binary; 0 for text
	}{
		{"id64 by default", context.Background(), &floev1.NextRequest{Count: 1}, floev1.Format_FORMAT_ID64, 8},
		{"id64 many", context.Background(), &floev1.NextRequest{Sequence: "default", Count: 1000, Encoding: floev1.Encoding_ENCODING_BINARY}, floev1.Format_FORMAT_ID64, 8},
		{"id64 text", context.Background(), &floev1.NextRequest{Count: 5, Encoding: floev1.Encoding_ENCODING_TEXT}, floev1.Format_FORMAT_ID64, 0},
		{"id80", context.Background(), &floev1.NextRequest{Sequence: "sno", Count: 7}, floev1.Format_FORMAT_ID80, 10},
		{"id80 text", context.Background(), &floev1.NextRequest{Sequence: "sno", Count: 7, Encoding: floev1.Encoding_ENCODING_TEXT}, floev1.Format_FORMAT_ID80, 0},
		{"id96", context.Background(), &floev1.NextRequest{Sequence: "guid", Count: 7}, floev1.Format_FORMAT_ID96, 12},
		{"id96 text", context.Background(), &floev1.NextRequest{Sequence: "guid", Count: 7, Encoding: floev1.Encoding_ENCODING_TEXT}, floev1.Format_FORMAT_ID96, 0},
		{"id128", context.Background(), &floev1.NextRequest{Sequence: "uuid", Count: 7}, floev1.Format_FORMAT_ID128, 16},
		{"id128 text", context.Background(), &floev1.NextRequest{Sequence: "uuid", Count: 7, Encoding: floev1.Encoding_ENCODING_TEXT}, floev1.Format_FORMAT_ID128, 0},
		{"token", withToken("secret"), &floev1.NextRequest{Sequence: "private", Count: 3}, floev1.Format_FORMAT_ID64, 8},
		{"other layout", context.Background(), &floev1.NextRequest{Sequence: "discord", Count: 3}, floev1.Format_FORMAT_ID64, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := c.Next(tt.ctx, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := resp.GetFormat(), tt.format; got != want {
				t.Errorf("format = %v, want %v", got, want)
			}
			if want := tt.req.GetSequence(); want != "" && resp.GetSequence() != want {
				t.Errorf("sequence = %q, want %q", resp.GetSequence(), want)
			}
			var ids [][]byte
			if tt.size == 0 {
				if len(resp.GetIds64())+len(resp.GetIdsBinary()) > 0 {
					t.Errorf("binary IDs in a text reply: %v", resp)
				}
				for _, text := range resp.GetIdsText() {
					b, err := binaryOf(Format(formatName(tt.format)), []byte(text))
					if err != nil {
						t.Fatalf("text %q: %v", text, err)
					}
					ids = append(ids, b)
				}
			} else {
				if len(resp.GetIdsText()) > 0 {
					t.Errorf("text IDs in a binary reply: %v", resp)
				}
				ids = idsOf(resp)
			}
			if got, want := len(ids), int(tt.req.GetCount()); got != want {
				t.Fatalf("got %d IDs, want %d", got, want)
			}
			for i, id := range ids {
				if tt.size != 0 && len(id) != tt.size {
					t.Errorf("ID %d has %d bytes, want %d", i, len(id), tt.size)
				}
				if i > 0 && bytes.Compare(ids[i-1], id) >= 0 {
					t.Errorf("ID %d (%x) is not above ID %d (%x)", i, id, i-1, ids[i-1])
				}
			}
		})
	}
}

// formatName returns the server's name of a floe.v1 Format.
func formatName(f floev1.Format) string {
	switch f {
	case floev1.Format_FORMAT_ID80:
		return "id80"
	case floev1.Format_FORMAT_ID96:
		return "id96"
	case floev1.Format_FORMAT_ID128:
		return "id128"
	}
	return "id64"
}

// reasonOf returns the floe code of a status error's ErrorInfo.
func reasonOf(err error) string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == errorDomain {
			return info.GetReason()
		}
	}
	return ""
}

// TestGRPC_Errors makes each refusal over HTTP and over gRPC, against one
// server, and checks that the HTTP status and the gRPC code are the pair
// the table of docs/grpc.md gives, with the same floe code.
func TestGRPC_Errors(t *testing.T) {
	s, c, cc := newGRPCTest(t, Config{})
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	bg := context.Background()
	tests := []struct {
		name   string
		path   string // the HTTP request, or "" when HTTP has none like it
		header []string
		call   func() error
		code   string // the floe code of both
		status int
		grpc   codes.Code
	}{
		{"no token", "/v1/ids?seq=private", nil,
			func() error { _, err := c.Next(bg, &floev1.NextRequest{Sequence: "private", Count: 1}); return err },
			"unauthorized", 401, codes.Unauthenticated},
		{"wrong token", "/v1/ids?seq=private", []string{"Authorization", "Bearer nope"},
			func() error {
				_, err := c.Next(withToken("nope"), &floev1.NextRequest{Sequence: "private", Count: 1})
				return err
			},
			"unauthorized", 401, codes.Unauthenticated},
		{"token of the stream", "/v1/ids?seq=private", []string{"Authorization", "secret"},
			func() error {
				st, err := c.Stream(metadata.AppendToOutgoingContext(bg, "authorization", "secret"), &floev1.StreamRequest{Sequence: "private", Count: 1})
				if err != nil {
					return err
				}
				_, err = st.Recv()
				return err
			},
			"unauthorized", 401, codes.Unauthenticated},
		{"unknown sequence", "/v1/ids?seq=nope", nil,
			func() error { _, err := c.Next(bg, &floev1.NextRequest{Sequence: "nope", Count: 1}); return err },
			"unknown_sequence", 404, codes.NotFound},
		{"inspect of an unknown sequence", "/v1/inspect/1?seq=nope", nil,
			func() error {
				_, err := c.Inspect(bg, &floev1.InspectRequest{Sequence: "nope", Id: &floev1.InspectRequest_Id64{Id64: 1}})
				return err
			},
			"unknown_sequence", 404, codes.NotFound},
		{"count zero", "/v1/ids?n=0", nil,
			func() error { _, err := c.Next(bg, &floev1.NextRequest{}); return err },
			"bad_request", 400, codes.InvalidArgument},
		{"count too large", "/v1/ids?n=1001", nil,
			func() error { _, err := c.Next(bg, &floev1.NextRequest{Count: 1001}); return err },
			"bad_request", 400, codes.InvalidArgument},
		{"stream count too large", "/v1/ids?n=4294967295", nil,
			func() error {
				st, err := c.Stream(bg, &floev1.StreamRequest{Count: 1<<32 - 1})
				if err != nil {
					return err
				}
				_, err = st.Recv()
				return err
			},
			"bad_request", 400, codes.InvalidArgument},
		{"unknown encoding", "", nil,
			func() error { _, err := c.Next(bg, &floev1.NextRequest{Count: 1, Encoding: 9}); return err },
			"bad_request", 400, codes.InvalidArgument},
		{"inspect of a bad ID", "/v1/inspect/abc", nil,
			func() error {
				_, err := c.Inspect(bg, &floev1.InspectRequest{Id: &floev1.InspectRequest_Text{Text: "abc"}})
				return err
			},
			"bad_request", 400, codes.InvalidArgument},
		{"inspect without an ID", "", nil,
			func() error { _, err := c.Inspect(bg, &floev1.InspectRequest{}); return err },
			"bad_request", 400, codes.InvalidArgument},
		{"inspect of id80 with a layout", "/v1/inspect/2a6bcd3ak6e6f9b8?seq=sno&layout=twitter", nil,
			func() error {
				_, err := c.Inspect(bg, &floev1.InspectRequest{Sequence: "sno", Layout: "twitter", Id: &floev1.InspectRequest_Text{Text: "2a6bcd3ak6e6f9b8"}})
				return err
			},
			"bad_request", 400, codes.InvalidArgument},
		{"inspect of id80 by number", "", nil,
			func() error {
				_, err := c.Inspect(bg, &floev1.InspectRequest{Sequence: "sno", Id: &floev1.InspectRequest_Id64{Id64: 1}})
				return err
			},
			"bad_request", 400, codes.InvalidArgument},
		{"malformed request", "", nil,
			func() error {
				return rawInvoke(cc, "/floe.v1.IDs/Next", []byte{0x0a, 0xff})
			},
			"bad_request", 400, codes.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path != "" {
				status, _, body := httpGet(t, hs.URL+tt.path, tt.header...)
				if status != tt.status || !bytes.Contains([]byte(body), []byte(`"code":"`+tt.code+`"`)) {
					t.Errorf("HTTP: %d %s, want %d with code %s", status, body, tt.status, tt.code)
				}
			}
			err := tt.call()
			if got := status.Code(err); got != tt.grpc {
				t.Errorf("gRPC: %v, want code %v", err, tt.grpc)
			}
			if got := reasonOf(err); got != tt.code {
				t.Errorf("gRPC: ErrorInfo reason %q, want %q", got, tt.code)
			}
			if got, want := grpcCodes[tt.code], tt.grpc; got != want {
				t.Errorf("grpcCodes[%q] = %v, want %v", tt.code, got, want)
			}
			if got := httpStatus(tt.code); got != tt.status {
				t.Errorf("httpStatus(%q) = %d, want %d", tt.code, got, tt.status)
			}
		})
	}
	// The server still serves.
	if _, err := c.Next(bg, &floev1.NextRequest{Count: 1}); err != nil {
		t.Errorf("after the refusals: %v", err)
	}
}

// TestGRPCCodes checks that the gRPC codes map one to one to the HTTP
// statuses: two floe codes share a gRPC code exactly when they share an
// HTTP status, and each issuing error's HTTP status is statusOf's.
func TestGRPCCodes(t *testing.T) {
	byStatus := map[int]codes.Code{}
	byCode := map[codes.Code]int{}
	for code, c := range grpcCodes {
		st := httpStatus(code)
		if prev, ok := byStatus[st]; ok && prev != c {
			t.Errorf("HTTP %d maps to both %v and %v", st, prev, c)
		}
		if prev, ok := byCode[c]; ok && prev != st {
			t.Errorf("%v maps to both HTTP %d and %d", c, prev, st)
		}
		byStatus[st], byCode[c] = c, st
	}
	issuing := []error{
		&floe.ClockError{Behind: time.Second}, &floe.CeilingError{Tick: 2, Ceiling: 1}, floe.ErrTimeExhausted,
		errShuttingDown, errClientGone, ErrNotReady, errors.New("other"),
	}
	for _, err := range issuing {
		st, code := statusOf(err)
		if _, ok := grpcCodes[code]; !ok {
			t.Errorf("issuing code %q (%v) has no gRPC code", code, err)
		}
		if got := httpStatus(code); got != st {
			t.Errorf("httpStatus(%q) = %d, statusOf says %d", code, got, st)
		}
	}
}

// TestGRPC_Stream reads a stream's messages, checks that its IDs increase
// across them, cancels it and checks that the server serves on.
func TestGRPC_Stream(t *testing.T) {
	_, c, _ := newGRPCTest(t, Config{})
	for _, seq := range []string{"default", "uuid"} {
		t.Run(seq, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			st, err := c.Stream(ctx, &floev1.StreamRequest{Sequence: seq, Count: 50})
			if err != nil {
				t.Fatal(err)
			}
			var last []byte
			for i := range 20 {
				resp, err := st.Recv()
				if err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
				ids := idsOf(resp)
				if len(ids) != 50 {
					t.Fatalf("message %d: %d IDs, want 50", i, len(ids))
				}
				for _, id := range ids {
					if last != nil && bytes.Compare(last, id) >= 0 {
						t.Fatalf("message %d: %x after %x", i, id, last)
					}
					last = id
				}
			}
			cancel()
			for {
				if _, err := st.Recv(); err != nil {
					if status.Code(err) != codes.Canceled {
						t.Errorf("after cancel: %v, want Canceled", err)
					}
					break
				}
			}
			if _, err := c.Next(context.Background(), &floev1.NextRequest{Sequence: seq, Count: 1}); err != nil {
				t.Errorf("after the stream: %v", err)
			}
		})
	}
}

// rawInvoke sends body as the request of method, as it is.
func rawInvoke(cc *grpc.ClientConn, method string, body []byte) error {
	var reply []byte
	return cc.Invoke(context.Background(), method, body, &reply, grpc.ForceCodecV2(rawTestCodec{}))
}

// rawTestCodec sends and receives messages as bytes, undecoded.
type rawTestCodec struct{}

func (rawTestCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}

func (rawTestCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

func (rawTestCodec) Name() string { return "proto" }

// TestGRPC_RefusalsLogRateLimited floods the server with refused calls of
// two kinds: each kind is logged once within logEvery, and the calls of
// another client are served meanwhile.
func TestGRPC_RefusalsLogRateLimited(t *testing.T) {
	var logs floetest.Buffer
	_, c, cc := newGRPCTest(t, Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx := context.Background()
	for i := range 50 {
		if _, err := c.Next(ctx, &floev1.NextRequest{Sequence: "private", Count: 1}); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("call %d: %v, want Unauthenticated", i, err)
		}
		if err := rawInvoke(cc, "/floe.v1.IDs/Next", []byte{0x08}); status.Code(err) != codes.InvalidArgument {
			t.Fatalf("call %d: %v, want InvalidArgument", i, err)
		}
		if _, err := c.Next(ctx, &floev1.NextRequest{Count: 2}); err != nil {
			t.Fatalf("call %d of the other client: %v", i, err)
		}
	}
	if got := strings.Count(logs.String(), "gRPC request refused"); got != 2 {
		t.Errorf("%d lines of refusals, want 2 (one per code):\n%s", got, logs.String())
	}
}

// binaryOf returns the bytes of the ID of format f whose text is text.
func binaryOf(f Format, text []byte) ([]byte, error) {
	switch f {
	case Format80:
		id, err := id80.Parse(string(text))
		return id.Bytes(), err
	case Format96:
		id, err := id96.Parse(string(text))
		return id.Bytes(), err
	case Format128:
		id, err := id128.Parse(string(text))
		return id.Bytes(), err
	}
	id, err := id64.Parse(string(text))
	return id.Bytes(), err
}
