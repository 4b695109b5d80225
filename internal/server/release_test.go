package server

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid/workeridtest"
)

// gatheredSeq returns the value of the named counter's series for seq
// whose other labels are those of labels ("name", "value" pairs); 0 when
// there is none.
func gatheredSeq(t *testing.T, reg *prometheus.Registry, name, seq string, labels ...string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			want := map[string]string{"seq": seq}
			for i := 0; i+1 < len(labels); i += 2 {
				want[labels[i]] = labels[i+1]
			}
			for _, l := range m.GetLabel() {
				if v, ok := want[l.GetName()]; ok && v != l.GetValue() {
					continue series
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

// waitSeqState waits up to 10 s until the named sequence of s is in state.
func waitSeqState(t *testing.T, s *Server, name string, want sequencer.State) {
	t.Helper()
	seq, err := s.sequence(name)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := seq.sq.Wait(ctx, want); err != nil {
		st, why := seq.sq.State()
		t.Fatalf("%s: state %s (%s), want %s: %v", name, st, why, want, err)
	}
}

// TestServer_PlannedStopsAreNoLoss checks that a detach and a destroy,
// which give a worker ID up on purpose, log at INFO and count in
// floe_workerid_released_total{reason}, never in
// floe_workerid_lease_lost_total (which FloedWorkerIDLeaseLost alerts on)
// nor as an ERROR; and that a real loss still does.
func TestServer_PlannedStopsAreNoLoss(t *testing.T) {
	cat := workeridtest.NewMemCatalog(4)
	var logA, logB logBuffer
	regA, regB := prometheus.NewRegistry(), prometheus.NewRegistry()
	a, ha := adminServerWith(t, cat, Config{AdminLoopback: true, Registry: regA, Logger: logA.logger()})
	b, hb := adminServerWith(t, cat, Config{AdminLoopback: true, Registry: regB, Logger: logB.logger()})
	if code, body := call(ha, http.MethodPost, "/v1/admin/sequences", `{"name":"tenant1","format":"id80"}`, loopback, ""); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	for _, h := range []http.Handler{ha, hb} {
		if code, body := call(h, http.MethodPost, "/v1/admin/sequences/tenant1/attach", "", loopback, ""); code != http.StatusAccepted {
			t.Fatalf("attach: %d %s", code, body)
		}
	}
	waitSeqState(t, a, "tenant1", sequencer.Serving)
	waitSeqState(t, b, "tenant1", sequencer.Serving)

	// B detaches: a release.
	if code, body := call(hb, http.MethodPost, "/v1/admin/sequences/tenant1/detach", "", loopback, ""); code != http.StatusOK {
		t.Fatalf("detach: %d %s", code, body)
	}
	// Destroyed through B, the catalog ends A's lease: no loss either.
	if code, body := call(hb, http.MethodDelete, "/v1/admin/sequences/tenant1", "", loopback, ""); code != http.StatusNoContent {
		t.Fatalf("destroy: %d %s", code, body)
	}
	waitSeqState(t, a, "tenant1", sequencer.Destroyed)

	tests := []struct {
		name   string
		reg    *prometheus.Registry
		metric string
		labels []string
		want   float64
	}{
		{"b's release by detach", regB, "floe_workerid_released_total", []string{"reason", "detach"}, 1},
		{"b's releases by destroy", regB, "floe_workerid_released_total", []string{"reason", "destroy"}, 0},
		{"b's losses", regB, "floe_workerid_lease_lost_total", nil, 0},
		{"a's release by destroy", regA, "floe_workerid_released_total", []string{"reason", "destroy"}, 1},
		{"a's releases by detach", regA, "floe_workerid_released_total", []string{"reason", "detach"}, 0},
		{"a's losses", regA, "floe_workerid_lease_lost_total", nil, 0},
	}
	for _, tt := range tests {
		if got := gatheredSeq(t, tt.reg, tt.metric, "tenant1", tt.labels...); got != tt.want {
			t.Errorf("%s: %s%v = %v, want %v", tt.name, tt.metric, tt.labels, got, tt.want)
		}
	}
	logs := []struct {
		name string
		buf  *logBuffer
		msg  string
	}{
		{"b", &logB, "worker ID released: detached"},
		{"a", &logA, "worker ID released: the sequence was destroyed cluster-wide; no longer serving it"},
	}
	for _, l := range logs {
		lines := l.buf.lines(t, l.msg)
		if len(lines) != 1 || lines[0]["level"] != "INFO" || lines[0]["reason"] == nil {
			t.Errorf("%s logged %q: %v, want one INFO line with a reason", l.name, l.msg, lines)
		}
		if lost := l.buf.lines(t, "worker ID lease lost; issuing stopped"); len(lost) != 0 {
			t.Errorf("%s logged a lost lease: %v", l.name, lost)
		}
	}

	// A real loss (the default sequence's worker ID taken over) still
	// counts as one, at ERROR.
	def, err := cat.Get(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	src, err := cat.Source(def)
	if err != nil {
		t.Fatal(err)
	}
	id, _, _ := a.set.Load().byName["default"].info()
	src.(*workeridtest.MemSource).Steal(id)
	deadline := time.Now().Add(10 * time.Second)
	for {
		lost := gatheredSeq(t, regA, "floe_workerid_lease_lost_total", "default")
		var lines []map[string]any
		for _, l := range logA.lines(t, "worker ID lease lost; issuing stopped") {
			if l["seq"] == "default" {
				lines = append(lines, l)
			}
		}
		if lost == 1 && len(lines) == 1 && lines[0]["level"] == "ERROR" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a's lost lease of the default sequence after 10 s: counted %v, logged %v; want 1 and one ERROR line", lost, lines)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := gatheredSeq(t, regA, "floe_workerid_released_total", "default", "reason", "destroy"); got != 0 {
		t.Errorf("a's lost lease counted as a destroy: %v", got)
	}
}
