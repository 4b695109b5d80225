package server

import (
	"context"
	"runtime"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
)

// metrics are the server's Prometheus metrics. The generators' counters are
// read at scrape time (see collector), so issuing an ID costs no metric
// update; requests and connections are counted as they happen.
type metrics struct {
	requests    *prometheus.CounterVec
	batch       *prometheus.HistogramVec
	duration    *prometheus.HistogramVec
	open        prometheus.Gauge
	accepted    prometheus.Counter
	closedBy    *prometheus.CounterVec
	authFailure prometheus.Counter
	grpcHandled *prometheus.CounterVec
	tlsErrors   *prometheus.CounterVec

	// Children resolved once for the hot paths of the binary protocol,
	// HTTP's /v1/ids and gRPC.
	noeqOK       prometheus.Counter
	noeqBatch    prometheus.Observer
	noeqDuration prometheus.Observer
	httpOK       prometheus.Counter
	httpBatch    prometheus.Observer
	httpDuration prometheus.Observer
	grpcIDsOK    prometheus.Counter
	grpcStreamOK prometheus.Counter
	grpcBatch    prometheus.Observer
	grpcDuration prometheus.Observer
}

func newMetrics(s *Server, reg *prometheus.Registry, version, revision string) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "floe_requests_total",
			Help: "Requests by protocol (noeq, http, grpc), operation and outcome code.",
		}, []string{"proto", "op", "code"}),
		batch: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "floe_request_batch_size",
			Help:    "IDs asked for per request.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 255, 512, 1000},
		}, []string{"proto"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "floe_request_duration_seconds",
			Help:    "Time to issue the IDs of a request, waits for the clock and the reservation included.",
			Buckets: []float64{1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 5},
		}, []string{"proto"}),
		open: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "floe_connections", Help: "Open binary-protocol connections.",
		}),
		accepted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "floe_connections_accepted_total", Help: "Binary-protocol connections accepted.",
		}),
		closedBy: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "floe_connections_closed_total",
			Help: "Binary-protocol connections closed, by reason: eof, idle, auth_timeout, unauthorized, bad_request, limit (over the connection limit), clock, ceiling, time_exhausted, format, not_ready, shutdown, write, error; over TLS plaintext_on_tls, tls_on_plaintext, client_cert, tls_handshake (see floe_tls_errors_total).",
		}, []string{"reason"}),
		authFailure: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "floe_auth_failures_total", Help: "Connections, HTTP requests and gRPC calls refused for a missing or wrong token.",
		}),
		grpcHandled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "floe_grpc_server_handled_total",
			Help: "gRPC calls completed, by type (unary, server_stream, bidi_stream), service, method and status code name (OK, InvalidArgument, ...), as go-grpc-middleware's grpc_server_handled_total.",
		}, []string{"grpc_type", "grpc_service", "grpc_method", "grpc_code"}),
		tlsErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "floe_tls_errors_total",
			Help: "Connections closed for TLS, by listener (noeq, http, grpc) and reason: plaintext_on_tls (a plaintext client on a TLS port), tls_on_plaintext (a TLS client on a plaintext port), client_cert (a client certificate missing or refused), tls_handshake (any other failed handshake).",
		}, []string{"proto", "reason"}),
	}
	m.noeqOK = m.requests.WithLabelValues("noeq", "ids", "ok")
	m.noeqBatch = m.batch.WithLabelValues("noeq")
	m.noeqDuration = m.duration.WithLabelValues("noeq")
	m.httpOK = m.requests.WithLabelValues("http", "ids", "ok")
	m.httpBatch = m.batch.WithLabelValues("http")
	m.httpDuration = m.duration.WithLabelValues("http")
	m.grpcIDsOK = m.requests.WithLabelValues("grpc", "ids", "ok")
	m.grpcStreamOK = m.requests.WithLabelValues("grpc", "stream", "ok")
	m.grpcBatch = m.batch.WithLabelValues("grpc")
	m.grpcDuration = m.duration.WithLabelValues("grpc")
	if reg == nil {
		return m, nil
	}
	info := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "floe_build_info",
		Help:        "Always 1; the labels say which build runs.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision, "goversion": runtime.Version()},
	})
	info.Set(1)
	for _, c := range []prometheus.Collector{
		m.requests, m.batch, m.duration, m.open, m.accepted, m.closedBy, m.authFailure,
		m.grpcHandled, m.tlsErrors, info, collector{s},
	} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// request counts one request for n IDs of seq that started at start.
