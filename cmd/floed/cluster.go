package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	goredis "github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/server"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/etcd"
	"github.com/floeid/floe/workerid/redis"
)

// clusterSetupTimeout bounds the start's coordinator work: connecting,
// checking the server, defining the sequences.
const clusterSetupTimeout = 30 * time.Second

// unsafeRepeat is how often the log repeats that the Redis server is
// unsafe, so the warning is never scrolled away.
const unsafeRepeat = 5 * time.Minute

// coordinator is floed's link to a cluster: the catalog of named sequences
// and a Source per sequence.
type coordinator struct {
	backend string // "etcd" or "redis"
	catalog workerid.Catalog
	sources func(workerid.Sequence) (workerid.Source, error)
	unsafe  []string // the Redis server's failed safety conditions, with --redis-unsafe
	close   func() error
}

// clustered reports whether the configuration names a coordinator.
func (c *Config) clustered() bool { return len(c.Etcd) > 0 || c.Redis != "" }

// validCluster checks the cluster flags.
func (c *Config) validCluster() error {
	switch {
	case !c.clustered():
		if c.RedisUnsafe {
			return errors.New("--redis-unsafe without --redis")
		}
		return nil
	case len(c.Etcd) > 0 && c.Redis != "":
		return errors.New("--etcd and --redis: choose one coordinator")
	case c.Worker != 0 || c.Datacenter != 0:
		return errors.New("--worker and --datacenter are for a single node: in a cluster (--etcd or --redis) the worker ID is claimed")
	case !c.TimeOfDeath.IsZero():
		return errors.New("--time-of-death is for a single node: in a cluster the reservations live in the coordinator")
	case c.RequireState:
		return errors.New("--require-state is for a single node: in a cluster the reservations live in the coordinator")
	case c.RedisUnsafe && c.Redis == "":
		return errors.New("--redis-unsafe without --redis")
	}
	return nil
}

// connect opens the coordinator the configuration names.
func (c *Config) connect(ctx context.Context, log *slog.Logger, clock floe.Clock) (*coordinator, error) {
	ctx, cancel := context.WithTimeout(ctx, clusterSetupTimeout)
	defer cancel()
	if len(c.Etcd) > 0 {
		return c.connectEtcd(ctx, log, clock)
	}
	return c.connectRedis(ctx, log, clock)
}

func (c *Config) connectEtcd(ctx context.Context, log *slog.Logger, clock floe.Clock) (*coordinator, error) {
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   c.Etcd,
		DialTimeout: 5 * time.Second,
		// The Source logs what an operator acts on (claims, losses); the
		// client's own retry chatter would drown it.
		Logger: zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd %v: %w", c.Etcd, err)
	}
	// Fail the start now, with a clear error, rather than at the first
	// claim.
	if _, err := cli.Get(ctx, "floe-ping", clientv3.WithCountOnly()); err != nil {
		cli.Close()
		return nil, fmt.Errorf("etcd %v: %w", c.Etcd, err)
	}
	prefix := "/floe/v1/" + c.Cluster + "/"
	catalog := etcd.NewCatalog(cli, prefix)
	co := &coordinator{backend: "etcd", catalog: catalog, close: cli.Close}
	co.sources = func(seq workerid.Sequence) (workerid.Source, error) {
		ids, err := workerIDs(seq)
		if err != nil {
			return nil, err
		}
		return catalog.Source(seq, etcd.Config{IDs: ids, TTL: c.LeaseTTL, Owner: c.Owner, Clock: clock,
			Logger: log.With("seq", seq.Name, "coordinator", "etcd")})
	}
	return co, nil
}

