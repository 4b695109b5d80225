package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/server"
	"github.com/floeid/floe/internal/statefile"
	"github.com/floeid/floe/workerid"
)

// Config is floed's configuration, from flags and FLOE_* environment
// variables (a flag wins over its variable).
type Config struct {
	Listen      string // binary protocol address; "" disables it
	HTTP        string // HTTP address; "" disables it
	GRPC        string // gRPC address; "" disables it
	StateDir    string
	Worker      uint64
	Datacenter  uint64
	Layout      string
	TimeOfDeath time.Time
	// RequireState refuses a start without a state file, unless
	// TimeOfDeath says above which time to start.
	RequireState bool
	// FirstStart is what a start does without a record of a sequence in
	// the state file: "warn" (the default), "refuse" (RequireState sets
	// it) or "wait" (firstStartFloor).
	FirstStart  string
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
	LogLevel    slog.Level
	ClockOffset time.Duration // for tests: shifts the clock
	Version     bool

	// A cluster: worker IDs claimed from etcd, Redis or the Kubernetes API.
	Etcd  []string // etcd endpoints
	Redis string   // Redis address
	Kube  bool     // the Kubernetes API
	// Kubeconfig reaches the Kubernetes API from outside a pod; empty:
	// the pod's service account.
	Kubeconfig    string
	KubeNamespace string // the Lease objects' namespace; empty: the pod's or the kubeconfig's
	Cluster       string // the cluster's name: its key prefix
	LeaseTTL      time.Duration
	FirstClaim    time.Duration // how long the start claims each sequence's first worker ID again
	Owner         string        // this node's name in the coordinator
	RedisUnsafe   bool
	AdminToken    string
	// AdminLoopback serves the admin API to loopback clients without
	// the admin token.
	AdminLoopback bool

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

	// TLS on floed's own listeners (servetls.go).
	TLSCert     string        // certificate chain, PEM; with TLSKey, every listener serves TLS
	TLSKey      string        // its key, PEM
	TLSClientCA string        // CAs of the client certificates required (mutual TLS), PEM
	TLSReload   time.Duration // how often the files are checked for a change

	etcdTLS  *tls.Config // from the flags above by ParseFlags; nil: plain
	redisTLS *tls.Config

	ignoredEnv []string // the otherVars set, which Run logs at debug level
}

// defaultStateDir is where the reservations live without --state:
// systemd's $STATE_DIRECTORY, else $XDG_STATE_HOME/floed, else
// ~/.local/state/floed ("floe new" uses the same, statefile.DefaultDir).
func defaultStateDir(lookup func(string) (string, bool)) string {
	return statefile.DefaultDir(lookup)
}

