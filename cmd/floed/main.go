// Command floed serves unique, time-sorted IDs over noeqd's binary protocol,
// HTTP and, with --grpc, gRPC. With no flags it runs one node: worker 0, the
// binary protocol on :4444, HTTP on :4445, and its reservation in a state
// file under ~/.local/state/floed (--state overrides).
//
// noeqd's flags -w, -d, -l and -t and its NOEQ_TOKEN keep their meaning.
// Run "floed -h" for every flag; each has a FLOE_* environment variable,
// parsed as its flag is, and a flag on the command line wins over it. A
// variable set to "" is its flag given "" (FLOE_LISTEN= turns the binary
// protocol off); only an unset one leaves the default. A malformed
// variable, like a malformed flag, stops floed at once with exit status 2,
// even when its flag is also given; so does a FLOE_* variable floed does
// not know (a misspelling), except those of the floe CLI and of floe's
// tests (otherVars), which floed ignores. A cluster flag (--cluster,
// --lease-ttl, --owner) without --etcd or --redis is a usage error too, as
// is a setting the server refuses (-w 32 in the Twitter layout, one token
// for two sequences).
//
// The start checks every setting, then binds every listener, and only then
// opens the state file or connects to the coordinator: a port that is
// taken stops it with exit status 1 and an error naming the flag
// (--listen :4444: address already in use), with nothing claimed or
// written.
//
// --tls-cert and --tls-key serve TLS on every listener; SIGHUP then reads
// the files again, as a change of their size or modification time does.
//
// The first SIGINT or SIGTERM shuts down gracefully: stop accepting, finish
// the replies in flight, record the clean stop, exit. A second one exits at
// once.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	goredis "github.com/redis/go-redis/v9"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/buildinfo"
	"github.com/floeid/floe/internal/server"
	"github.com/floeid/floe/internal/statefile"
)

func main() {
	// The first reading of the default clock calibrates the processor's
	// counter against the monotonic clock (0.3 to 0.5 ms of spinning): it
	// runs here, beside parsing, binding and the state file's fsyncs,
	// rather than on the way to the first ID.
	go floe.MonotonicClock.Now()
	m := NewMain(os.Stderr)
	ignored, err := checkEnvNames(os.Environ())
	if err != nil {
		fmt.Fprintln(os.Stderr, "floed:", err)
		os.Exit(2)
	}
	m.Config.ignoredEnv = ignored
	if err := m.Config.ParseFlags(os.Args[1:], os.LookupEnv, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "floed:", err)
		os.Exit(2)
	}
	if m.Config.Version {
		fmt.Println("floed", buildinfo.Read())
		return
	}

	ctx, stop := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		m.Logger.Info("shutting down; a second signal exits at once", "signal", sig.String())
		stop()
		sig = <-sigs
		m.Logger.Warn("second signal: exiting now", "signal", sig.String())
		os.Exit(1)
	}()

	if m.Config.TLSCert != "" {
		// SIGHUP reloads the TLS files; without TLS it keeps its default
		// action.
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		go func() {
			for range hup {
				// Run stores tls after it set Logger.
				if lt := m.tls.Load(); lt != nil {
					m.Logger.Info("SIGHUP: reloading the TLS files")
					lt.reload()
				}
			}
		}()
	}

	if err := m.Run(ctx); err != nil {
		// Once, as a log line: in the log's format, next to the lines
		// that led to it.
		m.Logger.Error("floed stopped", "err", err)
		os.Exit(1)
	}
}

// Main is the daemon: its configuration, then Run.
type Main struct {
	Config Config
	Logger *slog.Logger
	// floor, set by a first start under --first-start wait, raises the
	// server's floor above Config.TimeOfDeath.
	floor time.Time
	// tls is the listeners' TLS once Run has read it, for SIGHUP.
	tls atomic.Pointer[listenerTLS]

	stderr io.Writer
}

// NewMain returns a Main writing logs to stderr.
func NewMain(stderr io.Writer) *Main {
	return &Main{stderr: stderr}
}

