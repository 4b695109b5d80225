package server

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/workerid/workeridtest"
)

// adminServer is a cluster node over a MemCatalog whose default sequence
// is defined in it, with its HTTP handler.
// Without a token, it serves loopback clients (AdminLoopback).
func adminServer(t *testing.T, cat *workeridtest.MemCatalog, token string) (*Server, http.Handler) {
	t.Helper()
	return adminServerWith(t, cat, Config{AdminToken: token, AdminLoopback: token == ""})
}

// adminServerWith is adminServer on cfg, whose clock, sequences, catalog
// and sources it sets.
func adminServerWith(t *testing.T, cat *workeridtest.MemCatalog, cfg Config) (*Server, http.Handler) {
	t.Helper()
	s, h, _ := adminNode(t, cat, cfg)
	return s, h
}

// adminNode is adminServerWith, with the address of its binary listener.
func adminNode(t *testing.T, cat *workeridtest.MemCatalog, cfg Config) (*Server, http.Handler, string) {
	t.Helper()
	sc := SequenceConfig{Name: "default"}
	spec, err := Spec(sc)
	if err != nil {
		t.Fatal(err)
	}
	def, err := cat.Create(context.Background(), "default", spec)
	if err != nil {
		t.Fatal(err)
	}
	sc.Gen = def.Gen
	if sc.Source, err = cat.Source(def); err != nil {
		t.Fatal(err)
	}
	cfg.Clock = floetest.NewClock(start)
	cfg.Sequences = append([]SequenceConfig{sc}, cfg.Sequences...)
	cfg.Catalog = cat
	cfg.Sources = cat.Source
	s, addr := newTestServer(t, cfg)
	return s, s.Handler(), addr
}

// call serves one request from remote and returns the status and body.
func call(h http.Handler, method, path, body, remote, token string) (int, string) {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.RemoteAddr = remote
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

const loopback = "127.0.0.1:5555"

func TestServer_AdminAuth(t *testing.T) {
	_, closed := adminServerWith(t, workeridtest.NewMemCatalog(4), Config{})
	_, loop := adminServerWith(t, workeridtest.NewMemCatalog(4), Config{AdminLoopback: true})
	_, guarded := adminServer(t, workeridtest.NewMemCatalog(4), "s3cret")
	_, both := adminServerWith(t, workeridtest.NewMemCatalog(4), Config{AdminToken: "s3cret", AdminLoopback: true})
	const sidecar = "127.0.0.6:15001" // Istio's sidecar connects from there
	tests := []struct {
		name    string
		h       http.Handler
		method  string
		path    string
		remote  string
		token   string
		want    int
		wantErr string
	}{
		{name: "no token set: loopback refused", h: closed, remote: loopback, want: http.StatusForbidden, wantErr: "--admin-token (or $FLOE_ADMIN_TOKEN)"},
		{name: "no token set: a sidecar refused", h: closed, remote: sidecar, want: http.StatusForbidden, wantErr: "the admin API is closed"},
		{name: "no token set: destroy from loopback refused", h: closed, method: http.MethodDelete, path: "/v1/admin/sequences/orders", remote: loopback, want: http.StatusForbidden, wantErr: "forbidden"},
		{name: "no token set: create from loopback refused", h: closed, method: http.MethodPost, path: "/v1/admin/sequences", remote: loopback, want: http.StatusForbidden, wantErr: "forbidden"},
		{name: "no token set: a token given is no key", h: closed, remote: "10.1.2.3:5555", token: "anything", want: http.StatusForbidden, wantErr: "forbidden"},
		{name: "loopback opted in", h: loop, remote: loopback, want: http.StatusOK},
		{name: "loopback opted in: ipv6", h: loop, remote: "[::1]:5555", want: http.StatusOK},
		{name: "loopback opted in: remote refused", h: loop, remote: "10.1.2.3:5555", want: http.StatusForbidden, wantErr: "loopback clients only (--admin-loopback)"},
		{name: "token set, none given", h: guarded, remote: loopback, want: http.StatusUnauthorized, wantErr: "needs the admin token"},
		{name: "token set: a sidecar without it", h: guarded, remote: sidecar, want: http.StatusUnauthorized, wantErr: "unauthorized"},
		{name: "wrong token", h: guarded, remote: "10.1.2.3:5555", token: "s3cre", want: http.StatusUnauthorized, wantErr: "unauthorized"},
		{name: "right token from afar", h: guarded, remote: "10.1.2.3:5555", token: "s3cret", want: http.StatusOK},
		{name: "token and loopback: loopback without it", h: both, remote: loopback, want: http.StatusOK},
		{name: "token and loopback: remote without it", h: both, remote: "10.1.2.3:5555", want: http.StatusUnauthorized, wantErr: "unauthorized"},
		{name: "token and loopback: remote with it", h: both, remote: "10.1.2.3:5555", token: "s3cret", want: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method, path := cmp.Or(tt.method, http.MethodGet), cmp.Or(tt.path, "/v1/admin/sequences")
			got, body := call(tt.h, method, path, `{"name":"orders"}`, tt.remote, tt.token)
			if got != tt.want || !strings.Contains(body, tt.wantErr) {
				t.Fatalf("got %d %s, want %d with %q", got, body, tt.want, tt.wantErr)
			}
		})
	}
}

