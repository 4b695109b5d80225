package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id64"
)

// Handler returns the HTTP API:
//
//	GET /v1/ids?n=&seq=       n new IDs (JSON {"seq","format","ids":[...]},
//	                          or one per line with Accept: text/plain)
//	GET /v1/inspect/{id}?seq=&layout=
//	                          the ID's parts and time, in the sequence's
//	                          format and layout, or in layout (id64 only)
//	GET /v1/range?time=&to=&seq=&layout=
//	                          the smallest and largest id64 ID from time's
//	                          tick to to's (default: time's)
//	GET /v1/sequences         the sequences and their reservations
//	GET /healthz              200 while the process runs
//	GET /readyz               200 when every sequence can issue, else 503
//	GET /metrics              Prometheus metrics, when a Registry is set
//	/v1/admin/...             named sequences and attachment (see adminRoutes)
//
// Every GET route answers HEAD too. A sequence with tokens requires one as
// "Authorization: Bearer <token>". Errors are JSON {"error": "...", "code":
// "..."} with a matching status, unknown paths and methods included (see
// router). With Config.HTTPClientCert, a request without a verified
// client certificate gets 403 client_cert_required, but on /healthz and
// /readyz. For HTTPS, serve it on a tls.NewListener; for plain text, on
// PlaintextListener; with ErrorLog set to HTTPErrorLog.
func (s *Server) Handler() http.Handler {
	rt := newRouter(s.m.httpRequest)
	rt.handle("GET /v1/ids", "ids", s.handleIDs, "n", "seq")
	rt.handle("GET /v1/inspect/{id}", "inspect", s.handleInspect, "seq", "layout")
	rt.handle("GET /v1/range", "range", s.handleRange, "time", "to", "seq", "layout")
	rt.handleFunc("GET /v1/sequences", "sequences", s.handleSequences)
	rt.handleFunc("GET /healthz", "", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	rt.handleFunc("GET /readyz", "", s.handleReady)
	s.adminRoutes(rt)
	if s.cfg.Registry != nil {
		h := promhttp.HandlerFor(s.cfg.Registry, promhttp.HandlerOpts{Registry: s.cfg.Registry})
		rt.handleFunc("GET /metrics", "", h.ServeHTTP)
	}
	if s.cfg.HTTPClientCert {
		return s.requireClientCert(rt)
	}
	return rt
}

// httpError is the JSON body of an error reply.
type httpError struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, status, httpError{Error: msg, Code: code})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // the API's JSON is not for HTML: & stays &
	enc.Encode(v)
}