// envVars names the FLOE_* variable of each flag that has one. Before the
// command line is parsed, each variable that is set is given to its flag
// (fs.Set), so that it is parsed by the flag's own code, and a flag on the
// command line then wins. A malformed variable is an error even when its
// flag is also given. A list flag (listFlag) takes its variable as a
// comma-separated list, which the first such flag replaces.
//
// A variable that is set is its flag given that value, even when empty:
// FLOE_LISTEN= turns the listener off as --listen "" does, and FLOE_WORKER=
// is an error as --worker "" is. Only an unset variable leaves the default,
// so a variable that a template left empty never passes for worker 0.
//
// A new flag with a variable needs its definition in flagSet and one entry
// here; "floed -h" lists the variable after the flag's usage.
var envVars = []struct{ flag, name string }{
	{"listen", "FLOE_LISTEN"},
	{"http", "FLOE_HTTP"},
	{"grpc", "FLOE_GRPC"},
	{"state", "FLOE_STATE"},
	{"worker", "FLOE_WORKER"},
	{"datacenter", "FLOE_DATACENTER"},
	{"layout", "FLOE_LAYOUT"},
	{"time-of-death", "FLOE_TIME_OF_DEATH"},
	{"require-state", "FLOE_REQUIRE_STATE"},
	{"first-start", "FLOE_FIRST_START"},
	{"clock-policy", "FLOE_CLOCK_POLICY"},
	{"max-ahead", "FLOE_MAX_AHEAD"},
	{"max-wait", "FLOE_MAX_WAIT"},
	{"reserve-window", "FLOE_RESERVE_WINDOW"},
	{"seq", "FLOE_SEQUENCES"},
	{"token", "FLOE_TOKENS"},
	{"max-conns", "FLOE_MAX_CONNS"},
	{"auth-timeout", "FLOE_AUTH_TIMEOUT"},
	{"idle-timeout", "FLOE_IDLE_TIMEOUT"},
	{"max-http-ids", "FLOE_MAX_HTTP_IDS"},
	{"shutdown-timeout", "FLOE_SHUTDOWN_TIMEOUT"},
	{"log-format", "FLOE_LOG_FORMAT"},
	{"log-level", "FLOE_LOG_LEVEL"},
	{"clock-offset", "FLOE_CLOCK_OFFSET"},
	{"etcd", "FLOE_ETCD"},
	{"redis", "FLOE_REDIS"},
	{"kube", "FLOE_KUBE"},
	{"kubeconfig", "FLOE_KUBECONFIG"},
	{"kube-namespace", "FLOE_KUBE_NAMESPACE"},
	{"cluster", "FLOE_CLUSTER"},
	{"lease-ttl", "FLOE_LEASE_TTL"},
	{"first-claim-timeout", "FLOE_FIRST_CLAIM_TIMEOUT"},
	{"owner", "FLOE_OWNER"},
	{"redis-unsafe", "FLOE_REDIS_UNSAFE"},
	{"admin-token", "FLOE_ADMIN_TOKEN"},
	{"admin-loopback", "FLOE_ADMIN_LOOPBACK"},
	{"etcd-ca", "FLOE_ETCD_CA"},
	{"etcd-cert", "FLOE_ETCD_CERT"},
	{"etcd-key", "FLOE_ETCD_KEY"},
	{"etcd-user", "FLOE_ETCD_USER"},
	{"etcd-password", "FLOE_ETCD_PASSWORD"},
	{"etcd-password-file", "FLOE_ETCD_PASSWORD_FILE"},
	{"redis-tls", "FLOE_REDIS_TLS"},
	{"redis-ca", "FLOE_REDIS_CA"},
	{"redis-cert", "FLOE_REDIS_CERT"},
	{"redis-key", "FLOE_REDIS_KEY"},
	{"redis-user", "FLOE_REDIS_USER"},
	{"redis-password", "FLOE_REDIS_PASSWORD"},
	{"redis-password-file", "FLOE_REDIS_PASSWORD_FILE"},
	{"tls-cert", "FLOE_TLS_CERT"},
	{"tls-key", "FLOE_TLS_KEY"},
	{"tls-client-ca", "FLOE_TLS_CLIENT_CA"},
	{"tls-reload-interval", "FLOE_TLS_RELOAD_INTERVAL"},
}

// tokenVars hold the default sequence's token, which has no flag: floe's
// name, then noeqd's (tokenFromEnv).
var tokenVars = []string{"FLOE_TOKEN", "NOEQ_TOKEN"}

// tokenFromEnv reads the default sequence's token from tokenVars. Each is
// checked when it holds a token, and FLOE_TOKEN wins over NOEQ_TOKEN.
// NOEQ_TOKEN set but empty means no token, as in noeqd, so that floed
// starts where noeqd starts. FLOE_TOKEN set but empty never hides
// NOEQ_TOKEN: beside a NOEQ_TOKEN that holds a token it is passed over,
// and alone it is an error rather than a silent "no token".
func (c *Config) tokenFromEnv(lookup func(string) (string, bool)) error {
	floeTok, floeSet := lookup("FLOE_TOKEN")
	noeqTok, _ := lookup("NOEQ_TOKEN")
	if noeqTok != "" {
		if err := checkToken(noeqTok); err != nil {
			return fmt.Errorf("$NOEQ_TOKEN: %w", err)
		}
		c.Token = noeqTok
	}
	switch {
	case floeTok != "":
		if err := checkToken(floeTok); err != nil {
			return fmt.Errorf("$FLOE_TOKEN: %w", err)
		}
		c.Token = floeTok
	case floeSet && noeqTok == "":
		return fmt.Errorf("$FLOE_TOKEN: %w: unset it to run without a token (an empty $NOEQ_TOKEN means none, as in noeqd)", checkToken(""))
	}
	return nil
}

