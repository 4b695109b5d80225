package main

import (
	"cmp"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/wire"
)

// benchMaxPipeline bounds -pipeline: more outstanding requests than that
// only queue in socket buffers, and each costs reply-buffer space.
const benchMaxPipeline = 1024

// benchProgressEvery is how often the live progress line is redrawn.
const benchProgressEvery = 500 * time.Millisecond

// benchConfig is a run of "floe bench", from its flags.
type benchConfig struct {
	addr, token string
	http        string      // -http: the HTTP API's host:port; empty: the binary protocol
	grpc        string      // -grpc: the gRPC API's host:port
	stream      bool        // -stream: over gRPC, one Stream a connection instead of Next calls
	netHTTP     bool        // -nethttp: over HTTP, net/http's client instead of the bench's own
	seq         string      // -seq: the sequence over HTTP or gRPC; empty: the server's default
	format      benchFormat // over HTTP or gRPC: the sequence's format, from the server
	request     []byte      // over HTTP: the request each connection sends
	conns       int
	batch       int
	pipeline    int
	duration    time.Duration // 0: until requests
	requests    int64         // requests after the warmup, over all connections; 0: no limit
	warmup      time.Duration
	timeout     time.Duration
	check       bool
	layout      id64.Layout // of the server's IDs, to read their time
	layoutName  string
	output      string // text or json
	progress    bool
	tls         *tls.Config // nil: plain TCP
}

// runBench runs "floe bench", a load generator for any server of the noeq
// protocol (floed, noeqd), or with -http for floed's HTTP API. It opens -c connections, each with its own
// goroutine, sends requests for -b IDs for -d (or until -n requests), and
// reports throughput and latency of the requests sent after -warmup. It
// checks every ID received, warmup included: on each connection each ID
// must be greater than the one before it, and (unless -check=false) no ID
// may come twice over all connections. Duplicates, order violations and
// failed connections make it exit 1 after the report.
//
// The text report has one "key: value" line each, in this order, and keeps
// this format:
//
//	target:      127.0.0.1:4444
//	connections: 8 (pipeline 1)
//	batch:       255
//	duration:    10.001s (after 1s warmup)
//	requests:    160784
//	IDs:         40999920
//	IDs/s:       4099582
//	cap:         100.1% of 4096000 IDs/s
//	requests/s:  16077
//	latency:     p50 310µs p99 821µs p999 1.23ms max 3.41ms
//	time lag:    p50 -1 p99 0 max 0 ticks of 1ms; 0 IDs name a tick before their request's send
//	unique:      45099000 IDs checked, 0 duplicates, 0 order violations
//
// followed, when something went wrong, by lines for the first duplicate,
// the first order violation and each failed connection. IDs is requests ×
// batch; the IDs checked include the warmup's. The cap is the most IDs a
// second one worker of the layout (-layout, or the sequence's) issues,
// 2^sequence bits a tick; a run over a window of whole ticks may pass it
// by a tick's worth. The time lag of an ID is
// the tick (of -layout) in which its request was sent minus the tick the ID
// names: 0 or less is a true time, above 0 a time before the request (on
// one machine, or clocks in sync). Latencies are
// rounded to 3 significant digits; each quantile is the top of its
// histogram bucket, at most 0.8% over the true value. With -o json the
// same figures come as one object, durations in seconds (see benchResult).
//
// With -http it load-tests floed's HTTP API instead, for a sequence of any
// format (-seq, else the default one), which it learns from GET
// /v1/sequences. Each connection is a keep-alive HTTP/1.1 connection that
// sends GET /v1/ids?n=-b&seq=-seq (Accept: text/plain) and reads its reply
// before the next. The checks are the same: id64 IDs compare as numbers,
// those of the other formats in binary order, which is time order; the
// time lag counts the format's ticks. The report gains a line
//
//	format:      id128 (sequence orders)
//
// after the target, the URL of the requests; JSON gains "format" and "seq".
//
// With -grpc it load-tests floed's gRPC API (floe.v1.IDs) instead, in the
// same way: each connection is a client connection of its own, with one
// goroutine calling Next for -b IDs, each call once the one before it has
// returned. It learns the sequence's format from a first call for one ID,
// and an id64 sequence's layout from an Inspect of it. IDs come in the
// binary encoding. With -stream each connection instead opens one Stream
// of -b IDs a message: a message's latency is the time since the message
// before it (or the open), and the time lag counts from the stream's open.
// The target is grpc://host:port/floe.v1.IDs/Next (or /Stream; grpcs://
// over TLS); the report has the format line of -http.
func runBench(args []string, stdout, stderr io.Writer) error {
	cfg, err := parseBenchFlags(args, stderr)
	if err != nil {
		return err
	}
	dial := benchDial
	switch {
	case cfg.http != "":
		dial = benchDialHTTP
	case cfg.grpc != "":
		dial = benchDialGRPC
	}
	conns, err := dial(cfg)
	if err != nil {
		return err
	}
	r := &benchRun{cfg: cfg, start: time.Now()}

	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	defer signal.Stop(interrupt)
	finished := make(chan struct{})
	var bg sync.WaitGroup
	bg.Go(func() {
		select {
		case <-interrupt:
			r.stop.Store(true)
			signal.Stop(interrupt) // a second interrupt kills
		case <-finished:
		}
	})
	if cfg.progress {
		bg.Go(func() { benchShowProgress(stderr, r, conns, finished) })
	}
	var wg sync.WaitGroup
	for _, w := range conns {
		if cfg.http != "" {
			wg.Go(func() { w.runHTTP(r) })
		} else if cfg.grpc != "" {
			wg.Go(func() { w.runGRPC(r) })
		} else {
			wg.Go(func() { w.run(r) })
		}
	}
	wg.Wait()
	close(finished)
	bg.Wait()

	res := benchCollect(cfg, conns)
	res.Interrupted = r.stop.Load()
	if cfg.output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else if err := res.writeText(stdout); err != nil {
		return err
	}
	return res.err()
}