func (c *Config) connectRedis(ctx context.Context, log *slog.Logger, clock floe.Clock) (*coordinator, error) {
	rdb := goredis.NewClient(&goredis.Options{
		Addr:        c.Redis,
		DialTimeout: 5 * time.Second,
		// One request at a time is the lease's pace; a retry would
		// only blur whether a reservation landed.
		MaxRetries: -1,
	})
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("redis %s: %w", c.Redis, err)
	}
	var unsafe []string
	if err := redis.Check(ctx, rdb); err != nil {
		var ue *redis.UnsafeError
		if !errors.As(err, &ue) || !c.RedisUnsafe {
			rdb.Close()
			if errors.As(err, &ue) {
				return nil, fmt.Errorf("%w (pass --redis-unsafe to run anyway, accepting duplicate IDs after a Redis crash or failover)", err)
			}
			return nil, err
		}
		unsafe = ue.Reasons
	}
	catalog := redis.NewCatalog(rdb, "floe/v1/"+c.Cluster+"/")
	co := &coordinator{backend: "redis", catalog: catalog, unsafe: unsafe, close: rdb.Close}
	co.sources = func(seq workerid.Sequence) (workerid.Source, error) {
		ids, err := workerIDs(seq)
		if err != nil {
			return nil, err
		}
		sctx, cancel := context.WithTimeout(context.Background(), clusterSetupTimeout)
		defer cancel()
		return catalog.Source(sctx, seq, redis.Config{IDs: ids, TTL: c.LeaseTTL, Owner: c.Owner, Clock: clock,
			Unsafe: c.RedisUnsafe, Logger: log.With("seq", seq.Name, "coordinator", "redis")})
	}
	return co, nil
}

// workerIDs is how many worker IDs a catalog's sequence has.
func workerIDs(seq workerid.Sequence) (int, error) {
	sc, err := server.SequenceFromSpec(seq.Name, seq.Spec)
	if err != nil {
		return 0, err
	}
	return server.WorkerIDs(sc), nil
}

// define records each configured sequence in the cluster's catalog, or
// finds it there with the same definition, and gives it its Source. A
// sequence the catalog defines otherwise stops the start.
func (co *coordinator) define(ctx context.Context, seqs []server.SequenceConfig) error {
	ctx, cancel := context.WithTimeout(ctx, clusterSetupTimeout)
	defer cancel()
	for i := range seqs {
		sc := &seqs[i]
		spec, err := server.Spec(*sc)
		if err != nil {
			return err
		}
		def, err := co.catalog.Create(ctx, sc.Name, spec)
		if err != nil {
			if errors.Is(err, workerid.ErrConflict) {
				if cur, gerr := co.catalog.Get(ctx, sc.Name); gerr == nil {
					return fmt.Errorf("sequence %q: the cluster defines it as %s, this node as %s: %w", sc.Name, cur.Spec, spec, err)
				}
			}
			return fmt.Errorf("sequence %q: %w", sc.Name, err)
		}
		sc.Gen = def.Gen
		if sc.Source, err = co.sources(def); err != nil {
			return fmt.Errorf("sequence %q: %w", sc.Name, err)
		}
	}
	return nil
}

// registerUnsafe exports floe_coordinator_unsafe, 1 while floed runs on a
// coordinator that failed its safety check (--redis-unsafe).
func (co *coordinator) registerUnsafe(reg *prometheus.Registry) {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "floe_coordinator_unsafe",
		Help: "1 while floed runs on a coordinator that failed its safety check (--redis-unsafe): a coordinator crash or failover can then duplicate IDs.",
	}, []string{"coordinator"})
	v := 0.0
	if len(co.unsafe) > 0 {
		v = 1
	}
	g.WithLabelValues(co.backend).Set(v)
	reg.MustRegister(g)
}

// warnUnsafe logs that the coordinator is unsafe, now and every
// unsafeRepeat until ctx ends.
func (co *coordinator) warnUnsafe(ctx context.Context, log *slog.Logger) {
	if len(co.unsafe) == 0 {
		return
	}
	warn := func() {
		log.Warn("the redis server failed the safety check and --redis-unsafe is set: a redis crash, restart without AOF or failover can hand out a worker ID below IDs already issued, duplicating IDs",
			"coordinator", co.backend, "reasons", co.unsafe)
	}
	warn()
	go func() {
		t := time.NewTicker(unsafeRepeat)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				warn()
			}
		}
	}()
}