// Run serves until ctx is cancelled, then shuts down gracefully.
func (m *Main) Run(ctx context.Context) error {
	c := &m.Config
	m.Logger = newLogger(c.LogFormat, c.LogLevel, m.stderr)
	// go-redis logs to stderr on its own, in its own format; its lines go
	// to floed's log instead, at debug level, since every failure they
	// report also comes back to floed as an error.
	goredis.SetLogger(redisLog{m.Logger})
	for _, name := range c.ignoredEnv {
		m.Logger.Debug("ignoring a variable of the floe CLI or floe's tests", "variable", name)
	}
	// ParseFlags checked the configuration; Run checks again, for callers
	// that fill in Config themselves.
	scfg, err := c.serverConfig()
	if err != nil {
		return err
	}
	seqs := scfg.Sequences

	// Bind every listener before anything touches the state file or the
	// coordinator: a port that is taken then stops the start with nothing
	// claimed or written, and the next start has no reservation to wait
	// out.
	lt, err := c.tlsConfigs(m.Logger)
	if err != nil {
		return err
	}
	scfg.HTTPClientCert = lt.web != nil && c.TLSClientCA != ""
	binL, httpL, grpcL, err := c.listen()
	if err != nil {
		return err
	}
	serving := false
	defer func() {
		if !serving {
			closeListener(binL)
			closeListener(httpL)
			closeListener(grpcL)
		}
	}()

	var clock floe.Clock = floe.MonotonicClock
	if c.ClockOffset != 0 {
		m.Logger.Warn("the clock is shifted (--clock-offset is for tests)", "offset", c.ClockOffset)
		clock = offsetClock{floe.MonotonicClock, c.ClockOffset}
	}
	build := buildinfo.Read()
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		lazyCollector(func() prometheus.Collector { return collectors.NewGoCollector() }),
		lazyCollector(func() prometheus.Collector { return collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}) }))

	// A single node keeps its reservations in the state file; a cluster
	// node, in the coordinator, whose Sources the sequences then use.
	var (
		store     server.Store
		statePath = "none"
		co        *coordinator
	)
	if c.clustered() {
		// The leases' deadlines run on the monotonic clock, never on the
		// shifted one: a clock test must not stretch a lease.
		if co, err = c.connect(ctx, m.Logger, floe.MonotonicClock); err != nil {
			return err
		}
		defer co.close()
		co.registerUnsafe(reg)
		co.warnUnsafe(ctx, m.Logger)
		if err := co.define(ctx, seqs); err != nil {
			return err
		}
		statePath = co.backend + " cluster " + c.Cluster
	} else {
		state, err := statefile.Open(c.StateDir)
		if err != nil {
			return fmt.Errorf("state: %w", err)
		}
		defer state.Close()
		if ahead := time.Until(c.TimeOfDeath); !c.TimeOfDeath.IsZero() && ahead > 0 {
			m.Logger.Warn("--time-of-death is in the future: no ID is issued until the clock passes it; is it a time in Unix milliseconds (date +%s%3N)?",
				"time_of_death", c.TimeOfDeath.UTC(), "ahead", ahead.Round(time.Millisecond))
		}
		if err := m.firstStart(state, seqs); err != nil {
			return err
		}
		store, statePath = stateStore{state}, state.Path()
	}
	if m.floor.After(scfg.Floor) {
		scfg.Floor = m.floor
	}
	scfg.Store, scfg.Clock, scfg.Logger, scfg.Registry = store, clock, m.Logger, reg
	scfg.Version, scfg.Revision = build.Version, build.Revision
	scfg.AdminLoopback = c.AdminLoopback
	if co != nil {
		scfg.Catalog, scfg.Sources = co.catalog, co.sources
		scfg.FirstClaim = c.FirstClaim
		scfg.Tokens = c.catalogTokens()
	}
	srv, err := server.New(scfg)
	if err != nil {
		return err
	}
	defer srv.Close()

	m.tls.Store(lt)
	lt.run(ctx, c.TLSReload, reg)

	errc := make(chan error, 3)
	serving = true
	if binL != nil && lt.bin != nil {
		go func() { errc <- srv.ServeTLS(binL, lt.bin) }()
	} else if binL != nil {
		go func() { errc <- srv.Serve(binL) }()
	}
	// DisableGeneralOptionsHandler: "OPTIONS *" goes to the handler, which
	// answers 405 as for any method a path does not answer; net/http would
	// answer 200 itself.
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, DisableGeneralOptionsHandler: true,
		ErrorLog: srv.HTTPErrorLog()}
	switch {
	case httpL != nil && lt.web != nil:
		go func() { errc <- hs.Serve(tls.NewListener(httpL, lt.web)) }()
	case httpL != nil:
		go func() { errc <- hs.Serve(srv.PlaintextListener(httpL, "http")) }()
	}
	switch {
	case grpcL != nil && lt.bin != nil:
		go func() { errc <- srv.ServeGRPCTLS(grpcL, lt.bin) }()
	case grpcL != nil:
		go func() { errc <- srv.ServeGRPC(srv.PlaintextListener(grpcL, "grpc")) }()
	}
	if co == nil {
		m.Logger.Info("single node", "worker_id", c.Worker, "datacenter_id", c.Datacenter)
	}
	m.Logger.Info("floed serving", "version", build.Version, "revision", buildinfo.ShortRevision(build.Revision), "listen", addrString(binL), "http", addrString(httpL), "grpc", addrString(grpcL),
		"tls", lt.watcher != nil, "mutual_tls", c.TLSClientCA != "",
		"state", statePath, "clock_policy", c.Policy.String(),
		"reserve_window", c.Window, "sequences", len(seqs))

	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, server.ErrServerClosed) && !errors.Is(err, http.ErrServerClosed) {
			srv.Close()
			hs.Close()
			return err
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), c.Shutdown)
	defer cancel()
	// Both at once: the server's stop ends the waits of the HTTP requests
	// that hs.Shutdown waits for.
	hsDone := make(chan error, 1)
	go func() { hsDone <- hs.Shutdown(sctx) }()
	var errs []error
	if err := srv.Shutdown(sctx); err != nil {
		errs = append(errs, fmt.Errorf("shutdown: %w", err))
	}
	if err := <-hsDone; err != nil {
		errs = append(errs, fmt.Errorf("http shutdown: %w", err))
	}
	if len(errs) == 0 {
		m.Logger.Info("stopped cleanly")
	}
	return errors.Join(errs...)
}

