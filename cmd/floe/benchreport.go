package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// benchResult is the outcome of a run of "floe bench", and the object that
// -o json prints. IDs are decimal strings, as everywhere in floe's JSON.
type benchResult struct {
	Target string `json:"target"`
	// Format and Sequence name the sequence of a run over HTTP (-http)
	// or gRPC (-grpc); the binary protocol's reports leave them out.
	Format      string `json:"format,omitempty"`
	Sequence    string `json:"seq,omitempty"`
	Connections int    `json:"connections"`
	Pipeline    int    `json:"pipeline"`
	Batch       int    `json:"batch"`
	// Duration runs from the end of the warmup to the last reply to a
	// request sent after it.
	Duration    benchSeconds `json:"duration_seconds"`
	Warmup      benchSeconds `json:"warmup_seconds"`
	Interrupted bool         `json:"interrupted"`
	// Requests counts the requests sent after the warmup and answered;
	// IDs is Requests × Batch.
	Requests     uint64  `json:"requests"`
	IDs          uint64  `json:"ids"`
	IDsPerSecond float64 `json:"ids_per_second"`
	// CapIDsPerSecond is the most IDs a second one worker of the layout
	// (or format) issues; CapPercent is IDsPerSecond as a share of it.
	CapIDsPerSecond   float64      `json:"cap_ids_per_second"`
	CapPercent        float64      `json:"cap_percent"`
	RequestsPerSecond float64      `json:"requests_per_second"`
	Latency           benchLatency `json:"latency_seconds"`
	// TimeLag is the lag of the IDs' time behind their request's send
	// (see runBench), in ticks of TickSeconds; StaleIDs counts the IDs
	// whose time is a tick before their request's send.
	TimeLag     benchTimeLag `json:"time_lag_ticks"`
	TickSeconds float64      `json:"tick_seconds"`
	StaleIDs    uint64       `json:"stale_ids"`
	// IDsChecked counts every ID received, warmup included. All are
	// checked for order on their connection, and for uniqueness over all
	// connections when UniqueChecked.
	UniqueChecked   bool            `json:"unique_checked"`
	IDsChecked      uint64          `json:"ids_checked"`
	Duplicates      uint64          `json:"duplicates"` // each extra copy of an ID counts
	FirstDuplicate  string          `json:"first_duplicate,omitempty"`
	OrderViolations uint64          `json:"order_violations"` // IDs not greater than the one before on their connection
	FirstViolation  *benchViolation `json:"first_order_violation,omitempty"`
	Errors          []string        `json:"errors"` // one per failed connection
}

// benchLatency holds latency quantiles, from the merged histograms.
type benchLatency struct {
	P50  benchSeconds `json:"p50"`
	P99  benchSeconds `json:"p99"`
	P999 benchSeconds `json:"p999"`
	Max  benchSeconds `json:"max"`
}

// benchTimeLag holds quantiles of the IDs' time lag, in ticks.
type benchTimeLag struct {
	Min int64 `json:"min"`
	P50 int64 `json:"p50"`
	P99 int64 `json:"p99"`
	Max int64 `json:"max"`
}

// benchViolation is an ID that was not greater than the one before it.
type benchViolation struct {
	Conn   int    `json:"conn"`
	Before string `json:"before"`
	ID     string `json:"id"`
}

// benchSeconds is a duration that is a number of seconds in JSON.
type benchSeconds time.Duration

func (s benchSeconds) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(s).Seconds())
}