// ParseFlags parses args and the environment, read with lookup (as
// os.LookupEnv does), into c; see envVars for how a variable and its flag
// combine.
func (c *Config) ParseFlags(args []string, lookup func(string) (string, bool), stderr io.Writer) error {
	fs := c.flagSet(lookup, stderr)
	fromEnv := make(map[string]string) // flag -> the variable that set it
	for _, v := range envVars {
		if err := setFromEnv(fs, v.flag, v.name, lookup); err != nil {
			return err
		}
		if _, ok := lookup(v.name); ok {
			fromEnv[v.flag] = v.name
		}
	}
	if err := c.tokenFromEnv(lookup); err != nil {
		return err
	}
	// The flag package would print a parse error and then every flag;
	// the caller prints the error once, and only -h prints the flags.
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.Usage()
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if err := c.validSingle(fs, fromEnv, args); err != nil {
		return err
	}
	if err := c.validFirstStart(); err != nil {
		return err
	}
	// The floe CLI reads $FLOE_REDIS_PASSWORD too ("floe redis init"): a
	// shell that exports it for the CLI still starts a floed without
	// --redis, which ignores it. The flag without --redis stays an error.
	if c.Redis == "" && fromEnv["redis-password"] != "" && !onCommandLine(args, "redis-password") {
		c.RedisPassword = ""
		c.ignoredEnv = append(c.ignoredEnv, fromEnv["redis-password"])
	}
	if err := c.validCluster(); err != nil {
		return err
	}
	if err := c.loadCoordSecurity(); err != nil {
		return err
	}
	if err := c.checkTLS(); err != nil {
		return err
	}
	_, err := c.serverConfig()
	return err
}

// serverConfig returns the server's configuration, checked as server.New
// checks it, but without its store, coordinator, clock, logger and
// registry, which Run adds. ParseFlags calls it, so that a configuration
// the server would refuse (--worker 32 in the Twitter layout, one token
// for two sequences) is a usage error, before floed binds a port or
// touches its state.
func (c *Config) serverConfig() (server.Config, error) {
	if c.Listen == "" && c.HTTP == "" && c.GRPC == "" {
		return server.Config{}, errNoListener
	}
	seqs, err := c.sequences()
	if err != nil {
		return server.Config{}, err
	}
	if !c.clustered() {
		for _, sc := range seqs {
			if _, err := server.StaticID(sc); err != nil {
				return server.Config{}, fmt.Errorf("--worker %d, --datacenter %d: %w", c.Worker, c.Datacenter, err)
			}
		}
	}
	scfg := server.Config{
		Sequences:    seqs,
		Policy:       c.Policy,
		MaxAhead:     c.MaxAhead,
		MaxWait:      c.MaxWait,
		Window:       c.Window,
		Floor:        c.TimeOfDeath,
		MaxConns:     c.MaxConns,
		AuthTimeout:  c.AuthTimeout,
		IdleTimeout:  c.IdleTimeout,
		MaxHTTPCount: c.MaxHTTPIDs,
		AdminToken:   c.AdminToken,
	}
	if err := server.Check(scfg); err != nil {
		return server.Config{}, err
	}
	return scfg, nil
}

