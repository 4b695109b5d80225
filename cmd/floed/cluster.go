package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	goredis "github.com/redis/go-redis/v9"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/server"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/etcd"
	"github.com/floeid/floe/workerid/kube"
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
	backend string // "etcd", "redis" or "kubernetes"
	catalog workerid.Catalog
	sources func(workerid.Sequence) (workerid.Source, error)
	unsafe  []string // the Redis server's failed safety conditions at the start, with --redis-unsafe
	lenient bool     // --redis-unsafe
	close   func() error

	mu   sync.Mutex
	srcs map[string]*redis.Source // guarded by mu: the latest Redis Source of each sequence
}

// unsafeNow returns the Redis server's failed safety conditions as last
// checked: by the Sources, which check again while they run, or at the
// start before there is one. Without --redis-unsafe a Source whose server
// fails them ends its leases and claims nothing (not ready, the reason in
// /readyz); with it, it runs on.
func (co *coordinator) unsafeNow() []string {
	co.mu.Lock()
	defer co.mu.Unlock()
	if len(co.srcs) == 0 {
		return co.unsafe
	}
	var reasons []string
	for _, src := range co.srcs {
		for _, r := range src.Unsafe() {
			if !slices.Contains(reasons, r) {
				reasons = append(reasons, r)
			}
		}
	}
	return reasons
}

// clustered reports whether the configuration names a coordinator.
func (c *Config) clustered() bool { return len(c.Etcd) > 0 || c.Redis != "" || c.Kube }

// coordinators returns the flags of the coordinators the configuration
// names.
func (c *Config) coordinators() []string {
	var names []string
	if len(c.Etcd) > 0 {
		names = append(names, "--etcd")
	}
	if c.Redis != "" {
		names = append(names, "--redis")
	}
	if c.Kube {
		names = append(names, "--kube")
	}
	return names
}

// validCluster checks the cluster flags.
func (c *Config) validCluster() error {
	switch {
	case !c.clustered():
		if c.RedisUnsafe {
			return errors.New("--redis-unsafe without --redis")
		}
		return nil
	case len(c.coordinators()) > 1:
		return fmt.Errorf("%s: choose one coordinator", strings.Join(c.coordinators(), " and "))
	case c.Worker != 0 || c.Datacenter != 0:
		return errors.New("--worker and --datacenter are for a single node: in a cluster (--etcd, --redis or --kube) the worker ID is claimed")
	case !c.TimeOfDeath.IsZero():
		return errors.New("--time-of-death is for a single node: in a cluster the reservations live in the coordinator")
	case c.RequireState:
		return errors.New("--require-state is for a single node: in a cluster the reservations live in the coordinator")
	case c.RedisUnsafe && c.Redis == "":
		return errors.New("--redis-unsafe without --redis")
	case c.Kube && !kube.ValidCluster(c.Cluster):
		return fmt.Errorf("--cluster %q with --kube: the cluster's name is part of its Lease objects' names, so it must be 1 to 40 bytes of [a-z0-9-], beginning and ending with a letter or digit", c.Cluster)
	}
	return nil
}

// connect opens the coordinator the configuration names.
func (c *Config) connect(ctx context.Context, log *slog.Logger, clock floe.Clock) (*coordinator, error) {
	ctx, cancel := context.WithTimeout(ctx, clusterSetupTimeout)
	defer cancel()
	switch {
	case len(c.Etcd) > 0:
		return c.connectEtcd(ctx, log, clock)
	case c.Kube:
		return c.connectKube(ctx, log, clock)
	}
	return c.connectRedis(ctx, log, clock)
}

