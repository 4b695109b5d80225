package main

import (
	"cmp"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/server"
)

// Config is floed's configuration, from flags and FLOE_* environment
// variables (a flag wins over its variable).
type Config struct {
	Listen      string // binary protocol address; "" disables it
	HTTP        string // HTTP address; "" disables it
	StateDir    string
	Worker      uint64
	Datacenter  uint64
	Layout      string
	TimeOfDeath time.Time
	Policy      floe.Policy
	MaxAhead    time.Duration
	MaxWait     time.Duration
	Window      time.Duration
	Sequences   []string // name=format[:layout]
	Tokens      []string // sequence=token
	Token       string   // token of the default sequence
	MaxConns    int
	AuthTimeout time.Duration
	IdleTimeout time.Duration
	MaxHTTPIDs  int
	Shutdown    time.Duration
	LogFormat   string
	LogLevel    string
	ClockOffset time.Duration // for tests: shifts the clock
	Version     bool

	// A cluster: worker IDs claimed from etcd or Redis.
	Etcd        []string // etcd endpoints
	Redis       string   // Redis address
	Cluster     string   // the cluster's name: its key prefix
	LeaseTTL    time.Duration
	Owner       string // this node's name in the coordinator
	RedisUnsafe bool
	AdminToken  string

	// The coordinator's TLS and authentication (coordtls.go). A password
	// comes from its flag or from its file, read by ParseFlags.
	EtcdCA            string // CA of the etcd servers' certificates, PEM
	EtcdCert          string // client certificate, PEM
	EtcdKey           string // its key, PEM
	EtcdUser          string
	EtcdPassword      string
	EtcdPasswordFile  string
	RedisTLS          bool   // TLS with the system's roots unless RedisCA
	RedisCA           string // CA of the Redis server's certificate, PEM
	RedisCert         string // client certificate, PEM
	RedisKey          string // its key, PEM
	RedisUser         string // ACL user; "" is the default user
	RedisPassword     string
	RedisPasswordFile string

	etcdTLS  *tls.Config // from the flags above by ParseFlags; nil: plain
	redisTLS *tls.Config
}

// listFlag is a repeatable flag; values given in the environment are a
// comma-separated list.
type listFlag struct {
	vals    *[]string
	fromEnv bool
}

func (l *listFlag) String() string {
	if l.vals == nil {
		return ""
	}
	return strings.Join(*l.vals, ",")
}

func (l *listFlag) Set(v string) error {
	if l.fromEnv { // the first flag replaces the environment's list
		*l.vals, l.fromEnv = nil, false
	}
	*l.vals = append(*l.vals, v)
	return nil
}

// secretFlag is a string flag whose value -h never shows.
type secretFlag struct{ p *string }

func (f secretFlag) String() string { return "" }

func (f secretFlag) Set(v string) error {
	*f.p = v
	return nil
}

// timeFlag is a time of death: Unix milliseconds (noeqd's -t) or RFC 3339.
type timeFlag struct{ t *time.Time }

func (f timeFlag) String() string {
	if f.t == nil || f.t.IsZero() {
		return ""
	}
	return f.t.Format(time.RFC3339Nano)
}

func (f timeFlag) Set(v string) error {
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		*f.t = time.UnixMilli(ms)
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return fmt.Errorf("want Unix milliseconds or an RFC 3339 time, not %q", v)
	}
	*f.t = t
	return nil
}

// defaultStateDir is where the reservations live without --state:
// systemd's $STATE_DIRECTORY, else $XDG_STATE_HOME/floed, else
// ~/.local/state/floed.
func defaultStateDir() string {
	if d := os.Getenv("STATE_DIRECTORY"); d != "" {
		return strings.Split(d, ":")[0]
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "floed")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "floed")
	}
	return filepath.Join(os.TempDir(), "floed-state")
}