// errNoState refuses a start without a state file under --require-state,
// or with one that has no record of a sequence.
var errNoState = errors.New("no state file")

// firstStart says loudly that the state directory holds no state file, or
// a state file with no record of one of seqs: a first start, or a lost,
// deleted or replaced file. Nothing then says which IDs the sequence's
// worker ID issued before; with a clock set back they could be issued
// again. Under --require-state that refuses the start, unless
// --time-of-death says above which time to start.
func (m *Main) firstStart(state *statefile.File, seqs []server.SequenceConfig) error {
	c := &m.Config
	var missing []string
	for _, sc := range seqs {
		if _, ok := state.Sequence(sc.Name); !ok {
			missing = append(missing, sc.Name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	// What is missing: the file, or the sequences' records in it.
	what := fmt.Sprintf("%s in %s", errNoState, state.Path())
	if !state.Fresh() {
		what = fmt.Sprintf("no record of the sequence %s in the state file %s", strings.Join(missing, ", "), state.Path())
		if len(missing) > 1 {
			what = fmt.Sprintf("no record of the sequences %s in the state file %s", strings.Join(missing, ", "), state.Path())
		}
	}
	if c.FirstStart == "refuse" && c.TimeOfDeath.IsZero() {
		return fmt.Errorf("%s, and --require-state is set: a lost state file could let this worker ID repeat IDs it issued before. "+
			"If this is the worker ID's first start, or its last ID was issued before a known time, start once with --time-of-death (-t) "+
			"set to that time (Unix ms or RFC 3339; now for a first start: -t $(date +%%s%%3N)); otherwise restore the state file", what)
	}
	if c.FirstStart == "wait" {
		floor := m.firstStartFloor(time.Now())
		if floor.After(c.TimeOfDeath) {
			m.floor = floor
			m.Logger.Warn("first start: "+what+"; --first-start wait: starting above the clock plus the reservation window, which a previous holder of this worker ID "+
				"could not have passed unless a clock was behind", "state", state.Path(), "sequences", missing, "floor", floor.UTC(), "wait", floor.Sub(time.Now().Add(c.ClockOffset)).Round(time.Millisecond),
				"worker_id", c.Worker, "datacenter_id", c.Datacenter)
			return nil
		}
	}
	if c.TimeOfDeath.IsZero() {
		m.Logger.Warn("first start: "+what+", so nothing is known of IDs issued before; if this worker ID ever issued IDs, "+
			"stop and restart with --time-of-death (-t) after its last one, or restore the state file (--require-state refuses such a start)",
			"state", state.Path(), "sequences", missing, "worker_id", c.Worker, "datacenter_id", c.Datacenter)
	} else {
		m.Logger.Warn("first start: "+what+"; starting above --time-of-death",
			"state", state.Path(), "sequences", missing, "time_of_death", c.TimeOfDeath, "worker_id", c.Worker, "datacenter_id", c.Datacenter)
	}
	return nil
}

// firstStartFloor is the floor of a first start under --first-start wait:
// the clock at now plus the reservation window, and the distance the
// policy borrow may run ahead. A previous holder of the worker ID, stopped
// before this start, issued nothing above its clock (plus MaxAhead under
// borrow); the window is the margin for its clock having been ahead of
// this one.
func (m *Main) firstStartFloor(now time.Time) time.Time {
	c := &m.Config
	floor := now.Add(c.ClockOffset + c.Window)
	if c.Policy == floe.Borrow {
		floor = floor.Add(c.MaxAhead)
	}
	return floor
}

// listen binds the listeners of --listen, --http and --grpc, each when
// set. Its error names the flag and the address (--listen :4444: address
// already in use).
func (c *Config) listen() (bin, web, rpc net.Listener, err error) {
	bind := func(flag, addr string) net.Listener {
		if addr == "" || err != nil {
			return nil
		}
		l, e := net.Listen("tcp", addr)
		if e != nil {
			err = listenError(flag, addr, e)
		}
		return l
	}
	bin = bind("--listen", c.Listen)
	web = bind("--http", c.HTTP)
	rpc = bind("--grpc", c.GRPC)
	if err != nil {
		closeListener(bin)
		closeListener(web)
		closeListener(rpc)
		return nil, nil, nil, err
	}
	return bin, web, rpc, nil
}

// listenError names flag and addr in front of the cause of net.Listen's
// err, without the "listen tcp" and "bind" that the flag makes redundant.
func listenError(flag, addr string, err error) error {
	var se *os.SyscallError
	var oe *net.OpError
	switch {
	case errors.As(err, &se):
		err = se.Err
	case errors.As(err, &oe):
		err = oe.Err
	}
	return fmt.Errorf("%s %s: %w", flag, addr, err)
}

func closeListener(l net.Listener) {
	if l != nil {
		l.Close()
	}
}

func addrString(l net.Listener) string {
	if l == nil {
		return "off"
	}
	return l.Addr().String()
}

// newLogger returns the logger of --log-format and --log-level, which
// ParseFlags checked: format is "text" or "json".
func newLogger(format string, level slog.Level, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// redisLog writes go-redis's log lines to a logger at debug level.
type redisLog struct{ l *slog.Logger }

func (r redisLog) Printf(ctx context.Context, format string, v ...any) {
	r.l.DebugContext(ctx, "go-redis: "+fmt.Sprintf(format, v...))
}

// lazyCollector returns a collector that build makes at its first
// collection, a scrape of /metrics, instead of at the start. It is an
// unchecked collector (its Describe sends nothing): the registry checks its
// metrics when it gathers them, not when it registers it. The Go and
// process collectors cost a start about 0.1 ms before its first ID.
func lazyCollector(build func() prometheus.Collector) prometheus.Collector {
	return onFirstCollect{sync.OnceValue(build)}
}

type onFirstCollect struct{ get func() prometheus.Collector }

func (onFirstCollect) Describe(chan<- *prometheus.Desc) {}

func (c onFirstCollect) Collect(ch chan<- prometheus.Metric) { c.get().Collect(ch) }

// offsetClock shifts a clock, for tests that set it back across a restart.
type offsetClock struct {
	base floe.Clock
	off  time.Duration
}

func (c offsetClock) Now() time.Time { return c.base.Now().Add(c.off) }

// stateStore keeps the server's reservations in the state file.
type stateStore struct{ f *statefile.File }

func (s stateStore) Load(name string) (server.Record, bool, error) {
	seq, ok := s.f.Sequence(name)
	if !ok {
		return server.Record{}, false, nil
	}
	return server.Record{Definition: seq.Definition, Reserved: seq.Reserved, Last: seq.Last}, true, nil
}

func (s stateStore) Save(name string, rec server.Record) error {
	return s.f.Put(name, statefile.Sequence{Definition: rec.Definition, Reserved: rec.Reserved, Last: rec.Last, Updated: time.Now()})
}
