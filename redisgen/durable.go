package redisgen

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// NotDurableError reports a server that can lose its last tick and shard
// ID in a restart: redisgen is restart-safe only on a server that runs AOF,
// ideally with appendfsync always. It matches ErrNotDurable.
type NotDurableError struct {
	Addr    string
	Reasons []string // each missing setting, with its fix
}

func (e *NotDurableError) Error() string {
	return fmt.Sprintf("floe: redis %s is not restart-safe for redisgen: %s; after a restart it can repeat IDs it issued before",
		e.Addr, strings.Join(e.Reasons, "; "))
}

// Unwrap returns ErrNotDurable.
func (e *NotDurableError) Unwrap() error { return ErrNotDurable }

// CheckDurable reports whether the server at addr persists redisgen's keys
// across a restart: it returns a *NotDurableError when AOF is off (INFO
// persistence, aof_enabled) or appendfsync is not always (CONFIG GET;
// refused or renamed, it cannot be read, and that is a reason too), nil
// when both hold, or the error that kept it from asking. Init does not
// refuse such a server and New does not check it: a server without AOF
// issues unique IDs until it restarts empty. `floe redis init` runs it and
// prints the warning.
func CheckDurable(ctx context.Context, addr string, opt ...Option) error {
	o := defaults()
	for _, f := range opt {
		f(&o)
	}
	rdb := redis.NewClient(o.redisOptions(addr))
	defer rdb.Close()
	var reasons []string
	info, err := rdb.Info(ctx, "persistence").Result()
	switch {
	case isRedisError(err):
		reasons = append(reasons, fmt.Sprintf("INFO persistence is refused (%v), so AOF cannot be checked", err))
	case err != nil:
		return fmt.Errorf("floe: redis %s: checking persistence: %w", addr, err)
	default:
		if v := infoField(info, "aof_enabled"); v != "1" {
			reasons = append(reasons, fmt.Sprintf("AOF is off (aof_enabled:%s): set appendonly yes", v))
		}
	}
	fsync, err := rdb.ConfigGet(ctx, "appendfsync").Result()
	switch {
	case isRedisError(err):
		reasons = append(reasons, fmt.Sprintf("CONFIG GET is refused (%v), so appendfsync cannot be checked: want appendfsync always", err))
	case err != nil:
		return fmt.Errorf("floe: redis %s: checking appendfsync: %w", addr, err)
	default:
		if v := fsync["appendfsync"]; v != "always" {
			reasons = append(reasons, fmt.Sprintf("appendfsync is %q, so a crash can lose the last second of ticks: set appendfsync always", v))
		}
	}
	if len(reasons) > 0 {
		return &NotDurableError{Addr: addr, Reasons: reasons}
	}
	return nil
}

// isRedisError reports whether err is an error reply of the server.
func isRedisError(err error) bool {
	var rerr redis.Error
	return errors.As(err, &rerr) && !errors.Is(err, redis.Nil)
}

// infoField returns the value of one "name:value" line of an INFO reply.
func infoField(info, name string) string {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), name+":"); ok {
			return v
		}
	}
	return ""
}