// clusterFlags are the flags that only a cluster node (--etcd, --redis or --kube)
// reads; the coordinators' TLS and authentication flags are checked by
// loadCoordSecurity, --redis-unsafe by validCluster.
var clusterFlags = []string{"cluster", "lease-ttl", "first-claim-timeout", "owner"}

// validSingle refuses a cluster flag without a coordinator: "floed --cluster
// ids" alone would otherwise run a single worker-0 node. fromEnv maps the
// flags set by a variable to its name, for the error, which names the flag
// when args give it.
func (c *Config) validSingle(fs *flag.FlagSet, fromEnv map[string]string, args []string) error {
	if c.clustered() {
		return nil
	}
	given := make(map[string]bool)
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, name := range clusterFlags {
		if !given[name] {
			continue
		}
		what := "--" + name
		if v, ok := fromEnv[name]; ok && !onCommandLine(args, name) {
			what = "$" + v + " (--" + name + ")"
		}
		return fmt.Errorf("%s without --etcd, --redis or --kube: it is for a cluster node, which claims its worker ID from etcd, Redis or the Kubernetes API; "+
			"give --etcd, --redis or --kube (or $FLOE_ETCD, $FLOE_REDIS, $FLOE_KUBE) too, or drop it to run a single node", what)
	}
	return nil
}

// validFirstStart folds --require-state into --first-start: refuse.
func (c *Config) validFirstStart() error {
	switch {
	case c.clustered() && c.FirstStart != "warn":
		return errors.New("--first-start is for a single node: in a cluster the reservations live in the coordinator")
	case c.RequireState && c.FirstStart == "wait":
		return errors.New("--require-state and --first-start wait: choose one (--require-state is --first-start refuse)")
	case c.RequireState:
		c.FirstStart = "refuse"
	}
	return nil
}

