//go:build unix

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/internal/promtest"
	"github.com/floeid/floe/internal/redistest"
)

// admin sends an admin request to f with the admin token adminToken and
// returns the status and body.
func (f *floed) admin(method, path, body string) (int, string) {
	f.t.Helper()
	req, err := http.NewRequest(method, "http://"+f.HTTP+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := httpClient.Do(req)
	if err != nil {
		f.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// adminToken is the admin token of the cluster tests' nodes.
const adminToken = "e2e-admin"

// safeRedis starts a Redis server that passes floed's safety check.
func safeRedis(t *testing.T) *redistest.Server {
	t.Helper()
	return redistest.Start(t, "--appendonly", "yes", "--appendfsync", "always")
}

// TestE2E_CatalogTokens: a sequence created at runtime with a token (its
// hash in the catalog) serves binary clients with that token on a node
// that attaches it, and floed --token may name such a sequence (not in
// --seq) for a token of the node's own.
func TestE2E_CatalogTokens(t *testing.T) {
	rs := safeRedis(t)
	env := []string{"FLOE_ADMIN_TOKEN=" + adminToken}
	a := startFloedEnv(t, env, "--redis", rs.Addr, "--cluster", "tokens", "--owner", "a")
	b := startFloedEnv(t, env, "--redis", rs.Addr, "--cluster", "tokens", "--owner", "b", "--token", "orders=node-b-secret")
	sum := sha256.Sum256([]byte("orders-secret"))
	body := fmt.Sprintf(`{"name":"orders","layout":"snowcast-128","token_sha256":[%q]}`, hex.EncodeToString(sum[:]))
	if code, resp := a.admin(http.MethodPost, "/v1/admin/sequences", body); code != http.StatusCreated {
		t.Fatalf("create on a: %d %s", code, resp)
	}
	if code, resp := b.admin(http.MethodPost, "/v1/admin/sequences/orders/attach", ""); code != http.StatusAccepted {
		t.Fatalf("attach on b: %d %s", code, resp)
	}
	deadline := time.Now().Add(startDeadline)
	for {
		_, list := b.admin(http.MethodGet, "/v1/admin/sequences", "")
		var resp struct {
			Sequences []struct {
				Name   string
				Ready  bool
				Tokens int
			}
		}
		json.Unmarshal([]byte(list), &resp)
		ready := false
		for _, s := range resp.Sequences {
			ready = ready || s.Name == "orders" && s.Ready && s.Tokens == 1
		}
		if ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("orders not ready on b with its token: %s", list)
		}
		time.Sleep(pollEvery)
	}
	for _, tt := range []struct {
		token string
		ok    bool
	}{{"orders-secret", true}, {"node-b-secret", true}, {"wrong", false}} {
		c, err := dialNoeq(b.Bin, tt.token)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		ids, err := fetch(c, 5)
		c.Close()
		if tt.ok && (err != nil || len(ids) != 5) {
			t.Errorf("token %q: %v %v, want 5 IDs of orders", tt.token, ids, err)
		}
		if !tt.ok && err == nil {
			t.Errorf("token %q: IDs %v, want the connection closed", tt.token, ids)
		}
	}
	m := b.metrics()
	if got := m[`floe_ids_generated_total{format="id64",seq="orders"}`]; got != 10 {
		t.Errorf("orders issued %v IDs on b, want the 10 of the two tokens", got)
	}
	if strings.Contains(b.stderr.String(), "orders-secret") || strings.Contains(b.stderr.String(), "node-b-secret") {
		t.Errorf("b's log shows a token:\n%s", b.stderr.String())
	}
}

// TestE2E_DestroyIsNoLoss: a sequence destroyed through one node ends the
// other node's lease on it; that node logs the release at INFO and counts
// it in floe_workerid_released_total, not as a lost lease (ERROR, and the
// counter FloedWorkerIDLeaseLost alerts on); its Redis lease, ended at its
// next renewal, logs INFO too, not WARN "worker ID lease lost". A detach
// likewise.
func TestE2E_DestroyIsNoLoss(t *testing.T) {
	a, b := startAttached(t, "destroy")
	detachDestroy(t, a, b)
	// The release is counted once the catalog said the sequence is gone.
	waitMetric(t, b, `floe_workerid_released_total{reason="destroy",seq="tenant1"}`, 1)
	tests := []struct {
		f      *floed
		series string
		want   float64
	}{
		{a, `floe_workerid_released_total{reason="detach",seq="tenant1"}`, 1},
		{a, `floe_workerid_lease_lost_total{seq="tenant1"}`, 0},
		{b, `floe_workerid_lease_lost_total{seq="tenant1"}`, 0},
		{b, `floe_workerid_released_total{reason="detach",seq="tenant1"}`, 0},
	}
	for _, tt := range tests {
		if got := tt.f.metrics()[tt.series]; got != tt.want {
			t.Errorf("%s = %v, want %v", tt.series, got, tt.want)
		}
	}
	// b's lease ends at its next renewal, which finds its owner key gone
	// and the sequence too: a planned end, at INFO.
	ended := `level=INFO msg="worker ID lease ended: the sequence was destroyed"`
	if !waitFor(startDeadline, func() bool { return strings.Contains(b.stderr.String(), ended) }) {
		t.Errorf("b logged no %s line after %v:\n%s", ended, startDeadline, b.stderr.String())
	}
	for name, f := range map[string]*floed{"a": a, "b": b} {
		log := f.stderr.String()
		if strings.Contains(log, `msg="worker ID lease lost"`) {
			t.Errorf("%s logged the destroy as a lost lease:\n%s", name, log)
		}
		if strings.Contains(log, "worker ID lease lost; issuing stopped") {
			t.Errorf("%s logged a lost lease:\n%s", name, log)
		}
		if !strings.Contains(log, `level=INFO msg="worker ID released`) {
			t.Errorf("%s logged no INFO line of the release:\n%s", name, log)
		}
		if strings.Contains(log, `level=WARN msg="the sequence was destroyed`) || strings.Contains(log, `level=WARN msg="sequence destroyed`) {
			t.Errorf("%s logged the destroy as a warning:\n%s", name, log)
		}
	}
}

// startAttached starts two cluster nodes on a Redis server of their own,
// a and b, both serving the sequence tenant1 (id80).
func startAttached(t *testing.T, cluster string) (a, b *floed) {
	t.Helper()
	rs := safeRedis(t)
	env := []string{"FLOE_ADMIN_TOKEN=" + adminToken}
	a = startFloedEnv(t, env, "--redis", rs.Addr, "--cluster", cluster, "--owner", "a")
	b = startFloedEnv(t, env, "--redis", rs.Addr, "--cluster", cluster, "--owner", "b")
	if code, resp := a.admin(http.MethodPost, "/v1/admin/sequences", `{"name":"tenant1","format":"id80"}`); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, resp)
	}
	for _, f := range []*floed{a, b} {
		if code, resp := f.admin(http.MethodPost, "/v1/admin/sequences/tenant1/attach", ""); code != http.StatusAccepted {
			t.Fatalf("attach: %d %s", code, resp)
		}
	}
	waitMetric(t, a, `floe_workerid_claims_total{seq="tenant1"}`, 1)
	waitMetric(t, b, `floe_workerid_claims_total{seq="tenant1"}`, 1)
	return a, b
}