// parseBenchFlags returns the run the flags describe. Flag errors, bad
// values included, are errUsage, with the reason printed to stderr.
func parseBenchFlags(args []string, stderr io.Writer) (*benchConfig, error) {
	fs := newFlagSet("bench", stderr)
	cfg := &benchConfig{}
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:4444", "server address, host:port")
	fs.IntVar(&cfg.conns, "c", 1, "connections, each with its own goroutine")
	fs.IntVar(&cfg.batch, "b", 1, "IDs per request, 1..255; over -http and -grpc up to the server's --max-http-ids (1000 by default)")
	fs.DurationVar(&cfg.duration, "d", 10*time.Second, "how long to send requests after the warmup; 0: until -n requests")
	fs.Int64Var(&cfg.requests, "n", 0, "stop after this many requests after the warmup, over all connections; 0: no limit")
	token := fs.String("token", "", "auth token (default $FLOE_TOKEN, else $NOEQ_TOKEN; empty: no auth frame; over -http and -grpc: authorization: Bearer)")
	fs.IntVar(&cfg.pipeline, "pipeline", 1, "requests outstanding per connection, 1.."+strconv.Itoa(benchMaxPipeline)+"; 1: send one, wait for its reply")
	fs.DurationVar(&cfg.warmup, "warmup", 0, "run this long before measuring; its IDs are checked but not counted")
	fs.DurationVar(&cfg.timeout, "timeout", 5*time.Second, "longest wait to connect or for a reply")
	fs.StringVar(&cfg.layoutName, "layout", "twitter", "id64 layout of the server's IDs, to measure the lag of their time behind their request's send (noeqd's is twitter): "+id64.LayoutHelp)
	fs.BoolVar(&cfg.check, "check", true, "check IDs are unique over all connections (keeps every ID: 8 bytes each, 16 over -http and -grpc); order on each connection is always checked")
	fs.StringVar(&cfg.output, "o", "text", "output: text or json")
	fs.StringVar(&cfg.http, "http", "", "load-test floed's HTTP API at this host:port instead (GET /v1/ids?seq=&n=, any format), in place of -addr")
	fs.StringVar(&cfg.grpc, "grpc", "", "load-test floed's gRPC API at this host:port instead (floe.v1.IDs Next, any format), in place of -addr")
	fs.BoolVar(&cfg.stream, "stream", false, "over -grpc, open one Stream of -b IDs a message on each connection instead of calling Next")
	fs.BoolVar(&cfg.netHTTP, "nethttp", false, "over -http, send each connection's requests with Go's net/http client, as a Go program would, instead of the bench's own lean HTTP/1.1 client")
	fs.StringVar(&cfg.seq, "seq", "", "the sequence to load-test over -http or -grpc (default: the server's default sequence)")
	var tf tlsFlags
	tf.register(fs)
	progress := fs.String("progress", "auto", "live progress line on stderr: auto (when stderr is a terminal), on or off")
	err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) (*benchConfig, error) {
		fmt.Fprintf(stderr, "floe bench: "+format+"\n", args...)
		return nil, errUsage
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	maxBatch := wire.MaxCount
	api := "" // the flag of the API under test, if not the binary protocol
	switch {
	case cfg.http != "" && cfg.grpc != "":
		return bad("-http and -grpc: give one, -http for the HTTP API or -grpc for the gRPC API")
	case cfg.http != "":
		api = "-http"
	case cfg.grpc != "":
		api = "-grpc"
	}
	if api != "" {
		maxBatch = benchMaxHTTPBatch
	}
	switch {
	case fs.NArg() > 0:
		return bad("unexpected arguments: %q", fs.Args())
	case set["seq"] && api == "":
		return bad("-seq needs -http or -grpc: the binary protocol selects a sequence by -token")
	case set["stream"] && cfg.grpc == "":
		return bad("-stream needs -grpc: it opens a gRPC Stream")
	case set["nethttp"] && cfg.http == "":
		return bad("-nethttp needs -http: it picks the HTTP client")
	case api != "" && set["addr"]:
		return bad("-addr and %s: give one, -addr for the binary protocol or %s for the %s API", api, api, strings.ToUpper(api[1:]))
	case api != "" && set["pipeline"]:
		return bad("-pipeline is for the binary protocol: over %s each connection sends a request and waits for its reply", api)
	case cfg.http != "" && set["layout"]:
		return bad("-layout is for the binary protocol: over -http the server's /v1/sequences gives the sequence's format and layout")
	case cfg.grpc != "" && set["layout"]:
		return bad("-layout is for the binary protocol: over -grpc the server's Inspect gives the sequence's layout")
	case cfg.conns < 1:
		return bad("-c %d: want 1 or more connections", cfg.conns)
	case cfg.batch < 1 || cfg.batch > maxBatch:
		return bad("-b %d: want 1..%d IDs per request", cfg.batch, maxBatch)
	case cfg.pipeline < 1 || cfg.pipeline > benchMaxPipeline:
		return bad("-pipeline %d: want 1..%d", cfg.pipeline, benchMaxPipeline)
	case cfg.duration < 0:
		return bad("-d %v: want a duration of 0 or more", cfg.duration)
	case cfg.warmup < 0:
		return bad("-warmup %v: want a duration of 0 or more", cfg.warmup)
	case cfg.timeout <= 0:
		return bad("-timeout %v: want a duration above 0", cfg.timeout)
	case cfg.requests < 0:
		return bad("-n %d: want 0 or more requests", cfg.requests)
	case cfg.duration == 0 && cfg.requests == 0:
		return bad("-d 0 needs -n: the run would not end")
	case cfg.output != "text" && cfg.output != "json":
		return bad("-o %q: want text or json", cfg.output)
	}
	if cfg.layout, err = id64.ParseLayout(cfg.layoutName); err != nil {
		return bad("-layout %q: %v", cfg.layoutName, err)
	}
	switch *progress {
	case "on":
		cfg.progress = true
	case "off":
	case "auto":
		f, ok := stderr.(*os.File)
		if ok {
			fi, err := f.Stat()
			cfg.progress = err == nil && fi.Mode()&os.ModeCharDevice != 0
		}
	default:
		return bad("-progress %q: want auto, on or off", *progress)
	}
	if cfg.tls, err = tf.config(); err != nil {
		return bad("%v", err)
	}
	if cfg.http != "" {
		var https bool
		if cfg.http, https, err = benchHTTPAddr(cfg.http); err != nil {
			return bad("-http: %v", err)
		}
		if https && cfg.tls == nil {
			cfg.tls = &tls.Config{MinVersion: tls.VersionTLS12}
		}
	}
	if cfg.grpc != "" {
		if _, _, err := net.SplitHostPort(cfg.grpc); err != nil {
			return bad("-grpc: %q: want host:port: %v", cfg.grpc, err)
		}
	}
	cfg.token = *token
	if !set["token"] {
		cfg.token = cmp.Or(os.Getenv("FLOE_TOKEN"), os.Getenv("NOEQ_TOKEN"))
	}
	if len(cfg.token) > wire.MaxToken {
		return bad("-token: %d bytes, want at most %d", len(cfg.token), wire.MaxToken)
	}
	if api != "" && strings.ContainsFunc(cfg.token, func(c rune) bool { return c < ' ' || c == 0x7f }) {
		return bad("-token: a control character, which an HTTP header or gRPC metadata cannot carry")
	}
	return cfg, nil
}