// onCommandLine reports whether args, which parsed, give the flag name.
func onCommandLine(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// setFromEnv gives the variable name, when set, to its flag.
func setFromEnv(fs *flag.FlagSet, flagName, name string, lookup func(string) (string, bool)) error {
	v, ok := lookup(name)
	if !ok {
		return nil
	}
	f := fs.Lookup(flagName)
	if f == nil {
		return fmt.Errorf("$%s: no flag --%s", name, flagName)
	}
	var err error
	list, isList := f.Value.(*listFlag)
	if isList {
		err = list.setEnv(v)
	} else {
		err = fs.Set(flagName, v)
	}
	if err == nil {
		return nil
	}
	if isList && list.secret {
		return fmt.Errorf("$%s (--%s): %w", name, flagName, err)
	}
	return fmt.Errorf("$%s=%q (--%s): %w", name, v, flagName, err)
}

// flagSet defines floed's flags on c, each with its default, and names
// their variables in their usage.
func (c *Config) flagSet(lookup func(string) (string, bool), stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("floed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, "usage: floed [flags]")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Serves unique, time-sorted IDs over noeqd's binary protocol, HTTP and gRPC. Each flag's")
		fmt.Fprintln(w, "FLOE_* variable, named after it, is read as the flag is; a flag given wins over it.")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "flags:")
		fs.PrintDefaults()
		fmt.Fprintln(w)
		fmt.Fprintln(w, "environment without a flag:")
		fmt.Fprintln(w, "  FLOE_TOKEN")
		fmt.Fprintln(w, "    \tthe token of the default sequence, 1 to 255 bytes: binary clients must send it, HTTP")
		fmt.Fprintln(w, "    \trequests for the sequence must carry it as a bearer token (--token gives named sequences theirs)")
		fmt.Fprintln(w, "  NOEQ_TOKEN")
		fmt.Fprintln(w, "    \tnoeqd's name for FLOE_TOKEN, read when FLOE_TOKEN holds no token; set but empty, it means no token, as in noeqd")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Any other FLOE_* variable stops floed (exit status 2) naming the closest known one, so that")
		fmt.Fprintln(w, "a misspelling is never ignored; floed ignores only those of the floe CLI and floe's tests:")
		fmt.Fprintln(w, "  "+strings.Join(otherVars, ", "))
	}
	// alias gives a flag noeqd's one-letter name too.
	alias := func(short, long string) {
		f := fs.Lookup(long)
		arg, _ := flag.UnquoteUsage(f)
		fs.Var(f.Value, short, "same as --"+long+" `"+arg+"`")
	}
	dur := func(p *time.Duration, name string, def, min time.Duration, usage string) {
		*p = def
		fs.Var(durationFlag{p, min}, name, usage)
	}

	c.Listen = "0.0.0.0:4444"
	fs.Var(addrFlag{&c.Listen, true}, "listen", "binary (noeq) protocol `address`; empty disables it")
	alias("l", "listen")
	c.HTTP = "0.0.0.0:4445"
	fs.Var(addrFlag{&c.HTTP, true}, "http", "HTTP `address` (API, health, metrics); empty disables it")
	fs.Var(addrFlag{&c.GRPC, true}, "grpc", "gRPC `address` (floe.v1.IDs, health, reflection); empty, the default, disables it")
	c.StateDir = defaultStateDir(lookup)
	fs.Var(textFlag{&c.StateDir, "a directory", nil}, "state", "`directory` of the reservation state file")
	fs.Var(uintFlag{&c.Worker}, "worker", "worker `id`")
	alias("w", "worker")
	fs.Var(uintFlag{&c.Datacenter}, "datacenter", "datacenter `id`")
	alias("d", "datacenter")
	c.Layout = "twitter"
	fs.Var(layoutFlag{&c.Layout}, "layout", "id64 `layout` of the default sequence: "+id64.LayoutHelp)
	fs.Var(timeFlag{&c.TimeOfDeath}, "time-of-death", "issue nothing at or before this `time`: Unix ms or RFC 3339, as noeqd's -t")
	alias("t", "time-of-death")
	fs.Var(boolFlag{&c.RequireState}, "require-state", "refuse to start without a state file (a lost or new state directory) unless --time-of-death says above which time to start")
	c.FirstStart = "warn"
	fs.Var(choiceFlag{&c.FirstStart, []string{"warn", "refuse", "wait"}}, "first-start", "what a start without a record of a sequence in the state file (a new, lost or emptied state directory) does, a `mode`: "+
		"warn (start from the clock, with a warning), refuse (as --require-state) or wait (start above the clock plus --reserve-window, waited out: for a new volume that may replace a lost one, "+
		"safe while no clock is behind the last holder's of the worker ID by more than that)")
	c.Policy = floe.Wait
	fs.Var(policyFlag{&c.Policy}, "clock-policy", "clock `policy` when the clock runs backwards: wait (the default), fail or borrow")
	dur(&c.MaxAhead, "max-ahead", time.Second, positive, "the `duration` policy borrow may run ahead of the clock")
	dur(&c.MaxWait, "max-wait", 5*time.Second, positive, "the longest `duration` a request waits for the clock or the reservation before it fails")
	dur(&c.Window, "reserve-window", 2*time.Second, server.MinWindow, "how far ahead of the clock the durable reservation reaches, a `duration` of at least "+server.MinWindow.String()+": between half of it and all of it stays reserved, and a crash costs at most this much waiting at the next start")
	fs.Var(&listFlag{vals: &c.Sequences, check: checkSeq}, "seq", "an extra named sequence, `name=format[:layout]` (format id64, id80, id96 or id128; a layout, for id64 only, as --layout takes it), repeatable")
	fs.Var(&listFlag{vals: &c.Tokens, check: checkSeqToken, secret: true}, "token", "a token selecting a sequence, `seq=token`, repeatable; in a cluster seq may also be a sequence its catalog defines, outside --seq")
	c.MaxConns = 4096
	fs.Var(intFlag{&c.MaxConns, 1}, "max-conns", "the largest `number` of open binary connections, and of open gRPC connections")
	dur(&c.AuthTimeout, "auth-timeout", 5*time.Second, positive, "the `duration` a client has to complete the auth frame")
	dur(&c.IdleTimeout, "idle-timeout", 5*time.Minute, positive, "close binary connections idle for this `duration`, and gRPC connections without a call for it")
	c.MaxHTTPIDs = 1000
	fs.Var(intFlag{&c.MaxHTTPIDs, 1}, "max-http-ids", "the largest `number` of IDs per HTTP request or gRPC message")
	dur(&c.Shutdown, "shutdown-timeout", 10*time.Second, positive, "the longest `duration` a graceful shutdown waits for in-flight replies")
	c.LogFormat = "text"
	fs.Var(choiceFlag{&c.LogFormat, []string{"text", "json"}}, "log-format", "log `format`: text or json")
	c.LogLevel = slog.LevelInfo
	fs.Var(levelFlag{&c.LogLevel}, "log-level", "log `level`: debug, info, warn or error")
	dur(&c.ClockOffset, "clock-offset", 0, anyDuration, "for tests only: shift the clock by this `duration`, e.g. -1h")
	fs.BoolVar(&c.Version, "version", false, "print the version and exit")
	fs.Func("etcd", "claim worker IDs from this etcd cluster: `host:port,...`", func(v string) error {
		eps := strings.Split(v, ",")
		if slices.Contains(eps, "") {
			return errors.New("want host:port,... without an empty endpoint")
		}
		c.Etcd = eps
		return nil
	})
	fs.Var(addrFlag{&c.Redis, false}, "redis", "claim worker IDs from this Redis server, `host:port` (it must run AOF with appendfsync always, without replicas)")
	fs.Var(boolFlag{&c.Kube}, "kube", "claim worker IDs from the Kubernetes API, as Lease objects: in a pod with its service account, outside with --kubeconfig (deploy/kubernetes/floed-kube.yaml has the Role it needs)")
	fs.Var(textFlag{&c.Kubeconfig, "a file name", nil}, "kubeconfig", "with --kube, reach the Kubernetes API with this kubeconfig `file` (its current context) instead of the pod's service account")
	fs.Var(textFlag{&c.KubeNamespace, "a namespace name", nil}, "kube-namespace", "with --kube, the `namespace` of the Lease objects (default: the pod's, or the kubeconfig context's)")
	c.Cluster = "default"
	fs.Var(textFlag{&c.Cluster, `1 to 64 bytes of [A-Za-z0-9_.-], not "." or ".."`, workerid.ValidName}, "cluster", "the cluster's `name`: nodes with the same coordinator and name share worker IDs and sequences (with --kube: 1 to 40 bytes of [a-z0-9-], a DNS label)")
	dur(&c.LeaseTTL, "lease-ttl", 10*time.Second, minLeaseTTL, "time to live of a claimed worker ID, a `duration` of at least "+minLeaseTTL.String()+": how soon a dead node's ID is claimed again")
	dur(&c.FirstClaim, "first-claim-timeout", 30*time.Second, positive, "the longest `duration` a start claims a sequence's first worker ID again while the claim fails "+
		"(the coordinator out of reach, an etcd member rejoining, a timeout); floed then exits with the coordinator's error. Claims after the start are retried without end")
	host, _ := os.Hostname()
	fs.StringVar(&c.Owner, "owner", host, "this node's name in the coordinator; a restarted node prefers the worker ID its name held last")
	fs.Var(boolFlag{&c.RedisUnsafe}, "redis-unsafe", "run on a Redis server that fails the safety check (no AOF, appendfsync not always, replicas), accepting duplicate IDs after its crash or failover")
	fs.Var(secretFlag{&c.AdminToken}, "admin-token", "bearer `token` of the admin API (/v1/admin/); without one (or --admin-loopback) the admin API refuses every request")
	fs.Var(boolFlag{&c.AdminLoopback}, "admin-loopback", "serve the admin API to loopback clients without the admin token; off by default, since a same-host proxy or mesh sidecar connects from loopback")

	// The coordinator's TLS and authentication (coordtls.go).
	file := func(p *string, name, usage string) { fs.Var(textFlag{p, "a file name", nil}, name, usage) }
	file(&c.EtcdCA, "etcd-ca", "connect to etcd over TLS, trusting the CA certificates in this PEM `file` (default: the system's)")
	file(&c.EtcdCert, "etcd-cert", "connect to etcd over TLS with this client certificate, a PEM `file` (with --etcd-key)")
	file(&c.EtcdKey, "etcd-key", "the key of --etcd-cert, a PEM `file`")
	fs.Var(textFlag{&c.EtcdUser, "a user name", nil}, "etcd-user", "authenticate to etcd as this `user` (with --etcd-password or --etcd-password-file); it needs read and write on the key prefix /floe/")
	fs.Var(secretFlag{&c.EtcdPassword}, "etcd-password", "the `password` of --etcd-user; prefer --etcd-password-file, since arguments show in ps")
	file(&c.EtcdPasswordFile, "etcd-password-file", "read the password of --etcd-user from this `file` (a trailing newline is dropped)")
	fs.Var(boolFlag{&c.RedisTLS}, "redis-tls", "connect to Redis over TLS, trusting the system's CAs (--redis-ca, --redis-cert and --redis-key imply TLS)")
	file(&c.RedisCA, "redis-ca", "connect to Redis over TLS, trusting the CA certificates in this PEM `file`")
	file(&c.RedisCert, "redis-cert", "connect to Redis over TLS with this client certificate, a PEM `file` (with --redis-key)")
	file(&c.RedisKey, "redis-key", "the key of --redis-cert, a PEM `file`")
	fs.Var(textFlag{&c.RedisUser, "a user name", nil}, "redis-user", "authenticate to Redis as this ACL `user` (with --redis-password or --redis-password-file)")
	fs.Var(secretFlag{&c.RedisPassword}, "redis-password", "the `password` of --redis-user, or without it of the default user (requirepass); prefer --redis-password-file, since arguments show in ps")
	file(&c.RedisPasswordFile, "redis-password-file", "read the Redis password from this `file` (a trailing newline is dropped)")
	c.tlsFlags(fs)

	for _, v := range envVars {
		if f := fs.Lookup(v.flag); f != nil {
			if _, ok := f.Value.(*listFlag); ok {
				f.Usage += " ($" + v.name + ", comma-separated)"
			} else {
				f.Usage += " ($" + v.name + ")"
			}
		}
	}
	return fs
}