func (c *Config) connectEtcd(ctx context.Context, log *slog.Logger, clock floe.Clock) (*coordinator, error) {
	tlsOn := c.etcdTLS != nil || slices.ContainsFunc(c.Etcd, func(ep string) bool { return strings.HasPrefix(ep, "https://") })
	log.Info("connecting to the coordinator", "coordinator", "etcd", "endpoints", c.Etcd, "tls", tlsOn, "user", c.EtcdUser)
	if err := c.probeEtcd(ctx, log); err != nil {
		return nil, err
	}
	eps := strings.Join(c.Etcd, ",")
	// ClientConfig: requests route around a member that stops answering.
	cli, err := clientv3.New(etcd.ClientConfig(clientv3.Config{
		Endpoints:   c.Etcd,
		DialTimeout: 5 * time.Second,
		TLS:         c.etcdTLS,
		Username:    c.EtcdUser,
		Password:    c.EtcdPassword,
		// The Source logs what an operator acts on (claims, losses); the
		// client's own retry chatter would drown it.
		Logger: zap.NewNop(),
	}))
	if err != nil {
		return nil, c.etcdErr(eps, err)
	}
	// Fail the start now, with a clear error, rather than at the first
	// claim. The key is under the cluster's prefix, which a user limited
	// to /floe/ may read.
	prefix := "/floe/v1/" + c.Cluster + "/"
	// In attempts of a second: a member that does not answer costs one.
	err = etcd.Attempts(ctx, time.Second, func(ctx context.Context) error {
		_, err := cli.Get(ctx, prefix, clientv3.WithCountOnly())
		return err
	})
	if err != nil {
		cli.Close()
		return nil, c.etcdErr(eps, err)
	}
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
	log.Info("connecting to the coordinator", "coordinator", "redis", "endpoints", c.Redis, "tls", c.redisTLS != nil, "user", c.RedisUser)
	if err := redis.Probe(ctx, c.Redis, c.redisTLS); err != nil {
		return nil, c.probeHint("redis", c.redisTLS, err)
	}
	rdb := goredis.NewClient(&goredis.Options{
		Addr:        c.Redis,
		DialTimeout: 5 * time.Second,
		TLSConfig:   c.redisTLS,
		Username:    c.RedisUser,
		Password:    c.RedisPassword,
		// One request at a time is the lease's pace; a retry would
		// only blur whether a reservation landed.
		MaxRetries: -1,
		// A request ends at its context's deadline, the lease's: one
		// sent to a server that hangs gives its connection back then.
		ContextTimeoutEnabled: true,
	})
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, c.redisErr(err)
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
	co := &coordinator{backend: "redis", catalog: catalog, unsafe: unsafe, lenient: c.RedisUnsafe, close: rdb.Close}
	co.sources = func(seq workerid.Sequence) (workerid.Source, error) {
		ids, err := workerIDs(seq)
		if err != nil {
			return nil, err
		}
		sctx, cancel := context.WithTimeout(context.Background(), clusterSetupTimeout)
		defer cancel()
		src, err := catalog.Source(sctx, seq, redis.Config{IDs: ids, TTL: c.LeaseTTL, Owner: c.Owner, Clock: clock,
			Unsafe: c.RedisUnsafe, Logger: log.With("seq", seq.Name, "coordinator", "redis")})
		if err != nil {
			return nil, err
		}
		co.mu.Lock()
		if co.srcs == nil {
			co.srcs = make(map[string]*redis.Source)
		}
		co.srcs[seq.Name] = src
		co.mu.Unlock()
		return src, nil
	}
	return co, nil
}