func (m *metrics) request(proto string, seq *sequence, n int, start time.Time, err error) {
	if err == nil && proto == "noeq" {
		m.noeqOK.Inc()
		m.noeqBatch.Observe(float64(n))
		m.noeqDuration.Observe(time.Since(start).Seconds())
		return
	}
	if err == nil && proto == "http" {
		m.httpOK.Inc()
		m.httpBatch.Observe(float64(n))
		m.httpDuration.Observe(time.Since(start).Seconds())
		return
	}
	m.requests.WithLabelValues(proto, "ids", codeOf(err)).Inc()
	m.batch.WithLabelValues(proto).Observe(float64(n))
	m.duration.WithLabelValues(proto).Observe(time.Since(start).Seconds())
}

// grpcIssued counts a gRPC request for n IDs that started at start: a
// call of Next (op ids) or a message of Stream (op stream).
func (m *metrics) grpcIssued(op string, n int, start time.Time, err error) {
	if err == nil {
		if op == "stream" {
			m.grpcStreamOK.Inc()
		} else {
			m.grpcIDsOK.Inc()
		}
	} else {
		m.requests.WithLabelValues("grpc", op, codeOf(err)).Inc()
	}
	m.grpcBatch.Observe(float64(n))
	m.grpcDuration.Observe(time.Since(start).Seconds())
}

// grpcUnary and grpcStream are the interceptors of the gRPC server: they
// count every call, health and reflection included, by its status code.
func (m *metrics) grpcUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	m.grpcHandledCall("unary", info.FullMethod, err)
	return resp, err
}

func (m *metrics) grpcStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	err := handler(srv, ss)
	typ := "server_stream"
	switch {
	case info.IsClientStream && info.IsServerStream:
		typ = "bidi_stream"
	case info.IsClientStream:
		typ = "client_stream"
	}
	m.grpcHandledCall(typ, info.FullMethod, err)
	return err
}

// grpcHandledCall counts a call of full, "/service/method", that ended
// with err.
func (m *metrics) grpcHandledCall(typ, full string, err error) {
	service, method, _ := strings.Cut(strings.TrimPrefix(full, "/"), "/")
	m.grpcHandled.WithLabelValues(typ, service, method, status.Code(err).String()).Inc()
}

func (m *metrics) grpcRequest(op, code string) { m.requests.WithLabelValues("grpc", op, code).Inc() }
func (m *metrics) httpRequest(op, code string) { m.requests.WithLabelValues("http", op, code).Inc() }
func (m *metrics) connOpened()                 { m.open.Inc(); m.accepted.Inc() }
func (m *metrics) authFailed()                 { m.authFailure.Inc() }

// connClosed counts a connection that was open.
func (m *metrics) connClosed(reason string) {
	m.open.Dec()
	m.closed(reason)
}

// closed counts a connection closed for reason.
func (m *metrics) closed(reason string) { m.closedBy.WithLabelValues(reason).Inc() }

// collector reads the sequences' counters and reservations at scrape time,
// from the plain Stats of their sequencers.
type collector struct{ s *Server }

