package client_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/id64"
)

func Example() {
	// A stand-in for floed: an in-process server on 127.0.0.1 that wants
	// the token "s3cret" and hands out IDs from 1541815603606036480 up.
	ids := new(atomic.Uint64)
	ids.Store(1541815603606036479)
	srv, err := startFake(fakeConfig{token: "s3cret", ids: ids})
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
	fmt.Println(id, id64.Twitter.Parts(id).Time.UTC().Format(time.RFC3339Nano))

	batch := make([]id64.ID, 3)
	n, err := c.NextN(ctx, batch)
	fmt.Println(batch[:n], err)
	// Output:
	// 1541815603606036480 2022-06-28T16:07:40.105Z
	// [1541815603606036481 1541815603606036482 1541815603606036483] <nil>
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
