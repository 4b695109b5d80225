// Command floed serves unique, time-sorted IDs over noeqd's binary protocol
// and HTTP. With no flags it runs one node: worker 0, the binary protocol on
// :4444, HTTP on :4445, and its reservation in a state file under
// ~/.local/state/floed (--state overrides).
//
// noeqd's flags -w, -d, -l and -t and its NOEQ_TOKEN keep their meaning.
// Run "floed -h" for every flag; each has a FLOE_* environment variable,
// parsed as its flag is, and a flag on the command line wins over it. A
// variable set to "" is its flag given "" (FLOE_LISTEN= turns the binary
// protocol off); only an unset one leaves the default. A malformed
// variable, like a malformed flag, stops floed at once with exit status 2,
// even when its flag is also given.
//
// The first SIGINT or SIGTERM shuts down gracefully: stop accepting, finish
// the replies in flight, record the clean stop, exit. A second one exits at
// once.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
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
	m := NewMain(os.Stderr)
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
	if c.Listen == "" && c.HTTP == "" {
		return errNoListener
	}
	seqs, err := c.sequences()
	if err != nil {
		return err
	}

	var clock floe.Clock = floe.MonotonicClock
	if c.ClockOffset != 0 {
		m.Logger.Warn("the clock is shifted (--clock-offset is for tests)", "offset", c.ClockOffset)
		clock = offsetClock{floe.MonotonicClock, c.ClockOffset}
	}
	build := buildinfo.Read()
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

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
		if err := m.firstStart(state); err != nil {
			return err
		}
		store, statePath = stateStore{state}, state.Path()
	}
	scfg := server.Config{
		Sequences:    seqs,
		Store:        store,
		Clock:        clock,
		Policy:       c.Policy,
		MaxAhead:     c.MaxAhead,
		MaxWait:      c.MaxWait,
		Window:       c.Window,
		Floor:        c.TimeOfDeath,
		MaxConns:     c.MaxConns,
		AuthTimeout:  c.AuthTimeout,
		IdleTimeout:  c.IdleTimeout,
		MaxHTTPCount: c.MaxHTTPIDs,
		Logger:       m.Logger,
		Registry:     reg,
		Version:      build.Version,
		Revision:     build.Revision,
		AdminToken:   c.AdminToken,
	}
	scfg.AdminLoopback = c.AdminLoopback
	if co != nil {
		scfg.Catalog, scfg.Sources = co.catalog, co.sources
		scfg.Tokens = c.catalogTokens()
	}
	srv, err := server.New(scfg)
	if err != nil {
		return err
	}
	defer srv.Close()

	errc := make(chan error, 2)
	var binL, httpL net.Listener
	if c.Listen != "" {
		if binL, err = net.Listen("tcp", c.Listen); err != nil {
			return err
		}
		go func() { errc <- srv.Serve(binL) }()
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	if c.HTTP != "" {
		if httpL, err = net.Listen("tcp", c.HTTP); err != nil {
			srv.Close()
			return err
		}
		go func() { errc <- hs.Serve(httpL) }()
	}
	if co == nil {
		m.Logger.Info("single node", "worker_id", c.Worker, "datacenter_id", c.Datacenter)
	}
	m.Logger.Info("floed serving", "version", build.Version, "revision", buildinfo.ShortRevision(build.Revision), "listen", addrString(binL), "http", addrString(httpL),
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
	var errs []error
	if err := hs.Shutdown(sctx); err != nil {
		errs = append(errs, fmt.Errorf("http shutdown: %w", err))
	}
	if err := srv.Shutdown(sctx); err != nil {
		errs = append(errs, fmt.Errorf("shutdown: %w", err))
	}
	if len(errs) == 0 {
		m.Logger.Info("stopped cleanly")
	}
	return errors.Join(errs...)
}

// errNoState refuses a start without a state file under --require-state.
var errNoState = errors.New("no state file")

// firstStart says loudly that the state directory holds no state file: a
// first start, or a lost or deleted file. Nothing then says which IDs this
// worker ID issued before; with a clock set back they could be issued
// again. Under --require-state that refuses the start, unless
// --time-of-death says above which time to start.
func (m *Main) firstStart(state *statefile.File) error {
	c := &m.Config
	if !state.Fresh() {
		return nil
	}
	if c.RequireState && c.TimeOfDeath.IsZero() {
		return fmt.Errorf("%w in %s, and --require-state is set: a lost state file could let this worker ID repeat IDs it issued before. "+
			"If this is the worker ID's first start, or its last ID was issued before a known time, start once with --time-of-death (-t) "+
			"set to that time (Unix ms or RFC 3339; now for a first start: -t $(date +%%s%%3N)); otherwise restore the state file", errNoState, state.Path())
	}
	if c.TimeOfDeath.IsZero() {
		m.Logger.Warn("first start: no state file, so nothing is known of IDs issued before; if this worker ID ever issued IDs, "+
			"stop and restart with --time-of-death (-t) after its last one, or restore the state file (--require-state refuses such a start)",
			"state", state.Path(), "worker_id", c.Worker, "datacenter_id", c.Datacenter)
	} else {
		m.Logger.Warn("first start: no state file; starting above --time-of-death",
			"state", state.Path(), "time_of_death", c.TimeOfDeath, "worker_id", c.Worker, "datacenter_id", c.Datacenter)
	}
	return nil
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