// benchCollect merges the results of the connections of a run and checks
// the IDs for duplicates.
func benchCollect(cfg *benchConfig, conns []*benchConn) *benchResult {
	res := &benchResult{
		Target:        cfg.addr,
		Format:        string(cfg.format.name),
		Sequence:      cfg.format.seq,
		Connections:   cfg.conns,
		Pipeline:      cfg.pipeline,
		Batch:         cfg.batch,
		Warmup:        benchSeconds(cfg.warmup),
		UniqueChecked: cfg.check,
		Errors:        []string{},
	}
	hist, lag := new(benchHist), new(benchLag)
	var last time.Duration
	for _, w := range conns {
		hist.merge(&w.hist)
		lag.merge(&w.lag)
		res.Requests += w.requests
		res.IDsChecked += w.received
		res.OrderViolations += w.violations
		if w.violations > 0 && res.FirstViolation == nil {
			res.FirstViolation = &benchViolation{
				Conn:   w.id,
				Before: strconv.FormatUint(w.violation[0], 10),
				ID:     strconv.FormatUint(w.violation[1], 10),
			}
			if cfg.keyed() {
				res.FirstViolation.Before = cfg.format.text(w.violationKey[0])
				res.FirstViolation.ID = cfg.format.text(w.violationKey[1])
			}
		}
		last = max(last, w.lastReply)
		if w.err != nil {
			res.Errors = append(res.Errors, w.err.Error())
		}
	}
	res.IDs = res.Requests * uint64(cfg.batch)
	if res.Requests > 0 && last > cfg.warmup {
		d := last - cfg.warmup
		res.Duration = benchSeconds(d)
		res.RequestsPerSecond = float64(res.Requests) / d.Seconds()
		res.IDsPerSecond = float64(res.IDs) / d.Seconds()
	}
	res.Latency = benchLatency{
		P50:  benchSeconds(hist.quantile(500)),
		P99:  benchSeconds(hist.quantile(990)),
		P999: benchSeconds(hist.quantile(999)),
		Max:  benchSeconds(hist.max),
	}
	res.TimeLag = benchTimeLag{Min: lag.min, P50: lag.quantile(500), P99: lag.quantile(990), Max: lag.max}
	res.StaleIDs = lag.stale
	unit, perTick := cfg.layout.Unit, uint64(1)<<cfg.layout.SequenceBits
	switch {
	case cfg.http != "":
		res.Target = cfg.target()
	case cfg.grpc != "":
		res.Target = cfg.grpcTarget()
	}
	if cfg.keyed() {
		unit, perTick = cfg.format.unit, cfg.format.perTick
	}
	res.TickSeconds = unit.Seconds()
	if unit > 0 && perTick > 0 {
		res.CapIDsPerSecond = float64(perTick) / unit.Seconds()
		res.CapPercent = 100 * res.IDsPerSecond / res.CapIDsPerSecond
	}
	switch {
	case !cfg.check:
	case cfg.keyed():
		var first benchKey
		res.Duplicates, first = benchKeyDuplicates(conns)
		if res.Duplicates > 0 {
			res.FirstDuplicate = cfg.format.text(first)
		}
	default:
		var first uint64
		res.Duplicates, first = benchDuplicates(conns)
		if res.Duplicates > 0 {
			res.FirstDuplicate = strconv.FormatUint(first, 10)
		}
	}
	return res
}

// keyed reports whether the run's IDs are keys: over HTTP or gRPC, for a
// sequence of any format.
func (cfg *benchConfig) keyed() bool { return cfg.http != "" || cfg.grpc != "" }

// err summarizes what went wrong in the run, or returns nil.
func (res *benchResult) err() error {
	var what []string
	if res.Duplicates > 0 {
		what = append(what, fmt.Sprintf("%d duplicate IDs", res.Duplicates))
	}
	if res.OrderViolations > 0 {
		what = append(what, fmt.Sprintf("%d order violations", res.OrderViolations))
	}
	if len(res.Errors) > 0 {
		what = append(what, fmt.Sprintf("%d of %d connections failed", len(res.Errors), res.Connections))
	}
	if what == nil {
		return nil
	}
	return errors.New(strings.Join(what, ", "))
}