// TestServer_AdminDestroyFlagServed checks that the API destroys no
// sequence the node serves from its configuration: the default sequence
// (every node's) and the others of its flags; one created at runtime goes.
func TestServer_AdminDestroyFlagServed(t *testing.T) {
	cat := workeridtest.NewMemCatalog(4)
	fixed := SequenceConfig{Name: "orders", Format: Format96}
	spec, err := Spec(fixed)
	if err != nil {
		t.Fatal(err)
	}
	def, err := cat.Create(context.Background(), "orders", spec)
	if err != nil {
		t.Fatal(err)
	}
	fixed.Gen = def.Gen
	if fixed.Source, err = cat.Source(def); err != nil {
		t.Fatal(err)
	}
	s, h := adminServerWith(t, cat, Config{AdminToken: "s3cret", Sequences: []SequenceConfig{fixed}})
	if code, body := call(h, http.MethodPost, "/v1/admin/sequences", `{"name":"tenant1","format":"id80"}`, loopback, "s3cret"); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	tests := []struct {
		name     string
		seq      string
		want     int
		wantText string
	}{
		{name: "the default sequence", seq: "default", want: http.StatusConflict, wantText: `sequence \"default\" is the default sequence`},
		{name: "a --seq sequence", seq: "orders", want: http.StatusConflict, wantText: `sequence \"orders\" is served from this node's flags (--seq)`},
		{name: "a sequence created at runtime", seq: "tenant1", want: http.StatusNoContent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, body := call(h, http.MethodDelete, "/v1/admin/sequences/"+tt.seq, "", loopback, "s3cret")
			if got != tt.want || !strings.Contains(body, tt.wantText) {
				t.Fatalf("got %d %s, want %d with %q", got, body, tt.want, tt.wantText)
			}
		})
	}
	for _, name := range []string{"default", "orders"} {
		if _, err := cat.Get(context.Background(), name); err != nil {
			t.Errorf("%s after its refused destroy: %v", name, err)
		}
		seq, err := s.sequence(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := seq.ready(); err != nil {
			t.Errorf("%s after its refused destroy: %v", name, err)
		}
	}
}

func TestServer_AdminWithoutCluster(t *testing.T) {
	s, _ := newTestServer(t, Config{Clock: floetest.NewClock(start), AdminLoopback: true})
	h := s.Handler()
	for _, req := range []struct{ method, path, body string }{
		{http.MethodGet, "/v1/admin/sequences", ""},
		{http.MethodPost, "/v1/admin/sequences", `{"name":"a"}`},
		{http.MethodDelete, "/v1/admin/sequences/a", ""},
	} {
		got, body := call(h, req.method, req.path, req.body, loopback, "")
		if got != http.StatusNotImplemented || !strings.Contains(body, "no_cluster") {
			t.Errorf("%s %s = %d %s, want 501 no_cluster", req.method, req.path, got, body)
		}
	}
	// Detach and attach still work on the node's own sequences.
	if got, body := call(h, http.MethodPost, "/v1/admin/sequences/default/detach", "", loopback, ""); got != http.StatusOK {
		t.Fatalf("detach: %d %s", got, body)
	}
	if got, body := call(h, http.MethodPost, "/v1/admin/sequences/default/attach", "", loopback, ""); got != http.StatusAccepted {
		t.Fatalf("attach: %d %s", got, body)
	}
	if got, _ := call(h, http.MethodPost, "/v1/admin/sequences/nope/attach", "", loopback, ""); got != http.StatusNotFound {
		t.Fatalf("attach of an unknown sequence: %d, want 404", got)
	}
}

