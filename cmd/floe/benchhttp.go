package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
	"github.com/floeid/floe/sequencer"
)

// benchMaxHTTPBatch bounds -b over HTTP. floed's own bound, --max-http-ids
// (1000 by default), is usually lower: a request above it gets a 400 reply,
// which fails the connection.
const benchMaxHTTPBatch = 1 << 20

// benchKey is an ID of any format as two words: its big-endian bytes
// left-aligned in 128 bits (an id64 ID is hi). Keys compare as the IDs'
// bytes do: numerically for id64, in binary order, which is time order,
// for the other formats.
type benchKey struct{ hi, lo uint64 }

func (k benchKey) compare(o benchKey) int {
	switch {
	case k.hi != o.hi:
		if k.hi < o.hi {
			return -1
		}
		return 1
	case k.lo != o.lo:
		if k.lo < o.lo {
			return -1
		}
		return 1
	}
	return 0
}

// benchKeyOf returns the key of an ID's big-endian bytes b, at most 16.
func benchKeyOf(b []byte) benchKey {
	var full [16]byte
	copy(full[:], b)
	return benchKey{binary.BigEndian.Uint64(full[:8]), binary.BigEndian.Uint64(full[8:])}
}

// bytes returns the first n big-endian bytes of k.
func (k benchKey) bytes(n int) []byte {
	full := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, k.hi), k.lo)
	return full[:n]
}

// benchFormat is how a run over HTTP reads the IDs of its sequence.
type benchFormat struct {
	name  sequencer.Format
	seq   string        // the sequence's name
	epoch time.Time     // the start of tick 0
	unit  time.Duration // a tick
	// perTick is the most IDs one worker issues in a tick: the layout's
	// or the format's cap.
	perTick uint64
	// decode reads the text of an ID into its key and its tick.
	decode func(text []byte) (benchKey, uint64, error)
	// text returns the text of the ID of a key decode returned.
	text func(benchKey) string
	// Over gRPC (benchBinaryOf): tick64 returns the tick of an id64 ID,
	// and fromBytes reads the big-endian bytes of another format's ID.
	tick64    func(uint64) uint64
	fromBytes func([]byte) (benchKey, uint64, error)
}

// benchFormatOf returns the benchFormat of a sequence with definition d.
func benchFormatOf(seq string, d sequencer.Definition) (benchFormat, error) {
	f := benchFormat{name: d.Format, seq: seq, epoch: d.TickTime(0)}
	f.unit = d.TickTime(1).Sub(f.epoch)
	switch d.Format {
	case sequencer.Format64, "":
		l := d.Layout
		if l == (id64.Layout{}) {
			l = id64.Twitter
		}
		f.name = sequencer.Format64
		f.perTick = 1 << l.SequenceBits
		f.decode = func(text []byte) (benchKey, uint64, error) {
			var id id64.ID
			if err := id.UnmarshalText(text); err != nil {
				return benchKey{}, 0, err
			}
			return benchKey{hi: uint64(id)}, l.Parts(id).Tick, nil
		}
		f.text = func(k benchKey) string { return strconv.FormatUint(k.hi, 10) }
	case sequencer.Format80:
		f.perTick = id80.MaxSequence + 1
		f.decode = func(text []byte) (benchKey, uint64, error) {
			var id id80.ID
			if err := id.UnmarshalText(text); err != nil {
				return benchKey{}, 0, err
			}
			return benchKeyOf(id[:]), id.Parts().Timestamp, nil
		}
		f.text = func(k benchKey) string { return id80.ID(k.bytes(id80.Size)).String() }
	case sequencer.Format96:
		f.perTick = id96.MaxSequence + 1
		f.decode = func(text []byte) (benchKey, uint64, error) {
			var id id96.ID
			if err := id.UnmarshalText(text); err != nil {
				return benchKey{}, 0, err
			}
			return benchKeyOf(id[:]), id.Tick(), nil
		}
		f.text = func(k benchKey) string { return id96.ID(k.bytes(id96.Size)).String() }
	case sequencer.Format128:
		f.perTick = id128.MaxCounter + 1
		f.decode = func(text []byte) (benchKey, uint64, error) {
			var id id128.ID
			if err := id.UnmarshalText(text); err != nil {
				return benchKey{}, 0, err
			}
			return benchKeyOf(id[:]), id.Tick(), nil
		}
		f.text = func(k benchKey) string { return id128.ID(k.bytes(id128.Size)).String() }
	default:
		return benchFormat{}, fmt.Errorf("sequence %s: format %q unknown to this floe", seq, d.Format)
	}
	return f, nil
}

// tick returns the tick of f in which t lies.
func (f *benchFormat) tick(t time.Time) int64 {
	return t.Sub(f.epoch).Nanoseconds() / int64(f.unit)
}