// writeText writes the report in the format documented on runBench.
func (res *benchResult) writeText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	line := func(key, format string, args ...any) {
		fmt.Fprintf(bw, "%-12s "+format+"\n", append([]any{key + ":"}, args...)...)
	}
	line("target", "%s", res.Target)
	if res.Format != "" {
		line("format", "%s (sequence %s)", res.Format, res.Sequence)
	}
	line("connections", "%d (pipeline %d)", res.Connections, res.Pipeline)
	line("batch", "%d", res.Batch)
	var notes []string
	if res.Warmup > 0 {
		notes = append(notes, fmt.Sprintf("after %v warmup", time.Duration(res.Warmup)))
	}
	if res.Interrupted {
		notes = append(notes, "interrupted")
	}
	note := ""
	if notes != nil {
		note = " (" + strings.Join(notes, ", ") + ")"
	}
	line("duration", "%v%s", time.Duration(res.Duration).Round(time.Millisecond), note)
	line("requests", "%d", res.Requests)
	line("IDs", "%d", res.IDs)
	line("IDs/s", "%.0f", res.IDsPerSecond)
	if res.CapIDsPerSecond > 0 {
		line("cap", "%.1f%% of %.0f IDs/s", res.CapPercent, res.CapIDsPerSecond)
	}
	line("requests/s", "%.0f", res.RequestsPerSecond)
	l := res.Latency
	line("latency", "p50 %v p99 %v p999 %v max %v", benchRound(l.P50), benchRound(l.P99), benchRound(l.P999), benchRound(l.Max))
	tl := res.TimeLag
	line("time lag", "p50 %d p99 %d max %d ticks of %v; %d IDs name a tick before their request's send", tl.P50, tl.P99, tl.Max,
		time.Duration(res.TickSeconds*float64(time.Second)), res.StaleIDs)
	if res.UniqueChecked {
		line("unique", "%d IDs checked, %d duplicates, %d order violations", res.IDsChecked, res.Duplicates, res.OrderViolations)
	} else {
		line("unique", "not checked (-check=false); %d IDs checked for order, %d order violations", res.IDsChecked, res.OrderViolations)
	}
	if res.FirstDuplicate != "" {
		fmt.Fprintf(bw, "  first duplicate: %s\n", res.FirstDuplicate)
	}
	if v := res.FirstViolation; v != nil {
		fmt.Fprintf(bw, "  first order violation: conn %d, %s after %s\n", v.Conn, v.ID, v.Before)
	}
	if len(res.Errors) > 0 {
		line("errors", "%d of %d connections failed", len(res.Errors), res.Connections)
		for _, e := range res.Errors {
			fmt.Fprintf(bw, "  %s\n", e)
		}
	}
	return bw.Flush()
}

// benchRound rounds d to 3 significant digits, the precision of the
// histogram.
func benchRound(s benchSeconds) time.Duration {
	d := time.Duration(s)
	unit := time.Duration(1)
	for d >= 1000*unit {
		unit *= 10
	}
	return d.Round(unit)
}

// benchDuplicates counts the IDs received more than once over all
// connections, each extra copy counting once, and returns the first (the
// least) of them. It merges the connections' ID sequences, which are
// increasing but for those with order violations: those it sorts first.
func benchDuplicates(conns []*benchConn) (dups, first uint64) {
	seqs := make([]benchSeq[uint64], len(conns))
	for i, w := range conns {
		seqs[i] = benchSeq[uint64]{w.ids, w.violations > 0}
	}
	return benchMergeDuplicates(seqs, cmp.Compare[uint64])
}

// benchKeyDuplicates is benchDuplicates for the IDs of a run over HTTP.
func benchKeyDuplicates(conns []*benchConn) (dups uint64, first benchKey) {
	seqs := make([]benchSeq[benchKey], len(conns))
	for i, w := range conns {
		seqs[i] = benchSeq[benchKey]{w.keys, w.violations > 0}
	}
	return benchMergeDuplicates(seqs, benchKey.compare)
}

// benchSeq is the IDs of one connection, in blocks, and whether they are
// out of order somewhere.
type benchSeq[T any] struct {
	blocks    [][]T
	unordered bool
}