var (
	descIssued = prometheus.NewDesc("floe_ids_generated_total",
		"IDs issued.", []string{"seq", "format"}, nil)
	descRegressions = prometheus.NewDesc("floe_clock_regressions_total",
		"Times the clock read behind the last tick issued.", []string{"seq", "policy"}, nil)
	descWaits = prometheus.NewDesc("floe_clock_waits_total",
		"Calls that waited for the clock (a regression under policy wait, or a spent sequence).", []string{"seq"}, nil)
	descWaitSeconds = prometheus.NewDesc("floe_clock_wait_seconds_total",
		"Time callers spent waiting for the clock.", []string{"seq"}, nil)
	descBorrowed = prometheus.NewDesc("floe_borrowed_ticks_total",
		"Ticks taken ahead of the clock (policy borrow).", []string{"seq"}, nil)
	descExhausted = prometheus.NewDesc("floe_sequence_exhausted_total",
		"Ticks whose sequence ran out while callers asked for more.", []string{"seq"}, nil)
	descCeilingHits = prometheus.NewDesc("floe_reservation_ceiling_hits_total",
		"Times a caller reached the reservation before the keeper extended it.", []string{"seq"}, nil)
	descBehind = prometheus.NewDesc("floe_clock_behind_seconds",
		"How far the clock reads behind the tick the sequence must issue above (the last tick issued, or the floor a start began above); 0 when it is not behind.", []string{"seq"}, nil)
	descHeadroom = prometheus.NewDesc("floe_reservation_headroom_seconds",
		"Time left between the clock and the end of the durable reservation.", []string{"seq"}, nil)
	descWrites = prometheus.NewDesc("floe_reservation_writes_total",
		"Durable writes of the reservation, by result (ok, error).", []string{"seq", "result"}, nil)
	descWorkerID = prometheus.NewDesc("floe_workerid",
		"The worker ID the sequence holds; -1 while it holds none.", []string{"seq"}, nil)
	descClaims = prometheus.NewDesc("floe_workerid_claims_total",
		"Worker IDs claimed.", []string{"seq"}, nil)
	descLost = prometheus.NewDesc("floe_workerid_lease_lost_total",
		"Worker-ID leases lost (expired, taken over, or a reservation of unknown result); issuing stopped each time until a new claim.", []string{"seq"}, nil)
	descReleased = prometheus.NewDesc("floe_workerid_released_total",
		"Worker IDs given up on purpose, by reason: detach (released by a detach) or destroy (ended with the sequence's destruction). No loss: floe_workerid_lease_lost_total leaves them out.", []string{"seq", "reason"}, nil)
	descExhaustion = prometheus.NewDesc("floe_epoch_exhaustion_timestamp_seconds",
		"When the sequence's format runs out of time, as a Unix time.", []string{"seq"}, nil)
	descReady = prometheus.NewDesc("floe_ready",
		"1 when the server can issue IDs from every sequence.", nil, nil)
)

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descIssued, descRegressions, descWaits, descWaitSeconds,
		descBorrowed, descExhausted, descCeilingHits, descBehind, descHeadroom, descWrites, descExhaustion, descReady, descWorkerID, descClaims, descLost, descReleased} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, seq := range c.s.seqs() {
		ss := seq.sq.Stats()
		st := ss.Generator
		counter(descIssued, float64(st.Issued), seq.name, string(seq.format))
		counter(descRegressions, float64(st.Regressions), seq.name, seq.policy.String())
		counter(descWaits, float64(st.Waits), seq.name)
		counter(descWaitSeconds, st.WaitTime.Seconds(), seq.name)
		counter(descBorrowed, float64(st.Borrowed), seq.name)
		counter(descExhausted, float64(st.Exhausted), seq.name)
		counter(descCeilingHits, float64(st.CeilingHits), seq.name)
		if ss.WorkerID >= 0 {
			gauge(descHeadroom, ss.Headroom.Seconds(), seq.name)
			gauge(descBehind, ss.Behind.Seconds(), seq.name)
		}
		gauge(descWorkerID, float64(ss.WorkerID), seq.name)
		counter(descClaims, float64(ss.Claims), seq.name)
		counter(descLost, float64(ss.Losses), seq.name)
		counter(descReleased, float64(ss.Detaches), seq.name, "detach")
		counter(descReleased, float64(ss.Destroys), seq.name, "destroy")
		counter(descWrites, float64(ss.Writes), seq.name, "ok")
		counter(descWrites, float64(ss.WriteErrors), seq.name, "error")
		gauge(descExhaustion, float64(seq.defn.End().Unix()), seq.name)
	}
	ready := 0.0
	if c.s.Ready() == nil {
		ready = 1
	}
	gauge(descReady, ready)
}