// minLeaseTTL is the shortest --lease-ttl: a shorter lease would expire
// under an ordinary network hiccup or garbage-collection pause.
const minLeaseTTL = time.Second

// maxToken is the longest token: the auth frame gives it one length byte.
const maxToken = 255

// checkToken checks a token; its error never repeats the token.
func checkToken(token string) error {
	if len(token) == 0 || len(token) > maxToken {
		return fmt.Errorf("want a token of 1 to %d bytes, not %d", maxToken, len(token))
	}
	return nil
}

// parseSeqToken parses a --token value, seq=token.
func parseSeqToken(v string) (seq, token string, err error) {
	seq, token, ok := strings.Cut(v, "=")
	if !ok {
		return "", "", errors.New("want seq=token")
	}
	if err := checkToken(token); err != nil {
		return "", "", fmt.Errorf("seq=token: %w", err)
	}
	return seq, token, nil
}

func checkSeqToken(v string) error {
	_, _, err := parseSeqToken(v)
	return err
}

// parseSeq parses a --seq definition, name=format[:layout], leaving its
// node to sequences.
func parseSeq(def string) (server.SequenceConfig, error) {
	name, spec, ok := strings.Cut(def, "=")
	if !ok || name == "" {
		return server.SequenceConfig{}, errors.New("want name=format[:layout]")
	}
	format, layoutName, _ := strings.Cut(spec, ":")
	sc := server.SequenceConfig{Name: name, Format: server.Format(format)}
	switch sc.Format {
	case server.Format64:
		var err error
		if sc.Layout, err = id64.ParseLayout(layoutName); err != nil {
			return sc, err
		}
	case server.Format80, server.Format96, server.Format128:
		if layoutName != "" {
			return sc, errors.New("only id64 takes a layout")
		}
	default:
		return sc, fmt.Errorf("format %q: want id64, id80, id96 or id128", format)
	}
	return sc, nil
}