// benchMergeDuplicates counts the IDs that come more than once in seqs,
// ordered by compare, each extra copy counting once, and returns the least
// of them.
func benchMergeDuplicates[T comparable](seqs []benchSeq[T], compare func(a, b T) int) (dups uint64, first T) {
	h := make([]benchCursor[T], 0, len(seqs))
	for _, s := range seqs {
		blocks := s.blocks
		if s.unordered {
			all := slices.Concat(blocks...)
			slices.SortFunc(all, compare)
			blocks = [][]T{all}
		}
		if c := (benchCursor[T]{blocks: blocks}); c.next() {
			h = append(h, c)
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		benchSiftDown(h, i, compare)
	}
	var prev T
	for seen := false; len(h) > 0; seen = true {
		v := h[0].v
		if seen && v == prev {
			if dups == 0 {
				first = v
			}
			dups++
		}
		prev = v
		if !h[0].next() {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		benchSiftDown(h, 0, compare)
	}
	return dups, first
}

// benchCursor walks the increasing IDs of one connection, v being the
// current one.
type benchCursor[T any] struct {
	blocks [][]T
	b, i   int
	v      T
}

// next moves to the next ID and reports whether there was one.
func (c *benchCursor[T]) next() bool {
	for ; c.b < len(c.blocks); c.b, c.i = c.b+1, 0 {
		if block := c.blocks[c.b]; c.i < len(block) {
			c.v = block[c.i]
			c.i++
			return true
		}
	}
	return false
}

// benchSiftDown restores the min-heap order of h below i, by current ID.
func benchSiftDown[T any](h []benchCursor[T], i int, compare func(a, b T) int) {
	for {
		least := i
		if l := 2*i + 1; l < len(h) && compare(h[l].v, h[least].v) < 0 {
			least = l
		}
		if r := 2*i + 2; r < len(h) && compare(h[r].v, h[least].v) < 0 {
			least = r
		}
		if least == i {
			return
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
}

// benchShowProgress redraws a progress line on w until finished closes,
// then erases it.
func benchShowProgress(w io.Writer, r *benchRun, conns []*benchConn, finished <-chan struct{}) {
	tick := time.NewTicker(benchProgressEvery)
	defer tick.Stop()
	var prev uint64
	var prevAt time.Duration
	for {
		select {
		case <-finished:
			fmt.Fprint(w, "\r\x1b[K")
			return
		case <-tick.C:
		}
		now := time.Since(r.start)
		var total uint64
		for _, c := range conns {
			total += c.completed.Load()
		}
		rate := float64(total-prev) / (now - prevAt).Seconds()
		prev, prevAt = total, now
		fmt.Fprintf(w, "\r\x1b[K%s", benchProgressLine(now, r.cfg, rate, r.failed.Load()))
	}
}

// benchProgressLine is the progress line after elapsed, at reqRate
// requests/s over the last interval.
func benchProgressLine(elapsed time.Duration, cfg *benchConfig, reqRate float64, failed int64) string {
	s := fmt.Sprintf("%v  %s req/s  %s IDs/s", elapsed.Round(100*time.Millisecond), benchSI(reqRate), benchSI(reqRate*float64(cfg.batch)))
	if elapsed < cfg.warmup {
		s += "  (warmup)"
	}
	if failed > 0 {
		s += fmt.Sprintf("  %d of %d connections failed", failed, cfg.conns)
	}
	return s
}

// benchSI formats x with about 3 significant digits and an SI prefix:
// 16.1k, 4.10M.
func benchSI(x float64) string {
	prefix := ""
	for _, p := range []string{"k", "M", "G"} {
		if x < 999.5 {
			break
		}
		x, prefix = x/1000, p
	}
	switch {
	case x >= 99.95:
		return fmt.Sprintf("%.0f%s", x, prefix)
	case x >= 9.995:
		return fmt.Sprintf("%.1f%s", x, prefix)
	}
	return fmt.Sprintf("%.2f%s", x, prefix)
}
