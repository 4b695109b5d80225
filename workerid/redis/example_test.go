package redis_test

import (
	"context"
	"errors"
	"fmt"

	goredis "github.com/redis/go-redis/v9"

	"github.com/floeid/floe/workerid/redis"
)

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