// benchHTTPAddr returns the host:port of an -http value: host:port, or
// http://host:port or https://host:port with no path, and whether it is
// https.
func benchHTTPAddr(s string) (string, bool, error) {
	https := false
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		switch {
		case err != nil:
			return "", false, err
		case u.Scheme != "http" && u.Scheme != "https":
			return "", false, fmt.Errorf("%q: want host:port, http://host:port or https://host:port", s)
		case u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.User != nil:
			return "", false, fmt.Errorf("%q: want host:port or http://host:port, without a path, query or user", s)
		}
		s, https = u.Host, u.Scheme == "https"
	}
	if _, _, err := net.SplitHostPort(s); err != nil {
		return "", false, fmt.Errorf("%q: want host:port: %v", s, err)
	}
	return s, https, nil
}

// scheme is the run's URL scheme over HTTP.
func (cfg *benchConfig) scheme() string {
	if cfg.tls != nil {
		return "https"
	}
	return "http"
}

// target names the run's requests in its report.
func (cfg *benchConfig) target() string {
	u := cfg.scheme() + "://" + cfg.http + "/v1/ids"
	if cfg.seq != "" {
		u += "?seq=" + url.QueryEscape(cfg.seq)
	}
	return u
}

// benchSequences is the reply of GET /v1/sequences, as a run reads it.
type benchSequences struct {
	Sequences []struct {
		Name    string `json:"name"`
		Spec    string `json:"spec"`
		Default bool   `json:"default"`
	} `json:"sequences"`
}

// benchResolve asks the server at cfg.http for the sequence's definition,
// and sets cfg.format and cfg.request from it.
func benchResolve(cfg *benchConfig) error {
	client := &http.Client{Timeout: cfg.timeout}
	if cfg.tls != nil {
		client.Transport = &http.Transport{TLSClientConfig: cfg.tls.Clone()}
	}
	u := cfg.scheme() + "://" + cfg.http + "/v1/sequences"
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	if cfg.token != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", u, resp.Status, benchHTTPError(body))
	}
	var list benchSequences
	if err := json.Unmarshal(body, &list); err != nil {
		return fmt.Errorf("GET %s: not floed's list of sequences: %w", u, err)
	}
	var names []string
	for _, s := range list.Sequences {
		names = append(names, s.Name)
		if s.Name == cfg.seq || cfg.seq == "" && s.Default {
			d, err := sequencer.ParseSpec(s.Spec)
			if err != nil {
				return fmt.Errorf("sequence %s: %w", s.Name, err)
			}
			if cfg.format, err = benchFormatOf(s.Name, d); err != nil {
				return err
			}
			cfg.request = benchHTTPRequest(cfg)
			return nil
		}
	}
	if cfg.seq == "" {
		return fmt.Errorf("%s serves no default sequence (it serves %s)", cfg.http, strings.Join(names, ", "))
	}
	return fmt.Errorf("%s serves no sequence %q (it serves %s)", cfg.http, cfg.seq, strings.Join(names, ", "))
}

// benchHTTPRequest returns the request of a run: GET /v1/ids for -b IDs
// of the sequence, one a line, on a keep-alive connection.
func benchHTTPRequest(cfg *benchConfig) []byte {
	req := "GET " + benchHTTPPath(cfg) + " HTTP/1.1\r\nHost: " + cfg.http + "\r\nUser-Agent: floe-bench\r\nAccept: text/plain\r\n"
	if cfg.token != "" {
		req += "Authorization: Bearer " + cfg.token + "\r\n"
	}
	return []byte(req + "\r\n")
}

// benchHTTPPath is the path and query of a run's requests.
func benchHTTPPath(cfg *benchConfig) string {
	path := "/v1/ids?n=" + strconv.Itoa(cfg.batch)
	if cfg.seq != "" {
		path += "&seq=" + url.QueryEscape(cfg.seq)
	}
	return path
}

// benchNetHTTP returns a function that sends the run's request with
// net/http's client on the connection's own conn, as a Go program's
// would: a Transport whose one connection is conn, which it does not
// dial again.
func (w *benchConn) benchNetHTTP(cfg *benchConfig) (do func() (*http.Response, error), closeIdle func(), err error) {
	conn := w.conn
	dial := func(context.Context, string, string) (net.Conn, error) {
		if conn == nil {
			return nil, errors.New("the server closed the connection")
		}
		c := conn
		conn = nil
		return c, nil
	}
	tr := &http.Transport{MaxConnsPerHost: 1, DialContext: dial, DialTLSContext: dial}
	req, err := http.NewRequest(http.MethodGet, cfg.scheme()+"://"+cfg.http+benchHTTPPath(cfg), nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("User-Agent", "floe-bench")
	req.Header.Set("Accept", "text/plain")
	if cfg.token != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.token)
	}
	client := &http.Client{Transport: tr}
	return func() (*http.Response, error) { return client.Do(req) }, tr.CloseIdleConnections, nil
}

// benchHTTPError returns the message of an error reply's JSON body, or
// the body itself.
func benchHTTPError(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return e.Error
	}
	return strconv.Quote(string(bytes.TrimSpace(body)))
}