// ParseFlags parses args and the environment into c.
func (c *Config) ParseFlags(args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("floed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	envDur := func(name string, def time.Duration) time.Duration {
		if d, err := time.ParseDuration(getenv(name)); err == nil {
			return d
		}
		return def
	}
	envUint := func(name string) uint64 {
		v, _ := strconv.ParseUint(getenv(name), 10, 64)
		return v
	}
	envInt := func(name string) int {
		v, _ := strconv.Atoi(getenv(name))
		return v
	}
	envList := func(name string) []string {
		if v := getenv(name); v != "" {
			return strings.Split(v, ",")
		}
		return nil
	}
	// Both names of a flag share one variable: noeqd's short ones and the
	// long ones.
	str := func(p *string, short, long, envName, def, usage string) {
		*p = env(envName, def)
		if short != "" {
			fs.StringVar(p, short, *p, "same as --"+long)
		}
		fs.StringVar(p, long, *p, usage+" ($"+envName+")")
	}
	num := func(p *uint64, short, long, envName, usage string) {
		*p = envUint(envName)
		fs.Uint64Var(p, short, *p, "same as --"+long)
		fs.Uint64Var(p, long, *p, usage+" ($"+envName+")")
	}

	str(&c.Listen, "l", "listen", "FLOE_LISTEN", "0.0.0.0:4444", "binary (noeq) protocol address; empty disables it")
	str(&c.HTTP, "", "http", "FLOE_HTTP", "0.0.0.0:4445", "HTTP address (API, health, metrics); empty disables it")
	str(&c.StateDir, "", "state", "FLOE_STATE", defaultStateDir(), "directory of the reservation state file")
	num(&c.Worker, "w", "worker", "FLOE_WORKER", "worker id")
	num(&c.Datacenter, "d", "datacenter", "FLOE_DATACENTER", "datacenter id")
	str(&c.Layout, "", "layout", "FLOE_LAYOUT", "twitter", "id64 layout of the default sequence: twitter, icicle, instagram, discord or snowcast-N")
	if v := getenv("FLOE_TIME_OF_DEATH"); v != "" {
		if err := (timeFlag{&c.TimeOfDeath}).Set(v); err != nil {
			return fmt.Errorf("$FLOE_TIME_OF_DEATH: %w", err)
		}
	}
	fs.Var(timeFlag{&c.TimeOfDeath}, "t", "same as --time-of-death")
	fs.Var(timeFlag{&c.TimeOfDeath}, "time-of-death", "issue nothing at or before this time: Unix ms or RFC 3339, as noeqd's -t ($FLOE_TIME_OF_DEATH)")
	policy := env("FLOE_CLOCK_POLICY", "wait")
	fs.StringVar(&policy, "clock-policy", policy, "when the clock runs backwards: wait, fail or borrow ($FLOE_CLOCK_POLICY)")
	fs.DurationVar(&c.MaxAhead, "max-ahead", envDur("FLOE_MAX_AHEAD", time.Second), "how far policy borrow runs ahead of the clock ($FLOE_MAX_AHEAD)")
	fs.DurationVar(&c.MaxWait, "max-wait", envDur("FLOE_MAX_WAIT", 5*time.Second), "longest wait for the clock or the reservation before a request fails ($FLOE_MAX_WAIT)")
	fs.DurationVar(&c.Window, "reserve-window", envDur("FLOE_RESERVE_WINDOW", 2*time.Second), "how far ahead of the clock the durable reservation reaches ($FLOE_RESERVE_WINDOW)")
	c.Sequences = envList("FLOE_SEQUENCES")
	fs.Var(&listFlag{&c.Sequences, c.Sequences != nil}, "seq", "an extra named sequence, name=format[:layout] (format id64, id80 or id96), repeatable ($FLOE_SEQUENCES, comma-separated)")
	c.Tokens = envList("FLOE_TOKENS")
	fs.Var(&listFlag{&c.Tokens, c.Tokens != nil}, "token", "a token selecting a sequence, seq=token, repeatable ($FLOE_TOKENS, comma-separated)")
	c.Token = env("FLOE_TOKEN", getenv("NOEQ_TOKEN"))
	c.MaxConns = envInt("FLOE_MAX_CONNS")
	fs.IntVar(&c.MaxConns, "max-conns", cmp.Or(c.MaxConns, 4096), "most open binary connections ($FLOE_MAX_CONNS)")
	fs.DurationVar(&c.AuthTimeout, "auth-timeout", envDur("FLOE_AUTH_TIMEOUT", 5*time.Second), "time to complete the auth frame ($FLOE_AUTH_TIMEOUT)")
	fs.DurationVar(&c.IdleTimeout, "idle-timeout", envDur("FLOE_IDLE_TIMEOUT", 5*time.Minute), "close binary connections idle this long ($FLOE_IDLE_TIMEOUT)")
	c.MaxHTTPIDs = envInt("FLOE_MAX_HTTP_IDS")
	fs.IntVar(&c.MaxHTTPIDs, "max-http-ids", cmp.Or(c.MaxHTTPIDs, 1000), "most IDs per HTTP request ($FLOE_MAX_HTTP_IDS)")
	fs.DurationVar(&c.Shutdown, "shutdown-timeout", envDur("FLOE_SHUTDOWN_TIMEOUT", 10*time.Second), "time a graceful shutdown waits for in-flight replies ($FLOE_SHUTDOWN_TIMEOUT)")
	str(&c.LogFormat, "", "log-format", "FLOE_LOG_FORMAT", "text", "log format: text or json")
	str(&c.LogLevel, "", "log-level", "FLOE_LOG_LEVEL", "info", "log level: debug, info, warn or error")
	fs.DurationVar(&c.ClockOffset, "clock-offset", envDur("FLOE_CLOCK_OFFSET", 0), "for tests only: shift the clock by this much, e.g. -1h ($FLOE_CLOCK_OFFSET)")
	fs.BoolVar(&c.Version, "version", false, "print the version and exit")
	c.Etcd = envList("FLOE_ETCD")
	fs.Func("etcd", "claim worker IDs from this etcd cluster: host:port,... ($FLOE_ETCD)", func(v string) error {
		c.Etcd = strings.Split(v, ",")
		return nil
	})
	str(&c.Redis, "", "redis", "FLOE_REDIS", "", "claim worker IDs from this Redis server, host:port (it must run AOF with appendfsync always, without replicas)")
	str(&c.Cluster, "", "cluster", "FLOE_CLUSTER", "default", "the cluster's name: nodes with the same coordinator and name share worker IDs and sequences")
	fs.DurationVar(&c.LeaseTTL, "lease-ttl", envDur("FLOE_LEASE_TTL", 10*time.Second), "time to live of a claimed worker ID: how soon a dead node's ID is claimed again ($FLOE_LEASE_TTL)")
	host, _ := os.Hostname()
	str(&c.Owner, "", "owner", "FLOE_OWNER", host, "this node's name in the coordinator; a restarted node prefers the worker ID its name held last")
	c.RedisUnsafe = getenv("FLOE_REDIS_UNSAFE") == "true" || getenv("FLOE_REDIS_UNSAFE") == "1"
	fs.BoolVar(&c.RedisUnsafe, "redis-unsafe", c.RedisUnsafe, "run on a Redis server that fails the safety check (no AOF, appendfsync not always, replicas), accepting duplicate IDs after its crash or failover ($FLOE_REDIS_UNSAFE)")
	str(&c.AdminToken, "", "admin-token", "FLOE_ADMIN_TOKEN", "", "bearer token of the admin API (/v1/admin/); without one only loopback clients may use it")

	// The coordinator's TLS and authentication.
	str(&c.EtcdCA, "", "etcd-ca", "FLOE_ETCD_CA", "", "connect to etcd over TLS, trusting the CA certificates in this PEM file (default: the system's)")
	str(&c.EtcdCert, "", "etcd-cert", "FLOE_ETCD_CERT", "", "connect to etcd over TLS with this client certificate, PEM (with --etcd-key)")
	str(&c.EtcdKey, "", "etcd-key", "FLOE_ETCD_KEY", "", "the key of --etcd-cert, PEM")
	str(&c.EtcdUser, "", "etcd-user", "FLOE_ETCD_USER", "", "authenticate to etcd as this user (with --etcd-password or --etcd-password-file); it needs read and write on the key prefix /floe/")
	c.EtcdPassword = getenv("FLOE_ETCD_PASSWORD")
	fs.Var(secretFlag{&c.EtcdPassword}, "etcd-password", "the `password` of --etcd-user; prefer --etcd-password-file, since arguments show in ps ($FLOE_ETCD_PASSWORD)")
	str(&c.EtcdPasswordFile, "", "etcd-password-file", "FLOE_ETCD_PASSWORD_FILE", "", "read the password of --etcd-user from this file (a trailing newline is dropped)")
	c.RedisTLS = getenv("FLOE_REDIS_TLS") == "true" || getenv("FLOE_REDIS_TLS") == "1"
	fs.BoolVar(&c.RedisTLS, "redis-tls", c.RedisTLS, "connect to Redis over TLS, trusting the system's CAs (--redis-ca, --redis-cert and --redis-key imply TLS) ($FLOE_REDIS_TLS)")
	str(&c.RedisCA, "", "redis-ca", "FLOE_REDIS_CA", "", "connect to Redis over TLS, trusting the CA certificates in this PEM file")
	str(&c.RedisCert, "", "redis-cert", "FLOE_REDIS_CERT", "", "connect to Redis over TLS with this client certificate, PEM (with --redis-key)")
	str(&c.RedisKey, "", "redis-key", "FLOE_REDIS_KEY", "", "the key of --redis-cert, PEM")
	str(&c.RedisUser, "", "redis-user", "FLOE_REDIS_USER", "", "authenticate to Redis as this ACL user (with --redis-password or --redis-password-file)")
	c.RedisPassword = getenv("FLOE_REDIS_PASSWORD")
	fs.Var(secretFlag{&c.RedisPassword}, "redis-password", "the `password` of --redis-user, or without it of the default user (requirepass); prefer --redis-password-file, since arguments show in ps ($FLOE_REDIS_PASSWORD)")
	str(&c.RedisPasswordFile, "", "redis-password-file", "FLOE_REDIS_PASSWORD_FILE", "", "read the Redis password from this file (a trailing newline is dropped)")

	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	p, err := floe.ParsePolicy(policy)
	if err != nil || p == floe.TickTock {
		return fmt.Errorf("--clock-policy %q: want wait, fail or borrow", policy)
	}
	c.Policy = p
	if err := c.validCluster(); err != nil {
		return err
	}
	return c.loadCoordSecurity()
}