func TestServer_AdminCreate(t *testing.T) {
	_, h := adminServer(t, workeridtest.NewMemCatalog(4), "")
	tests := []struct {
		name     string
		body     string
		want     int
		wantText string
	}{
		{name: "new id80", body: `{"name":"tenant1","format":"id80"}`, want: http.StatusCreated, wantText: `"gen":2`},
		{name: "same again", body: `{"name":"tenant1","format":"id80"}`, want: http.StatusOK, wantText: `"gen":2`},
		{name: "other definition", body: `{"name":"tenant1","format":"id96"}`, want: http.StatusConflict, wantText: "conflict"},
		{name: "id64 by default", body: `{"name":"orders","layout":"snowcast-128"}`, want: http.StatusCreated, wantText: `\"sequence_bits\"`},
		{name: "the default sequence as defined", body: `{"name":"default"}`, want: http.StatusOK},
		{name: "the default sequence otherwise", body: `{"name":"default","layout":"icicle"}`, want: http.StatusConflict},
		{name: "bad name", body: `{"name":"a/b"}`, want: http.StatusBadRequest, wantText: "invalid sequence name"},
		{name: "new id128", body: `{"name":"events","format":"id128"}`, want: http.StatusCreated, wantText: `{\"format\":\"id128\"}`},
		{name: "bad format", body: `{"name":"x","format":"id65"}`, want: http.StatusBadRequest, wantText: "unknown format \\\"id65\\\" (want id64, id80, id96 or id128)"},
		{name: "layout for id128", body: `{"name":"x","format":"id128","layout":"twitter"}`, want: http.StatusBadRequest, wantText: "id64 only"},
		{name: "layout for id96", body: `{"name":"x","format":"id96","layout":"twitter"}`, want: http.StatusBadRequest, wantText: "id64 only"},
		{name: "unknown layout", body: `{"name":"x","layout":"nope"}`, want: http.StatusBadRequest},
		{name: "layout written out", body: `{"name":"icy","layout":"41t/10w/12s 1ms since 1455788600316"}`, want: http.StatusCreated, wantText: `2016-02-18T09:43:20.316Z`},
		{name: "the same layout by its preset name", body: `{"name":"icy","layout":"icicle2"}`, want: http.StatusOK},
		{name: "malformed layout", body: `{"name":"x","layout":"41t/10w/12s 1ms"}`, want: http.StatusBadRequest, wantText: "floe: malformed layout"},
		{name: "unknown field", body: `{"name":"x","nodes":12}`, want: http.StatusBadRequest},
		{name: "not json", body: `name=x`, want: http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, body := call(h, http.MethodPost, "/v1/admin/sequences", tt.body, loopback, "")
			if got != tt.want || !strings.Contains(body, tt.wantText) {
				t.Fatalf("got %d %s, want %d with %q", got, body, tt.want, tt.wantText)
			}
		})
	}
}

// adminList returns the admin list by name.
func adminList(t *testing.T, h http.Handler) map[string]adminSequence {
	t.Helper()
	code, body := call(h, http.MethodGet, "/v1/admin/sequences", "", loopback, "")
	if code != http.StatusOK {
		t.Fatalf("list: %d %s", code, body)
	}
	var resp struct{ Sequences []adminSequence }
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatal(err)
	}
	m := make(map[string]adminSequence)
	for _, a := range resp.Sequences {
		m[a.Name] = a
	}
	return m
}

