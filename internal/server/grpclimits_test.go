package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/floeid/floe/internal/floev1"
)

// HTTP/2's frames that the tests below read and write by hand.
const (
	h2Settings = 0x4
	h2Ping     = 0x6
	h2GoAway   = 0x7

	h2MaxStreams = 0x3 // SETTINGS_MAX_CONCURRENT_STREAMS
	h2CalmDown   = 0xb // ENHANCE_YOUR_CALM
)

type h2Frame struct {
	typ, flags byte
	payload    []byte
}

// h2Dial opens an HTTP/2 connection to addr by hand: the client preface
// and an empty SETTINGS frame. Its reads and writes fail after 10 s.
func h2Dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	h2Write(t, c, h2Settings, 0, nil)
	return c
}

func h2Write(t *testing.T, c net.Conn, typ, flags byte, payload []byte) {
	t.Helper()
	hdr := []byte{byte(len(payload) >> 16), byte(len(payload) >> 8), byte(len(payload)), typ, flags, 0, 0, 0, 0}
	if _, err := c.Write(append(hdr, payload...)); err != nil {
		t.Fatal(err)
	}
}

func h2Read(c net.Conn) (h2Frame, error) {
	var hdr [9]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return h2Frame{}, err
	}
	f := h2Frame{typ: hdr[3], flags: hdr[4], payload: make([]byte, int(hdr[0])<<16|int(hdr[1])<<8|int(hdr[2]))}
	_, err := io.ReadFull(c, f.payload)
	return f, err
}

// TestGRPC_Limits checks what a connection learns of the limits from its
// first frames: the server's SETTINGS bound its calls in progress, and a
// client that pings more often than grpcMinPing is sent GOAWAY
// ENHANCE_YOUR_CALM "too_many_pings".
func TestGRPC_Limits(t *testing.T) {
	_, _, cc := newGRPCTest(t, Config{})
	c := h2Dial(t, cc.Target())
	f, err := h2Read(c)
	if err != nil || f.typ != h2Settings || f.flags != 0 {
		t.Fatalf("the first frame: %+v, %v; want the server's SETTINGS", f, err)
	}
	settings := map[uint16]uint32{}
	for p := f.payload; len(p) >= 6; p = p[6:] {
		settings[binary.BigEndian.Uint16(p)] = binary.BigEndian.Uint32(p[2:])
	}
	if got, want := settings[h2MaxStreams], uint32(grpcMaxStreams); got != want {
		t.Errorf("SETTINGS_MAX_CONCURRENT_STREAMS %d, want %d (settings %v)", got, want, settings)
	}
	h2Write(t, c, h2Settings, 1, nil) // ack
	// grpc-go strikes every ping sooner than grpcMinPing after the one
	// before, and sends GOAWAY at the third strike.
	for i := range 4 {
		h2Write(t, c, h2Ping, 0, []byte{0, 0, 0, 0, 0, 0, 0, byte(i)})
	}
	for {
		f, err := h2Read(c)
		if err != nil {
			t.Fatalf("reading until GOAWAY: %v", err)
		}
		if f.typ != h2GoAway {
			continue
		}
		if len(f.payload) < 8 {
			t.Fatalf("GOAWAY of %d bytes", len(f.payload))
		}
		code, debug := binary.BigEndian.Uint32(f.payload[4:]), f.payload[8:]
		if code != h2CalmDown || !bytes.Equal(debug, []byte("too_many_pings")) {
			t.Errorf("GOAWAY code %#x %q, want %#x \"too_many_pings\"", code, debug, h2CalmDown)
		}
		return
	}
}

// TestGRPC_MaxConns checks that gRPC connections over Config.MaxConns are
// closed as they come, and that a closed one frees its place.
func TestGRPC_MaxConns(t *testing.T) {
	_, ids, cc := newGRPCTest(t, Config{MaxConns: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := ids.Next(ctx, &floev1.NextRequest{Count: 1}); err != nil {
		t.Fatalf("Next on the first connection: %v", err)
	}
	c, err := net.Dial("tcp", cc.Target())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	// The server sends its SETTINGS first, unless it closes the connection.
	if n, err := c.Read(make([]byte, 9)); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("a second connection read %d bytes, %v; want it closed", n, err)
	}
	cc.Close()
	// The first connection's place frees once the server reads its close:
	// a client that waits for a ready connection gets it then.
	next, err := grpc.NewClient(cc.Target(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{BaseDelay: 10 * time.Millisecond, Multiplier: 1.5, MaxDelay: 100 * time.Millisecond}}))
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if _, err := floev1.NewIDsClient(next).Next(ctx, &floev1.NextRequest{Count: 1}, grpc.WaitForReady(true)); err != nil {
		t.Fatalf("Next once the first connection closed: %v", err)
	}
}

// TestGRPC_IdleTimeout checks that the server closes a connection without
// a call for Config.IdleTimeout, with GOAWAY: its client goes idle.
func TestGRPC_IdleTimeout(t *testing.T) {
	_, ids, cc := newGRPCTest(t, Config{IdleTimeout: 50 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := ids.Next(ctx, &floev1.NextRequest{Count: 1}); err != nil {
		t.Fatal(err)
	}
	for s := cc.GetState(); s == connectivity.Ready; s = cc.GetState() {
		if !cc.WaitForStateChange(ctx, s) {
			t.Fatalf("the connection is still %v after 10 s, want it closed after 50 ms idle", s)
		}
	}
	// The client reconnects when it next calls.
	if _, err := ids.Next(ctx, &floev1.NextRequest{Count: 1}); err != nil {
		t.Fatalf("Next after the idle close: %v", err)
	}
}
