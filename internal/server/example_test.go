package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/floeid/floe/internal/floev1"
	"github.com/floeid/floe/internal/server"
	"github.com/floeid/floe/internal/server/servertest"
)

// A server's gRPC API on a loopback port, and the generated Go client:
// IDs of a sequence with a token, as numbers, and a refusal's code.
func ExampleServer_ServeGRPC() {
	s, err := server.New(server.Config{
		Store:     &servertest.Store{},
		Logger:    slog.New(slog.DiscardHandler),
		Sequences: []server.SequenceConfig{{Name: "orders", Tokens: []string{"secret"}}},
	})
	if err != nil {
		panic(err)
	}
	defer s.Shutdown(context.Background())
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go s.ServeGRPC(l)

	cc, err := grpc.NewClient(l.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer cc.Close()
	c := floev1.NewIDsClient(cc)

	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer secret")
	resp, err := c.Next(ctx, &floev1.NextRequest{Sequence: "orders", Count: 3})
	if err != nil {
		panic(err)
	}
	ids := resp.GetIds64()
	fmt.Println(resp.GetSequence(), resp.GetFormat(), len(ids), ids[0] < ids[1] && ids[1] < ids[2])

	_, err = c.Next(context.Background(), &floev1.NextRequest{Sequence: "orders", Count: 3})
	fmt.Println(status.Code(err))
	// Output:
	// orders FORMAT_ID64 3 true
	// Unauthenticated
}
