//go:build unix

package scenario_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/workerid/etcd"
)

// A named sequence through the admin API of a two-node cluster: created on
// a, refused when created again with another definition, attached on both
// (each serves it on its own worker ID), detached on b (which releases its
// worker ID and stops serving it), destroyed (both stop serving it). The
// default sequence serves throughout, and no ID of either repeats.
func TestScenario_NamedSequences(t *testing.T) {
	const seq = "orders"
	ec := etcdtest.Start(t, 1)
	led := floedproc.NewLedger()
	a := floedproc.StartEnv(t, bin, "a", adminEnv, etcdNode(ec.Endpoints(), "named", "a")...)
	b := floedproc.StartEnv(t, bin, "b", adminEnv, etcdNode(ec.Endpoints(), "named", "b")...)
	mustReady(t, a, 5*time.Second)
	mustReady(t, b, 5*time.Second)
	fa := startFeed(t, led, a, "a", feedOpts{})
	fb := startFeed(t, led, b, "b", feedOpts{})

	admin := func(p *floedproc.Proc, method, path, body string, want int) string {
		t.Helper()
		code, resp, err := p.Do(method, path, body)
		if err != nil || code != want {
			t.Fatalf("%s: %s %s %s: %d %s %v, want %d", p.Name, method, path, body, code, resp, err, want)
		}
		return resp
	}
	def := `{"name":"orders","format":"id64","layout":"twitter"}`
	admin(a, "POST", "/v1/admin/sequences", def, http.StatusCreated)
	admin(b, "POST", "/v1/admin/sequences", def, http.StatusOK)
	admin(a, "POST", "/v1/admin/sequences", `{"name":"orders","format":"id64","layout":"icicle"}`, http.StatusConflict)
	admin(b, "POST", "/v1/admin/sequences", `{"name":"orders","format":"id80"}`, http.StatusConflict)

	admin(a, "POST", "/v1/admin/sequences/orders/attach", "", http.StatusAccepted)
	admin(b, "POST", "/v1/admin/sequences/orders/attach", "", http.StatusAccepted)
	named := floedproc.NewLedger()
	var wa, wb int
	if !floedproc.WaitFor(5*time.Second, func() bool {
		sa, sb := adminSeq(t, a, seq), adminSeq(t, b, seq)
		wa, wb = sa.WorkerID, sb.WorkerID
		return sa.Ready && sb.Ready
	}) {
		t.Fatalf("orders not ready on both nodes within 5 s: a %+v, b %+v", adminSeq(t, a, seq), adminSeq(t, b, seq))
	}
	if wa == wb {
		t.Fatalf("a and b both serve orders on worker ID %d", wa)
	}
	for range 20 {
		for _, p := range []*floedproc.Proc{a, b} {
			ids, code := httpIDs(t, p, seq, 100)
			if code != http.StatusOK {
				t.Fatalf("%s: GET /v1/ids?seq=orders: %d", p.Name, code)
			}
			named.Add(p.Name, ids...)
		}
	}

	// b detaches: it releases its worker ID, with its last tick, and stops
	// serving orders; a serves on.
	admin(b, "POST", "/v1/admin/sequences/orders/detach", "", http.StatusOK)
	ns := namedNamespace(t, ec, seq)
	if h := ns.holder(t, wb); h != "" {
		t.Errorf("b detached, but worker ID %d of orders is still held by %q", wb, h)
	}
	if _, last := ns.reservation(t, wb); last == 0 {
		t.Errorf("b detached without recording its last tick on worker ID %d", wb)
	}
	if _, code := httpIDs(t, b, seq, 1); code != http.StatusServiceUnavailable {
		t.Errorf("b detached, GET /v1/ids?seq=orders: %d, want 503", code)
	}
	if s := adminSeq(t, b, seq); s.Attached || s.WorkerID != -1 {
		t.Errorf("b detached shows %+v", s)
	}
	if !b.Ready() {
		t.Error("b not ready after detaching a named sequence")
	}
	ids, code := httpIDs(t, a, seq, 100)
	if code != http.StatusOK {
		t.Fatalf("a: GET /v1/ids?seq=orders after b detached: %d", code)
	}
	named.Add("a", ids...)

	// Destroyed: a's lease ends too, and neither serves orders.
	admin(b, "DELETE", "/v1/admin/sequences/orders", "", http.StatusNoContent)
	destroyed := time.Now()
	// By the last request sent that it served: load may delay a reply,
	// not when it was asked for.
	if served, _ := waitEnd(destroyed, ttl+2*time.Second, func() (bool, bool) {
		_, code := httpIDs(t, a, seq, 1)
		return true, code == http.StatusOK
	}); served > ttl {
		t.Fatalf("a still served orders for a request sent %v after it was destroyed, want none after %v", served.Round(time.Millisecond), ttl)
	}
	t.Logf("a stopped serving orders %v after it was destroyed", time.Since(destroyed).Round(time.Millisecond))
	if h := ns.holder(t, wa); h != "" {
		t.Errorf("orders destroyed, but worker ID %d is held by %q", wa, h)
	}
	time.Sleep(500 * time.Millisecond)
	for _, p := range []*floedproc.Proc{a, b} {
		if _, code := httpIDs(t, p, seq, 1); code == http.StatusOK {
			t.Errorf("%s serves orders after it was destroyed", p.Name)
		}
		if list := admin(p, "GET", "/v1/admin/sequences", "", http.StatusOK); adminHas(t, list, seq) {
			t.Errorf("%s still lists orders after it was destroyed: %s", p.Name, list)
		}
		if !p.Ready() {
			t.Errorf("%s not ready after a named sequence was destroyed", p.Name)
		}
	}
	after := time.Now()
	if _, ok := fa.waitServed("a", after, 2*time.Second); !ok {
		t.Error("a's default sequence stopped serving")
	}
	if _, ok := fb.waitServed("b", after, 2*time.Second); !ok {
		t.Error("b's default sequence stopped serving")
	}
	fa.halt()
	fb.halt()
	if err := named.Err(); err != nil {
		t.Errorf("orders: %v", err)
	}
	t.Logf("orders: %d IDs, all unique", named.Len())
	checkLedger(t, led)
}

