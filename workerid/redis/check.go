package redis

import (
	"context"
	"fmt"
	"strings"

	goredis "github.com/redis/go-redis/v9"
)

// Check reports whether the Redis server behind rdb keeps worker IDs
// safely. It returns an *UnsafeError naming each condition that fails, nil
// when all hold, or the error that kept it from asking the server. The
// conditions:
//
//   - AOF is on (INFO persistence shows aof_enabled:1; appendonly yes):
//     otherwise a restart loses every reservation.
//   - appendfsync is always (CONFIG GET appendfsync): otherwise a crash
//     loses reservations the server has acknowledged. When CONFIG is
//     disabled or renamed this cannot be read, and Check refuses.
//   - The server is a primary without replicas (INFO replication shows
//     role:master and connected_slaves:0): replication is asynchronous, so
//     a promoted replica can lack acknowledged reservations.
//
// NewSource runs Check, and a running Source runs it again at most every
// TTL/3 (with its renewals and claims), so that a replica attached or AOF
// turned off after the start ends its leases; Config.Unsafe runs on
// regardless (see Source.Unsafe).
func Check(ctx context.Context, rdb *goredis.Client) error {
	reasons, err := unsafeReasons(ctx, rdb)
	if err != nil {
		return err
	}
	if len(reasons) > 0 {
		return &UnsafeError{Addr: rdb.Options().Addr, Reasons: reasons}
	}
	return nil
}

// unsafeReasons returns the conditions of Check that fail, asking the
// server in one round trip (a pipeline), since a running Source asks again
// with its renewals. A command the server refuses (disabled, renamed, not
// permitted) is a failed condition; a network error is an error.
func unsafeReasons(ctx context.Context, rdb *goredis.Client) ([]string, error) {
	var persistence, replication *goredis.StringCmd
	var fsync *goredis.MapStringStringCmd
	_, err := await(ctx, func(ctx context.Context) ([]goredis.Cmder, error) {
		return rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
			persistence = p.Info(ctx, "persistence")
			fsync = p.ConfigGet(ctx, "appendfsync")
			replication = p.Info(ctx, "replication")
			return nil
		})
	})
	if err != nil && !isRedisError(err) {
		return nil, fmt.Errorf("floe: checking redis persistence and replication: %w", err)
	}
	var reasons []string
	switch info, err := persistence.Result(); {
	case isRedisError(err):
		reasons = append(reasons, fmt.Sprintf("INFO persistence is refused (%v), so AOF cannot be checked: allow INFO", err))
	case err != nil:
		return nil, fmt.Errorf("floe: checking redis persistence: %w", err)
	default:
		if v := infoField(info, "aof_enabled"); v != "1" {
			reasons = append(reasons, fmt.Sprintf("AOF is off (aof_enabled:%s), so a restart loses every reservation: set appendonly yes", v))
		}
	}
	switch conf, err := fsync.Result(); {
	case isRedisError(err):
		reasons = append(reasons, fmt.Sprintf("CONFIG is disabled or renamed (%v), so appendfsync cannot be checked: allow CONFIG GET, with appendfsync always", err))
	case err != nil:
		return nil, fmt.Errorf("floe: checking redis appendfsync: %w", err)
	default:
		if v := conf["appendfsync"]; v != "always" {
			reasons = append(reasons, fmt.Sprintf("appendfsync is %q, so a crash can lose reservations already acknowledged: set appendfsync always", v))
		}
	}
	switch info, err := replication.Result(); {
	case isRedisError(err):
		reasons = append(reasons, fmt.Sprintf("INFO replication is refused (%v), so replicas cannot be checked: allow INFO", err))
	case err != nil:
		return nil, fmt.Errorf("floe: checking redis replication: %w", err)
	default:
		if role := infoField(info, "role"); role != "master" {
			reasons = append(reasons, fmt.Sprintf("the server is a replica (role:%s), and replication is asynchronous: use a primary without replicas", role))
		} else if n := infoField(info, "connected_slaves"); n != "0" {
			reasons = append(reasons, fmt.Sprintf("the primary has replicas (connected_slaves:%s), and replication is asynchronous, so a promoted replica can lack reservations already acknowledged: remove the replicas", n))
		}
	}
	return reasons, nil
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
