package redisgen

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// Init sets the shard ID of the server at addr, as `floe redis init` does.
// It refuses a shard outside the layout and, unless force is set, a server
// that already has a different shard ID: changing a shard can make this
// server's IDs collide with another's. Setting the same ID again is a no-op.
// It accepts a server without persistence, whose IDs are unique only until
// it restarts empty: CheckDurable tells (`floe redis init` warns).
func Init(ctx context.Context, addr string, shard uint64, force bool, opt ...Option) error {
	o := defaults()
	for _, f := range opt {
		f(&o)
	}
	if _, err := scriptArgs(o.layout); err != nil {
		return err
	}
	if shard > o.layout.MaxNode() {
		return fmt.Errorf("%w: %d, want 0..%d", ErrBadShard, shard, o.layout.MaxNode())
	}
	rdb := redis.NewClient(o.redisOptions(addr))
	defer rdb.Close()
	key, val := o.shardKey(), strconv.FormatUint(shard, 10)
	if force {
		return rdb.Set(ctx, key, val, 0).Err()
	}
	ok, err := rdb.SetNX(ctx, key, val, 0).Result()
	if err != nil || ok {
		return err
	}
	cur, err := rdb.Get(ctx, key).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	if cur != val {
		return fmt.Errorf("%w: %s holds %s at %s", ErrShardSet, key, cur, addr)
	}
	return nil
}