// sequences returns the server's sequences: "default" (id64 with the
// configured layout, datacenter and worker) first, then the --seq ones.
// id80 sequences use partition datacenter<<8|worker and id96 sequences
// node (datacenter<<16|worker)+1, since id96 keeps node 0 for random nodes.
func (c *Config) sequences() ([]server.SequenceConfig, error) {
	layout, err := id64.LayoutByName(c.Layout)
	if err != nil {
		return nil, fmt.Errorf("--layout: %w", err)
	}
	seqs := []server.SequenceConfig{{Name: "default", Format: server.Format64, Layout: layout, Datacenter: c.Datacenter, Worker: c.Worker}}
	if c.Token != "" {
		seqs[0].Tokens = []string{c.Token}
	}
	for _, def := range c.Sequences {
		name, spec, ok := strings.Cut(def, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("--seq %q: want name=format[:layout]", def)
		}
		format, layoutName, _ := strings.Cut(spec, ":")
		sc := server.SequenceConfig{Name: name, Format: server.Format(format)}
		switch sc.Format {
		case server.Format64:
			if sc.Layout, err = id64.LayoutByName(layoutName); err != nil {
				return nil, fmt.Errorf("--seq %q: %w", def, err)
			}
			sc.Datacenter, sc.Worker = c.Datacenter, c.Worker
		case server.Format80:
			if c.Datacenter > 255 || c.Worker > 255 {
				return nil, fmt.Errorf("--seq %q: id80 partitions are datacenter<<8|worker, each 0..255", def)
			}
			sc.Node = c.Datacenter<<8 | c.Worker
		case server.Format96:
			if c.Datacenter > 0xffff || c.Worker > 0xffff {
				return nil, fmt.Errorf("--seq %q: id96 nodes are (datacenter<<16|worker)+1, each 0..65535", def)
			}
			sc.Node = (c.Datacenter<<16 | c.Worker) + 1
		default:
			return nil, fmt.Errorf("--seq %q: format %q: want id64, id80 or id96", def, format)
		}
		if layoutName != "" && sc.Format != server.Format64 {
			return nil, fmt.Errorf("--seq %q: only id64 takes a layout", def)
		}
		seqs = append(seqs, sc)
	}
	for _, t := range c.Tokens {
		name, token, ok := strings.Cut(t, "=")
		if !ok || token == "" {
			return nil, fmt.Errorf("--token: want seq=token")
		}
		found := false
		for i := range seqs {
			if seqs[i].Name == name {
				seqs[i].Tokens = append(seqs[i].Tokens, token)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("--token: unknown sequence %q", name)
		}
	}
	return seqs, nil
}

var errNoListener = errors.New("both --listen and --http are empty: nothing to serve")