// waitList polls the admin list until cond holds for the named sequence.
func waitList(t *testing.T, h http.Handler, name string, cond func(adminSequence) bool) adminSequence {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		a := adminList(t, h)[name]
		if cond(a) {
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("sequence %q in the admin list: %+v after 10 s", name, a)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestServer_AdminAttachDetachDestroy(t *testing.T) {
	cat := workeridtest.NewMemCatalog(4)
	a, ha := adminServer(t, cat, "")
	_, hb := adminServer(t, cat, "")
	if code, body := call(ha, http.MethodPost, "/v1/admin/sequences", `{"name":"tenant1","format":"id96"}`, loopback, ""); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	// Created is not attached: neither node serves it yet.
	if got := adminList(t, hb)["tenant1"]; got.Attached || got.WorkerID != -1 {
		t.Fatalf("before attach: %+v", got)
	}
	if code, _ := call(hb, http.MethodGet, "/v1/ids?seq=tenant1", "", loopback, ""); code != http.StatusNotFound {
		t.Fatalf("IDs of an unattached sequence: %d, want 404", code)
	}
	for _, h := range []http.Handler{ha, hb} {
		if code, body := call(h, http.MethodPost, "/v1/admin/sequences/tenant1/attach", "", loopback, ""); code != http.StatusAccepted {
			t.Fatalf("attach: %d %s", code, body)
		}
	}
	ia := waitList(t, ha, "tenant1", func(s adminSequence) bool { return s.Ready })
	ib := waitList(t, hb, "tenant1", func(s adminSequence) bool { return s.Ready })
	if ia.WorkerID == ib.WorkerID {
		t.Fatalf("both nodes hold worker ID %d", ia.WorkerID)
	}
	checker := floetest.NewChecker[string](0)
	for _, h := range []http.Handler{ha, hb} {
		code, body := call(h, http.MethodGet, "/v1/ids?seq=tenant1&n=50", "", loopback, "")
		if code != http.StatusOK {
			t.Fatalf("IDs: %d %s", code, body)
		}
		var resp struct{ IDs []string }
		if err := json.Unmarshal([]byte(body), &resp); err != nil {
			t.Fatal(err)
		}
		checker.Add(resp.IDs...)
	}
	if err := checker.Err(); err != nil {
		t.Fatal(err)
	}

	// Detach releases B's worker ID and stops its serving.
	if code, body := call(hb, http.MethodPost, "/v1/admin/sequences/tenant1/detach", "", loopback, ""); code != http.StatusOK {
		t.Fatalf("detach: %d %s", code, body)
	}
	if got := adminList(t, hb)["tenant1"]; got.Attached || got.Ready {
		t.Fatalf("after detach: %+v", got)
	}
	if code, _ := call(hb, http.MethodGet, "/v1/ids?seq=tenant1", "", loopback, ""); code != http.StatusServiceUnavailable {
		t.Fatalf("IDs after detach: %d, want 503", code)
	}
	if code, _ := call(hb, http.MethodPost, "/v1/admin/sequences/nope/detach", "", loopback, ""); code != http.StatusNotFound {
		t.Fatalf("detach of an unknown sequence: %d, want 404", code)
	}

	// Destroy ends A's lease; A finds the sequence gone and stops serving
	// it instead of claiming again.
	if code, body := call(hb, http.MethodDelete, "/v1/admin/sequences/tenant1", "", loopback, ""); code != http.StatusNoContent {
		t.Fatalf("destroy: %d %s", code, body)
	}
	if code, _ := call(hb, http.MethodDelete, "/v1/admin/sequences/tenant1", "", loopback, ""); code != http.StatusNotFound {
		t.Fatalf("second destroy: %d, want 404", code)
	}
	seq, err := a.sequence("tenant1")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for seq.attached() || seq.ready() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("node A still serves the destroyed sequence: attached %v, ready %v", seq.attached(), seq.ready())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if code, _ := call(ha, http.MethodGet, "/v1/ids?seq=tenant1", "", loopback, ""); code == http.StatusOK {
		t.Fatal("IDs of a destroyed sequence")
	}
	if _, ok := adminList(t, ha)["tenant1"]; ok {
		t.Fatal("the destroyed sequence is still listed")
	}

	// Created again, it is a new generation with its own worker IDs; A
	// attaches it afresh, and serves once its clock passes what the
	// destroyed generation had reserved (A's lease was lost at the
	// destroy, so it recorded no last tick).
	if code, body := call(ha, http.MethodPost, "/v1/admin/sequences", `{"name":"tenant1","format":"id80"}`, loopback, ""); code != http.StatusCreated {
		t.Fatalf("create again: %d %s", code, body)
	}
	if code, body := call(ha, http.MethodPost, "/v1/admin/sequences/tenant1/attach", "", loopback, ""); code != http.StatusAccepted {
		t.Fatalf("attach the new generation: %d %s", code, body)
	}
	behind := waitList(t, ha, "tenant1", func(s adminSequence) bool { return s.WorkerID >= 0 })
	if behind.Ready || !strings.Contains(behind.Reason, "behind the reservation of the worker ID's previous holder") {
		t.Fatalf("the new generation serves inside the destroyed one's reservation: %+v", behind)
	}
	a.cfg.Clock.(*floetest.Clock).Step(a.cfg.Window + time.Millisecond)
	got := waitList(t, ha, "tenant1", func(s adminSequence) bool { return s.Ready })
	if got.Spec != `{"format":"id80"}` {
		t.Fatalf("new generation serves spec %s", got.Spec)
	}
}