// benchDial opens the connections of a run and sends each the auth frame,
// if there is a token, but over HTTP. It fails if any connection fails.
func benchDial(cfg *benchConfig) ([]*benchConn, error) {
	addr := cmp.Or(cfg.http, cfg.addr)
	var auth []byte
	if cfg.token != "" && cfg.http == "" {
		var err error
		if auth, err = wire.AppendAuth(nil, cfg.token); err != nil {
			return nil, err
		}
	}
	conns := make([]*benchConn, cfg.conns)
	for i := range conns {
		c, err := net.DialTimeout("tcp", addr, cfg.timeout)
		if err == nil && cfg.tls != nil {
			_ = c.SetDeadline(time.Now().Add(cfg.timeout))
			var tc net.Conn
			if tc, err = tlsDial(c, addr, cfg.tls); err == nil {
				c = tc
			}
		}
		if err == nil && auth != nil {
			_ = c.SetWriteDeadline(time.Now().Add(cfg.timeout))
			_, err = c.Write(auth)
		}
		if err != nil {
			if c != nil {
				c.Close()
			}
			for _, w := range conns[:i] {
				w.conn.Close()
			}
			return nil, fmt.Errorf("connection %d of %d: %w", i+1, cfg.conns, err)
		}
		conns[i] = &benchConn{id: i + 1, conn: c, limit: benchLimit(cfg, i)}
	}
	return conns, nil
}

// benchLimit returns the requests connection i (from 0) sends after the
// warmup: its share of -n, or -1 for no limit.
func benchLimit(cfg *benchConfig, i int) int64 {
	if cfg.requests == 0 {
		return -1
	}
	limit := cfg.requests / int64(cfg.conns)
	if int64(i) < cfg.requests%int64(cfg.conns) {
		limit++
	}
	return limit
}