// connectKube reaches the Kubernetes API with the pod's service account or
// --kubeconfig, checks that the identity may use Leases in the namespace,
// and opens the catalog of the cluster's sequences there.
func (c *Config) connectKube(ctx context.Context, log *slog.Logger, clock floe.Clock) (*coordinator, error) {
	rc, ns, err := kube.RESTConfig(c.Kubeconfig)
	if err != nil {
		if c.Kubeconfig == "" {
			return nil, fmt.Errorf("--kube: %w", err)
		}
		return nil, fmt.Errorf("--kubeconfig: %w", err)
	}
	if c.KubeNamespace != "" {
		ns = c.KubeNamespace
	}
	log.Info("connecting to the coordinator", "coordinator", "kubernetes", "server", rc.Host, "namespace", ns, "kubeconfig", c.Kubeconfig)
	if err := kube.Check(ctx, rc, ns); err != nil {
		if errors.Is(err, kube.ErrUnauthorized) {
			// Which credentials: the pod's token file, or the kubeconfig's user.
			creds := "the service account token " + rc.BearerTokenFile
			if c.Kubeconfig != "" {
				creds = "the credentials of the kubeconfig " + c.Kubeconfig
			}
			err = fmt.Errorf("%w (%s)", err, creds)
		}
		return nil, fmt.Errorf("kubernetes %s: %w", rc.Host, err)
	}
	cli, err := kube.NewClient(rc)
	if err != nil {
		return nil, err
	}
	catalog, err := kube.NewCatalog(cli, ns, c.Cluster)
	if err != nil {
		return nil, err
	}
	co := &coordinator{backend: "kubernetes", catalog: catalog, close: func() error { return nil }}
	co.sources = func(seq workerid.Sequence) (workerid.Source, error) {
		ids, err := workerIDs(seq)
		if err != nil {
			return nil, err
		}
		return catalog.Source(seq, kube.Config{IDs: ids, TTL: c.LeaseTTL, Owner: c.Owner, Clock: clock,
			Logger: log.With("seq", seq.Name, "coordinator", "kubernetes")})
	}
	return co, nil
}

// probeEtcd probes every endpoint at once (etcd.ProbeAll). It fails only
// when none takes the connection, with every endpoint's cause; the ones
// that fail while another works are logged, since the client works
// without them.
func (c *Config) probeEtcd(ctx context.Context, log *slog.Logger) error {
	var failed []error
	for _, err := range etcd.ProbeAll(ctx, c.Etcd, c.etcdTLS) {
		if err != nil {
			failed = append(failed, c.probeHint("etcd", c.etcdTLS, err))
		}
	}
	if len(failed) == len(c.Etcd) {
		return errors.Join(failed...)
	}
	for _, err := range failed {
		log.Warn("an etcd endpoint is out of reach; going on with the others", "coordinator", "etcd", "err", err)
	}
	return nil
}

// probeHint adds to the error of a coordinator's probe the flags that
// fix its cause. coord is "etcd" or "redis", the flags' prefix; cfg is
// the TLS configuration of the flags.
func (c *Config) probeHint(coord string, cfg *tls.Config, err error) error {
	tlsOn, tlsOff := "set --redis-tls or --redis-ca", "drop --redis-tls, --redis-ca, --redis-cert and --redis-key"
	if coord == "etcd" {
		tlsOn, tlsOff = "set --etcd-ca, or use an https:// endpoint", "drop --etcd-ca, --etcd-cert and --etcd-key, or use an http:// endpoint"
	}
	certHint := fmt.Sprintf("it may want a client certificate: set --%s-cert and --%s-key", coord, coord)
	if cfg != nil && len(cfg.Certificates) > 0 {
		certHint = fmt.Sprintf("check --%s-cert and --%s-key: the server must trust the CA that signed the certificate", coord, coord)
	}
	var hint string
	switch {
	case errors.Is(err, etcd.ErrNotTrusted) || errors.Is(err, redis.ErrNotTrusted):
		hint = fmt.Sprintf("set --%s-ca to the CA that signed it", coord)
		if cfg != nil && cfg.RootCAs != nil {
			hint = fmt.Sprintf("is --%s-ca the CA that signed it?", coord)
		}
	case errors.Is(err, etcd.ErrCertRefused) || errors.Is(err, redis.ErrCertRefused):
		hint = certHint
	case errors.Is(err, etcd.ErrTLSRequired) || errors.Is(err, redis.ErrTLSRequired):
		hint = "if so, " + tlsOn
	case errors.Is(err, etcd.ErrNotTLS) || errors.Is(err, redis.ErrNotTLS):
		hint = "if so, " + tlsOff
	case cfg != nil && (errors.Is(err, etcd.ErrNoReply) || errors.Is(err, redis.ErrNoReply)):
		hint = "to connect without TLS: " + tlsOff
	default:
		return err
	}
	return fmt.Errorf("%w (%s)", err, hint)
}