// detachDestroy detaches tenant1 on a, destroys it through a, and waits
// until b holds no worker ID for it.
func detachDestroy(t *testing.T, a, b *floed) {
	t.Helper()
	if code, resp := a.admin(http.MethodPost, "/v1/admin/sequences/tenant1/detach", ""); code != http.StatusOK {
		t.Fatalf("detach: %d %s", code, resp)
	}
	if code, resp := a.admin(http.MethodDelete, "/v1/admin/sequences/tenant1", ""); code != http.StatusNoContent {
		t.Fatalf("destroy: %d %s", code, resp)
	}
	waitMetric(t, b, `floe_workerid{seq="tenant1"}`, -1)
}

// waitMetric waits until f's series is want.
func waitMetric(t *testing.T, f *floed, series string, want float64) {
	t.Helper()
	if !waitFor(startDeadline, func() bool { return f.metrics()[series] == want }) {
		t.Fatalf("%s = %v after %v, want %v", series, f.metrics()[series], startDeadline, want)
	}
}

// TestE2E_DestroyFiresNoAlert has a real Prometheus scrape a node whose
// sequence is destroyed through another, and evaluates the expression of
// the alert FloedWorkerIDLeaseLost (deploy/prometheus/floed-alerts.yml):
// it selects nothing, while Prometheus has the release by destroy.
func TestE2E_DestroyFiresNoAlert(t *testing.T) {
	promtest.Tool(t, "prometheus")
	expr := alertExpr(t, "FloedWorkerIDLeaseLost")
	a, b := startAttached(t, "alert")
	p := promtest.Start(t, b.HTTP)
	seen := func(series string, want float64) bool {
		s, err := p.Query(series, time.Time{})
		return err == nil && len(s) == 1 && s[0].Value == want
	}
	if !waitFor(time.Minute, func() bool { return seen(`floe_workerid_lease_lost_total{seq="tenant1"}`, 0) }) {
		t.Fatal("no scrape of b within a minute")
	}
	detachDestroy(t, a, b)
	// The end of b's lease, counted as a release by destroy or as a loss.
	const ended = `sum(floe_workerid_lease_lost_total{seq="tenant1"}) + (sum(floe_workerid_released_total{seq="tenant1",reason="destroy"}) or vector(0))`
	if !waitFor(time.Minute, func() bool { return seen(ended, 1) }) {
		t.Fatal("no scrape of b saw the end of its lease within a minute")
	}
	got, err := p.Query(expr, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("%s selects %v after a destroy: FloedWorkerIDLeaseLost would fire", expr, got)
	}
}

// alertExpr returns the expression of the named alert in
// deploy/prometheus/floed-alerts.yml: the "expr:" line after its
// "- alert:" line.
func alertExpr(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "prometheus", "floed-alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		if line == "- alert: "+name {
			found = true
			continue
		}
		if expr, ok := strings.CutPrefix(line, "expr: "); ok && found {
			return expr
		}
	}
	t.Fatalf("floed-alerts.yml: no expr of alert %s", name)
	return ""
}