// authorize checks the bearer token of a request for seq.
func authorize(r *http.Request, seq *sequence) bool {
	if !seq.locked() {
		return true
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && seq.hasToken([]byte(token))
}

// lookup resolves the request's sequence, named by the parameter seq, and checks its
// token, writing the error reply when it fails.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request, op string, q query) *sequence {
	name, given := q.get("seq")
	if given && name == "" {
		s.m.httpRequest(op, "bad_request")
		writeError(w, http.StatusBadRequest, "bad_request", `seq is empty: name a sequence, or leave seq out for the default one`)
		return nil
	}
	seq, err := s.sequence(name)
	if err != nil {
		s.m.httpRequest(op, "unknown_sequence")
		writeError(w, http.StatusNotFound, "unknown_sequence", err.Error())
		return nil
	}
	if !authorize(r, seq) {
		s.m.httpRequest(op, "unauthorized")
		s.m.authFailed()
		w.Header().Set("WWW-Authenticate", `Bearer realm="floe"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", "sequence "+seq.name+" requires a token")
		return nil
	}
	return seq
}

// parseCount reads v, a count of 1..max in ASCII decimal digits: no sign,
// space or other base.
func parseCount(v string, max int) (int, bool) {
	if v == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(v); i++ {
		d := v[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + int(d)
		if n > max {
			return 0, false
		}
	}
	return n, n >= 1
}

func (s *Server) handleIDs(w http.ResponseWriter, r *http.Request, q query) {
	seq := s.lookup(w, r, "ids", q)
	if seq == nil {
		return
	}
	n := 1
	if v, given := q.get("n"); given {
		var ok bool
		if n, ok = parseCount(v, s.cfg.MaxHTTPCount); !ok {
			s.m.httpRequest("ids", "bad_request")
			writeError(w, http.StatusBadRequest, "bad_request", "n must be a count of 1.."+strconv.Itoa(s.cfg.MaxHTTPCount)+", not "+strconv.Quote(v))
			return
		}
	}
	text := strings.Contains(r.Header.Get("Accept"), "text/plain")
	if r.Method == http.MethodHead {
		s.headIDs(w, seq, text)
		return
	}
	if !s.begin() {
		s.m.httpRequest("ids", "shutdown")
		writeError(w, http.StatusServiceUnavailable, "shutdown", "the server is shutting down")
		return
	}
	start := time.Now()
	wait := waiter{s: s, arrival: start, client: r.Context()}
	buf := replyBufs.Get().(*replyBuf)
	defer buf.free()
	var err error
	if seq.format == Format64 {
		// The IDs first, in runs of a tick each, then their text.
		buf.ids = slices.Grow(buf.ids[:0], n)[:n]
		err = seq.fill64(buf.ids, &wait)
	} else if text {
		buf.body, err = seq.appendText(slices.Grow(buf.body[:0], n*(seq.textLen()+1)), n, appendLine, &wait)
	} else {
		body := idsJSONHead(slices.Grow(buf.body[:0], 48+len(seq.name)+n*(seq.textLen()+3)), seq)
		buf.body, err = seq.appendText(body, n, appendQuoted, &wait)
	}
	wait.done()
	s.end()
	s.m.request("http", seq, n, start, err)
	if err != nil {
		status, code := statusOf(err)
		writeError(w, status, code, err.Error())
		return
	}
	if seq.format == Format64 {
		writeIDs64(w, seq, buf, text)
		return
	}
	if !text {
		buf.body = append(buf.body[:len(buf.body)-1], "]}\n"...) // the last comma
	}
	h := idsHeader(w, text)
	h["Content-Length"] = []string{strconv.Itoa(len(buf.body))}
	w.Write(buf.body)
}

// streamIDs is the fewest IDs of a reply written in two parts by
// writeIDs64, and firstIDs about how many the first part holds: with the
// headers, less than the 4 KiB an http.Server buffers.
const (
	streamIDs = 400
	firstIDs  = 160
)

// writeIDs64 writes the reply of buf.ids, id64 IDs, as text or JSON. When
// they are one run of consecutive numbers with as many digits each, as the
// IDs of one tick are, the reply's length is known before its text is
// written: the first part of a long reply is then sent while the rest is
// written, so that the client reads the one as the server writes the
// other.
func writeIDs64(w http.ResponseWriter, seq *sequence, buf *replyBuf, text bool) {
	ids := buf.ids
	open, end, tail := `"`, `",`, "]}\n" // the tail replaces the last comma
	trim := 1
	body := buf.body[:0]
	if text {
		open, end, tail, trim = "", "\n", "", 0
	} else {
		body = idsJSONHead(body, seq)
	}
	h := idsHeader(w, text)
	n := len(ids)
	first := uint64(ids[0])
	digits := decimalLen(first)
	flusher, canFlush := w.(http.Flusher)
	if !canFlush || n < streamIDs || runLen(ids) != n-1 || decimalLen(uint64(ids[n-1])) != digits {
		body = appendDecimals(body, ids, open, end)
		buf.body = append(body[:len(body)-trim], tail...)
		h["Content-Length"] = []string{strconv.Itoa(len(buf.body))}
		w.Write(buf.body)
		return
	}
	size := len(open) + digits + len(end)
	h["Content-Length"] = []string{strconv.Itoa(len(body) + n*size - trim + len(tail))}
	k := int((first+firstIDs)/100*100 - first) // the first part ends before a multiple of 100
	body = appendRun(body, first, k, open, end)
	w.Write(body)
	flusher.Flush()
	body = appendRun(body[:0], first+uint64(k), n-k, open, end)
	buf.body = append(body[:len(body)-trim], tail...)
	w.Write(buf.body)
}

// idsJSONHead appends the start of a JSON reply of seq's IDs to dst, up to
// the array's first element.
func idsJSONHead(dst []byte, seq *sequence) []byte {
	dst = append(dst, `{"seq":`...)
	dst = strconv.AppendQuote(dst, seq.name)
	dst = append(dst, `,"format":"`...)
	dst = append(dst, seq.format...)
	return append(dst, `","ids":[`...)
}

// appendLine and appendQuoted append the text of an ID to a reply: as a
// line, or as a JSON string and a comma.
func appendLine(dst, id []byte) []byte   { return append(append(dst, id...), '\n') }
func appendQuoted(dst, id []byte) []byte { return append(append(append(dst, '"'), id...), '"', ',') }

// replyBuf holds the memory of a reply of IDs, reused from one request to
// another: the body, and the id64 IDs before their text.
type replyBuf struct {
	body []byte
	ids  []id64.ID
}

var replyBufs = sync.Pool{New: func() any { return new(replyBuf) }}

// maxPooledReply bounds the body a replyBuf keeps for the next request, so
// that a rare large reply does not hold its memory: 256 KiB holds a body
// of 10,000 id64 IDs.
const maxPooledReply = 256 << 10

// free returns b to the pool, once the reply is written.
func (b *replyBuf) free() {
	if cap(b.body) > maxPooledReply || cap(b.ids) > maxPooledReply/8 {
		return
	}
	replyBufs.Put(b)
}

// Header values that replies share, each a slice of one value with no
// room to append in place: a Header.Add makes a new one.
var (
	headerJSON    = []string{"application/json"}[:1:1]
	headerText    = []string{"text/plain; charset=utf-8"}[:1:1]
	headerNoStore = []string{"no-store"}[:1:1]
)

// idsHeader sets the headers of a reply of IDs, as text or JSON, and
// returns them.
func idsHeader(w http.ResponseWriter, text bool) http.Header {
	h := w.Header()
	if text {
		h["Content-Type"] = headerText
	} else {
		h["Content-Type"] = headerJSON
	}
	h["Cache-Control"] = headerNoStore
	return h
}

// headIDs answers a HEAD of /v1/ids as a GET would, but without issuing
// IDs that nobody would read: 200 when seq is ready (as /readyz), and
// otherwise the error a GET would meet.
func (s *Server) headIDs(w http.ResponseWriter, seq *sequence, text bool) {
	if s.closing.Load() {
		s.m.httpRequest("ids", "shutdown")
		writeError(w, http.StatusServiceUnavailable, "shutdown", "the server is shutting down")
		return
	}
	if err := seq.ready(); err != nil {
		status, code := statusOf(err)
		s.m.httpRequest("ids", code)
		writeError(w, status, code, err.Error())
		return
	}
	idsHeader(w, text)
	w.WriteHeader(http.StatusOK)
}

func (s *Server) handleInspect(w http.ResponseWriter, r *http.Request, q query) {
	seq := s.lookup(w, r, "inspect", q)
	if seq == nil {
		return
	}
	sc := seq.sc
	if text, given := q.get("layout"); given {
		if seq.format != Format64 {
			s.m.httpRequest("inspect", "bad_request")
			writeError(w, http.StatusBadRequest, "bad_request", "layout is for id64 sequences only; sequence "+seq.name+" is "+string(seq.format))
			return
		}
		l, err := id64.ParseLayout(text)
		if err != nil {
			s.m.httpRequest("inspect", "bad_request")
			writeError(w, http.StatusBadRequest, "bad_request", "layout: "+err.Error())
			return
		}
		sc.Layout = l
	}
	parts, err := inspect(sc, r.PathValue("id"))
	if err != nil {
		s.m.httpRequest("inspect", "bad_request")
		writeError(w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	s.m.httpRequest("inspect", "ok")
	writeJSON(w, http.StatusOK, struct {
		Seq    string `json:"seq"`
		Format Format `json:"format"`
		Parts  any    `json:"parts"`
	}{seq.name, seq.format, parts})
}

// sequenceInfo describes a sequence in /v1/sequences.
type sequenceInfo struct {
	Name         string    `json:"name"`
	Format       Format    `json:"format"`
	Definition   string    `json:"definition,omitempty"`
	Spec         string    `json:"spec"`
	WorkerID     int       `json:"worker_id"`
	Default      bool      `json:"default"`
	Auth         bool      `json:"auth"`
	Reserved     uint64    `json:"reserved"`
	ReservedTime time.Time `json:"reserved_time,omitzero"`
	LastTick     uint64    `json:"last_tick"`
	Ready        bool      `json:"ready"`
	Reason       string    `json:"reason,omitempty"`
}

func (s *Server) handleSequences(w http.ResponseWriter, r *http.Request) {
	seqs := s.seqs()
	list := make([]sequenceInfo, 0, len(seqs))
	for i, seq := range seqs {
		wid, rr, last := seq.info()
		info := sequenceInfo{
			Name: seq.name, Format: seq.format, Definition: seq.def, Spec: seq.spec, Default: i == 0,
			Auth: seq.locked(), WorkerID: wid, Reserved: rr,
			LastTick: last, Ready: seq.ready() == nil && !s.closing.Load(),
		}
		if !seq.static {
			info.Definition = "" // the node comes from the claimed worker ID
		}
		if wid >= 0 {
			info.ReservedTime = seq.defn.TickTime(rr + 1).UTC()
		}
		if err := seq.ready(); err != nil {
			info.Reason = err.Error()
		}
		list = append(list, info)
	}
	s.m.httpRequest("sequences", "ok")
	writeJSON(w, http.StatusOK, struct {
		Sequences []sequenceInfo `json:"sequences"`
	}{list})
}

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err := s.Ready(); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(err.Error() + "\n"))
		return
	}
	w.Write([]byte("ready\n"))
}

// codeOf names the outcome of err for metrics and logs.
func codeOf(err error) string {
	var ce *floe.ClockError
	var ceil *floe.CeilingError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &ce):
		return "clock"
	case errors.As(err, &ceil):
		return "ceiling"
	case errors.Is(err, floe.ErrTimeExhausted):
		return "time_exhausted"
	case errors.Is(err, ErrBinaryFormat):
		return "format"
	case errors.Is(err, errShuttingDown):
		return "shutdown"
	case errors.Is(err, errClientGone):
		return "client_gone"
	case errors.Is(err, ErrNotReady):
		return "not_ready"
	}
	return "error"
}

// statusOf maps an issuing error to an HTTP status and code, in one table.
func statusOf(err error) (int, string) {
	code := codeOf(err)
	switch code {
	case "clock", "ceiling", "not_ready", "shutdown", "client_gone":
		return http.StatusServiceUnavailable, code
	case "time_exhausted":
		return http.StatusGone, code
	}
	return http.StatusInternalServerError, code
}