// etcdErr describes an error of the etcd client at the start: a refused
// login or permission names the user and the flags to check.
func (c *Config) etcdErr(eps string, err error) error {
	switch {
	case errors.Is(err, rpctypes.ErrAuthFailed):
		return fmt.Errorf("etcd %s: authentication as user %q failed: %w (check --etcd-user and --etcd-password)", eps, c.EtcdUser, err)
	case errors.Is(err, rpctypes.ErrUserEmpty),
		errors.Is(err, rpctypes.ErrPermissionDenied) && c.EtcdUser == "":
		return fmt.Errorf("etcd %s: reading /floe/v1/%s/ without a user: %w (the server has authentication on: set --etcd-user and --etcd-password, or give the common name of --etcd-cert a role with readwrite on the prefix /floe/)", eps, c.Cluster, err)
	case errors.Is(err, rpctypes.ErrPermissionDenied):
		return fmt.Errorf("etcd %s: user %q may not read /floe/v1/%s/: %w (grant it a role with readwrite on the prefix /floe/)", eps, c.EtcdUser, c.Cluster, err)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("etcd %s: no reply within %v: %w", eps, clusterSetupTimeout, err)
	}
	return fmt.Errorf("etcd %s: %w", eps, err)
}

// redisErr describes an error of the Redis client at the start: a refused
// login names the user and the flags to check.
func (c *Config) redisErr(err error) error {
	user := "the default user"
	if c.RedisUser != "" {
		user = fmt.Sprintf("user %q", c.RedisUser)
	}
	switch msg := err.Error(); {
	case strings.Contains(msg, "WRONGPASS"):
		return fmt.Errorf("redis %s: authentication as %s failed: %w (check --redis-user and --redis-password)", c.Redis, user, err)
	case strings.Contains(msg, "NOAUTH"):
		return fmt.Errorf("redis %s: the server wants a password: %w (set --redis-password, and --redis-user for an ACL user)", c.Redis, err)
	case strings.Contains(msg, "NOPERM"):
		return fmt.Errorf("redis %s: %s lacks a permission: %w", c.Redis, user, err)
	}
	return fmt.Errorf("redis %s: %w", c.Redis, err)
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
		sc.Gen, sc.TokenHashes = def.Gen, def.Tokens
		if sc.Source, err = co.sources(def); err != nil {
			return fmt.Errorf("sequence %q: %w", sc.Name, err)
		}
	}
	return nil
}

// registerUnsafe exports floe_coordinator_unsafe, 1 while the coordinator
// fails its safety check, as last checked (see unsafeNow).
func (co *coordinator) registerUnsafe(reg *prometheus.Registry) {
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "floe_coordinator_unsafe",
		Help:        "1 while the coordinator fails its safety check, at the start or since (a replica attached, AOF turned off): without --redis-unsafe its sequences stop issuing; with it, a coordinator crash or failover can duplicate IDs.",
		ConstLabels: prometheus.Labels{"coordinator": co.backend},
	}, func() float64 {
		if len(co.unsafeNow()) > 0 {
			return 1
		}
		return 0
	}))
}

// warnUnsafe logs that the coordinator is unsafe, now and every
// unsafeRepeat until ctx ends, with --redis-unsafe: whenever the server
// fails the safety check, at the start or later.
func (co *coordinator) warnUnsafe(ctx context.Context, log *slog.Logger) {
	if !co.lenient {
		return
	}
	warn := func() {
		if reasons := co.unsafeNow(); len(reasons) > 0 {
			log.Warn("the redis server failed the safety check and --redis-unsafe is set: a redis crash, restart without AOF or failover can hand out a worker ID below IDs already issued, duplicating IDs",
				"coordinator", co.backend, "reasons", reasons)
		}
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
