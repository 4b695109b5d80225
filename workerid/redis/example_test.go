//go:build unix

package redis_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/floeid/floe/internal/tcptest"
	"github.com/floeid/floe/workerid/redis"
)

// Dial fails at once, naming the address and the cause.
func ExampleDial() {
	addr, err := tcptest.Refused() // a Redis server that is down: nothing listens there
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rdb, err := redis.Dial(ctx, &goredis.Options{Addr: addr})
	if err != nil {
		fmt.Println(strings.ReplaceAll(err.Error(), addr, "redis-0:6379"))
		fmt.Println(errors.Is(err, redis.ErrUnreachable))
		return
	}
	defer rdb.Close()
	// Output:
	// redis redis-0:6379: cannot connect: connection refused
	// true
}

// Probe checks an address as a client with this TLS configuration would
// connect; an *EndpointError says why it failed.
func ExampleProbe() {
	addr, err := tcptest.Refused() // a Redis server that is down: nothing listens there
	if err != nil {
		panic(err)
	}
	err = redis.Probe(context.Background(), addr, nil)
	var ee *redis.EndpointError
	fmt.Println(errors.As(err, &ee), ee.Addr == addr, ee.Err)
	// Output:
	// true true cannot connect: connection refused
}

// TLSConfig reads the PEM files of a TLS client; a file it cannot use is a
// *TLSFileError naming its field.
func ExampleTLSConfig() {
	_, err := redis.TLSConfig(redis.TLSFiles{Cert: "client.pem"})
	var fe *redis.TLSFileError
	fmt.Println(errors.As(err, &fe), fe.Field)
	fmt.Println(err)
	// Output:
	// true Key
	// floe: redis TLSFiles.Key: none, with a Cert: give both or neither
}

// CheckACL tells, before anything runs, whether the user may run every
// command of the scripts; NewSource and Catalog.Source run it too.
func ExampleCheckACL() {
	rdb := goredis.NewClient(&goredis.Options{Addr: "redis:6379", Username: "floe", Password: "secret"})
	defer rdb.Close()
	err := redis.CheckACL(context.Background(), rdb, "floe/v1/ids/", true)
	var pe *redis.PermissionError
	if errors.As(err, &pe) {
		// For example: user "floe" may not run PUBLISH on channel
		// floe/v1/ids/destroyed: add +publish and &floe/* to its ACL
		fmt.Println(pe.Missing)
	}
}
