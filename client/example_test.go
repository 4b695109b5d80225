package client_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/id64"
)

func Example() {
	// A stand-in for floed: an in-process server on 127.0.0.1 that wants
	// the token "s3cret" and hands out IDs of the current millisecond.
	srv, err := startFake(fakeConfig{token: "s3cret"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	c, err := client.New([]string{srv.Addr}, client.WithToken("s3cret"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id, err := c.Next(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	age := time.Since(id64.Twitter.Time(id)) // noeqd's and floed's default layout
	fmt.Println("issued in the last minute:", age >= 0 && age < time.Minute)

	batch := make([]id64.ID, 3)
	n, err := c.NextN(ctx, batch)
	fmt.Println(n, err, id < batch[0] && batch[0] < batch[1] && batch[1] < batch[2])
	// Output:
	// issued in the last minute: true
	// 3 <nil> true
}

// A server that is not a noeq server: its reply cannot be an ID. The client
// rejects it, counts it, and fails over (here to no other server).
func Example_invalidReply() {
	// An HTTP server where a noeq server was expected: it answers the
	// request byte with a status line.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			nc.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
			nc.Close()
		}
	}()

	c, err := client.New([]string{ln.Addr().String()}, client.WithMaxAttempts(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	_, err = c.Next(context.Background())
	fmt.Println(errors.Is(err, client.ErrInvalidReply), c.Stats().InvalidReplies)
	// Output:
	// true 1
}

// A client with failover and prefetch. A failed call lists every attempt.
func ExampleNew() {
	c, err := client.New(
		[]string{"127.0.0.1:1", "127.0.0.1:2"}, // nothing listens there
		client.WithMaxAttempts(2),
		client.WithBackoff(time.Millisecond, 100*time.Millisecond),
		client.WithNoRandomize(),
		client.WithPrefetch(1000, 2*time.Second),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	_, err = c.Next(context.Background())
	var ae *client.AttemptsError
	if errors.As(err, &ae) {
		for _, a := range ae.Attempts {
			fmt.Println(a.Addr)
		}
	}
	// Output:
	// 127.0.0.1:1
	// 127.0.0.1:2
}