// benchDialHTTP resolves the run's sequence and opens its connections.
func benchDialHTTP(cfg *benchConfig) ([]*benchConn, error) {
	if err := benchResolve(cfg); err != nil {
		return nil, err
	}
	cfg.addr = cfg.http
	return benchDial(cfg)
}

// runHTTP sends requests for IDs over HTTP/1.1 on the connection, each
// once the reply to the one before has been read, until the run ends, the
// request limit is reached or the connection fails, then closes it. It
// writes a prepared request and reads the reply itself, or with -nethttp
// sends it with net/http's client.
func (w *benchConn) runHTTP(r *benchRun) {
	defer w.conn.Close()
	cfg := r.cfg
	br := bufio.NewReaderSize(w.conn, 64<<10)
	do := func() (*http.Response, error) {
		if _, err := w.conn.Write(cfg.request); err != nil {
			return nil, err
		}
		return http.ReadResponse(br, nil)
	}
	if cfg.netHTTP {
		var closeIdle func()
		var err error
		if do, closeIdle, err = w.benchNetHTTP(cfg); err != nil {
			w.fail(r, err)
			return
		}
		defer closeIdle()
	}
	var body bytes.Buffer
	end := time.Duration(math.MaxInt64)
	if cfg.duration > 0 {
		end = cfg.warmup + cfg.duration
	}
	left := w.limit
	var refresh time.Duration
	closed := false // the server said it closes the connection
	for {
		now := time.Since(r.start)
		if now >= end || left == 0 || r.stop.Load() {
			return
		}
		if closed {
			w.fail(r, io.EOF)
			return
		}
		if now >= refresh {
			if err := w.conn.SetDeadline(r.start.Add(now + cfg.timeout)); err != nil {
				w.fail(r, err)
				return
			}
			refresh = now + cfg.timeout/4
		}
		if left > 0 && now >= cfg.warmup {
			left--
		}
		resp, err := do()
		if err == nil {
			body.Reset()
			_, err = body.ReadFrom(resp.Body)
			resp.Body.Close()
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF
			}
			w.fail(r, err)
			return
		}
		done := time.Since(r.start)
		if resp.StatusCode != http.StatusOK {
			w.fail(r, fmt.Errorf("HTTP %s: %s", resp.Status, benchHTTPError(body.Bytes())))
			return
		}
		if err := w.replyHTTP(body.Bytes(), r, now, done); err != nil {
			w.fail(r, err)
			return
		}
		w.completed.Add(1)
		closed = resp.Close
	}
}

// replyHTTP decodes and checks the IDs of one reply, one a line, and times
// it and the lag of its IDs' time when its request was sent after the
// warmup.
func (w *benchConn) replyHTTP(b []byte, r *benchRun, sentAt, done time.Duration) error {
	cfg := r.cfg
	f := &cfg.format
	measured := sentAt >= cfg.warmup
	sendTick := f.tick(r.start.Add(sentAt))
	n := 0
	for len(b) > 0 {
		line, rest, ok := bytes.Cut(b, []byte{'\n'})
		if !ok {
			return fmt.Errorf("a reply ends without a newline: %q", benchClip(line))
		}
		b = rest
		k, tick, err := f.decode(line)
		if err != nil {
			return fmt.Errorf("a reply's ID %d: %w", n+1, err)
		}
		n++
		w.checkKey(r, k, tick, measured, sendTick)
	}
	return w.counted(n, cfg.batch, measured, sentAt, done)
}

// counted checks that a reply of the HTTP or gRPC mode, sent at sentAt
// and received at done, held the batch of want IDs it asked for, n, and
// counts it once past the warm-up.
func (w *benchConn) counted(n, want int, measured bool, sentAt, done time.Duration) error {
	if n != want {
		return fmt.Errorf("a reply of %d IDs, want %d", n, want)
	}
	if measured {
		w.requests++
		w.hist.record(done - sentAt)
		w.lastReply = done
	}
	return nil
}

// checkKey checks the ID of key k and tick against the one before it on
// the connection, keeps it when checking uniqueness, and counts its lag
// behind sendTick when measured.
func (w *benchConn) checkKey(r *benchRun, k benchKey, tick uint64, measured bool, sendTick int64) {
	if w.received > 0 && k.compare(w.lastKey) <= 0 {
		if w.violations == 0 {
			w.violationKey = [2]benchKey{w.lastKey, k}
		}
		w.violations++
	}
	w.lastKey = k
	w.received++
	if r.cfg.check {
		w.keep(k)
	}
	if measured {
		w.lag.count(sendTick - int64(tick))
	}
}

// keep adds k to the connection's ID store.
func (w *benchConn) keep(k benchKey) {
	last := len(w.keys) - 1
	if last < 0 || len(w.keys[last]) == cap(w.keys[last]) {
		w.keys = append(w.keys, make([]benchKey, 0, benchChunkIDs))
		last++
	}
	w.keys[last] = append(w.keys[last], k)
}

// benchClip shortens b for an error message.
func benchClip(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}