func checkSeq(def string) error {
	_, err := parseSeq(def)
	return err
}

// sequences returns the server's sequences: "default" (id64 with the
// configured layout, datacenter and worker) first, then the --seq ones.
// id80 sequences use partition datacenter<<8|worker, id128 sequences the
// same number as their worker, and id96 sequences node
// (datacenter<<16|worker)+1, since id96 keeps node 0 for random nodes.
func (c *Config) sequences() ([]server.SequenceConfig, error) {
	layout, err := id64.ParseLayout(c.Layout)
	if err != nil {
		return nil, fmt.Errorf("--layout: %w", err)
	}
	seqs := []server.SequenceConfig{{Name: "default", Format: server.Format64, Layout: layout, Datacenter: c.Datacenter, Worker: c.Worker}}
	if c.Token != "" {
		seqs[0].Tokens = []string{c.Token}
	}
	for _, def := range c.Sequences {
		sc, err := parseSeq(def)
		if err != nil {
			return nil, fmt.Errorf("--seq %q: %w", def, err)
		}
		switch sc.Format {
		case server.Format64:
			sc.Datacenter, sc.Worker = c.Datacenter, c.Worker
		case server.Format80:
			if c.Datacenter > 255 || c.Worker > 255 {
				return nil, fmt.Errorf("--seq %q: id80 partitions are datacenter<<8|worker, each 0..255", def)
			}
			sc.Node = c.Datacenter<<8 | c.Worker
		case server.Format128:
			if c.Datacenter > 255 || c.Worker > 255 {
				return nil, fmt.Errorf("--seq %q: id128 workers are datacenter<<8|worker, each 0..255", def)
			}
			sc.Node = c.Datacenter<<8 | c.Worker
		case server.Format96:
			if c.Datacenter > 0xffff || c.Worker > 0xffff {
				return nil, fmt.Errorf("--seq %q: id96 nodes are (datacenter<<16|worker)+1, each 0..65535", def)
			}
			sc.Node = (c.Datacenter<<16 | c.Worker) + 1
		}
		seqs = append(seqs, sc)
	}
	for _, t := range c.Tokens {
		name, token, err := parseSeqToken(t)
		if err != nil {
			return nil, fmt.Errorf("--token: %w", err)
		}
		found := false
		for i := range seqs {
			if seqs[i].Name == name {
				seqs[i].Tokens = append(seqs[i].Tokens, token)
				found = true
			}
		}
		if !found && !c.clustered() {
			return nil, fmt.Errorf("--token: unknown sequence %q (not in --seq; only a cluster node, --etcd, --redis or --kube, may name one its catalog defines)", name)
		}
	}
	return seqs, nil
}

// catalogTokens returns the --token values of the sequences that are not
// in --seq, by name: in a cluster, sequences its catalog may define,
// which the admin API attaches at runtime. sequences checked the values.
func (c *Config) catalogTokens() map[string][]string {
	served := map[string]bool{"default": true}
	for _, def := range c.Sequences {
		name, _, _ := strings.Cut(def, "=")
		served[name] = true
	}
	var out map[string][]string
	for _, t := range c.Tokens {
		name, token, err := parseSeqToken(t)
		if err != nil || served[name] {
			continue
		}
		if out == nil {
			out = make(map[string][]string)
		}
		out[name] = append(out[name], token)
	}
	return out
}

var errNoListener = errors.New("--listen, --http and --grpc are all empty: nothing to serve")