// adminEnv gives a node the admin token, which floedproc.Proc.Do then
// sends: without one, floed's admin API refuses every request.
var adminEnv = []string{"FLOE_ADMIN_TOKEN=scenario-admin"}

// adminSequence is a sequence in GET /v1/admin/sequences.
type adminSequence struct {
	Name     string `json:"name"`
	Gen      int64  `json:"gen"`
	Attached bool   `json:"attached"`
	WorkerID int    `json:"worker_id"`
	Ready    bool   `json:"ready"`
	Reason   string `json:"reason"`
}

func adminList(t *testing.T, body string) []adminSequence {
	t.Helper()
	var v struct {
		Sequences []adminSequence `json:"sequences"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("GET /v1/admin/sequences: %q: %v", body, err)
	}
	return v.Sequences
}

func adminHas(t *testing.T, body, name string) bool {
	for _, s := range adminList(t, body) {
		if s.Name == name {
			return true
		}
	}
	return false
}

// adminSeq returns what p's admin API shows of the named sequence.
func adminSeq(t *testing.T, p *floedproc.Proc, name string) adminSequence {
	t.Helper()
	code, body, err := p.Get("/v1/admin/sequences")
	if err != nil || code != http.StatusOK {
		t.Fatalf("%s: GET /v1/admin/sequences: %d %s %v", p.Name, code, body, err)
	}
	for _, s := range adminList(t, body) {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("%s: no sequence %q in %s", p.Name, name, body)
	return adminSequence{}
}

// httpIDs asks p for n IDs of seq over HTTP; it returns them and the
// status.
func httpIDs(t *testing.T, p *floedproc.Proc, seq string, n int) ([]uint64, int) {
	t.Helper()
	code, body, err := p.Get(fmt.Sprintf("/v1/ids?seq=%s&n=%d", seq, n))
	if err != nil {
		t.Fatalf("%s: GET /v1/ids: %v", p.Name, err)
	}
	if code != http.StatusOK {
		return nil, code
	}
	var v struct {
		IDs []string `json:"ids"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("%s: GET /v1/ids: %q: %v", p.Name, body, err)
	}
	ids := make([]uint64, len(v.IDs))
	for i, s := range v.IDs {
		if ids[i], err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s: GET /v1/ids: ID %q: %v", p.Name, s, err)
		}
	}
	if len(ids) != n {
		t.Fatalf("%s: GET /v1/ids?n=%d gave %d IDs", p.Name, n, len(ids))
	}
	return ids, code
}

// namedNamespace returns the worker-ID namespace of a named sequence of
// the "named" cluster, as it is defined now.
func namedNamespace(t *testing.T, ec *etcdtest.Cluster, name string) *namespace {
	t.Helper()
	cli := ec.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seq, err := etcd.NewCatalog(cli, "/floe/v1/named/").Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return &namespace{cli: cli, prefix: fmt.Sprintf("/floe/v1/named/seq/%s/%d/", name, seq.Gen)}
}
