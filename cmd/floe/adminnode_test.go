package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/server"
	"github.com/floeid/floe/workerid/workeridtest"
)

// adminNode is a floed cluster node (internal/server) over a catalog in
// memory, its admin API on 127.0.0.1, for the tests of floe seq and floe
// node. Each sequence has 4 worker IDs of its own. adminNode records the
// requests its admin API gets.
type adminNode struct {
	url   string                   // immutable: http://127.0.0.1:port
	token string                   // immutable; required as a bearer token when not empty
	bin   string                   // immutable: the binary protocol's address
	srv   *server.Server           // immutable
	cat   *workeridtest.MemCatalog // immutable

	mu   sync.Mutex
	reqs []adminRequest // guarded by mu
}

// adminRequest is a request an adminNode got.
type adminRequest struct {
	Method      string
	Path        string // as sent, escaped
	Auth        string // the Authorization header
	ContentType string
	Body        string
}

// adminSequence describes a sequence in the admin API (internal/server).
type adminSequence struct {
	Name     string `json:"name"`
	Spec     string `json:"spec"`
	Gen      int64  `json:"gen"`
	Attached bool   `json:"attached"`
	WorkerID int    `json:"worker_id"`
	Ready    bool   `json:"ready"`
	Reason   string `json:"reason,omitempty"`
	Tokens   int    `json:"tokens"`
}

// startAdminNode starts an adminNode that stops with the test. Its catalog
// holds the default sequence, as floed's with default flags defines it
// (generation 1), which the node serves once it holds worker ID 0.
func startAdminNode(t testing.TB, token string) *adminNode {
	t.Helper()
	return startAdminNodeWith(t, token, token == "")
}

// startAdminNodeWith is startAdminNode with loopback clients served
// without the token when loopback is set (floed --admin-loopback).
func startAdminNodeWith(t testing.TB, token string, loopback bool) *adminNode {
	t.Helper()
	n := &adminNode{token: token, cat: workeridtest.NewMemCatalog(4)}
	def := server.SequenceConfig{Name: "default"}
	spec, err := server.Spec(def)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := n.cat.Create(context.Background(), "default", spec)
	if err != nil {
		t.Fatal(err)
	}
	def.Gen = seq.Gen
	if def.Source, err = n.cat.Source(seq); err != nil {
		t.Fatal(err)
	}
	n.srv, err = server.New(server.Config{
		Sequences:     []server.SequenceConfig{def},
		Catalog:       n.cat,
		Sources:       n.cat.Source,
		AdminToken:    token,
		AdminLoopback: loopback,
		Logger:        slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n.bin = l.Addr().String()
	served := make(chan error, 1)
	go func() { served <- n.srv.Serve(l) }()
	t.Cleanup(func() {
		n.srv.Close()
		if err := <-served; !errors.Is(err, server.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	h := n.srv.Handler()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		n.mu.Lock()
		n.reqs = append(n.reqs, adminRequest{
			Method: r.Method, Path: r.URL.EscapedPath(), Auth: r.Header.Get("Authorization"),
			ContentType: r.Header.Get("Content-Type"), Body: string(body),
		})
		n.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	n.url = s.URL
	deadline := time.Now().Add(10 * time.Second)
	for n.srv.Ready() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("default not ready after 10 s: %v", n.srv.Ready())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return n
}

// serving and waiting are conditions for await: the node serves the
// sequence; it is attached and still holds no worker ID.
func serving(a adminSequence) bool { return a.Ready }
func waiting(a adminSequence) bool {
	// Right after the attach the reason can still be the detached one.
	return a.Attached && a.WorkerID < 0 && strings.Contains(a.Reason, "every worker ID is held")
}

// define adds a sequence to the catalog with a new generation; with
// attached the node attaches it and define waits until it serves it.
func (n *adminNode) define(t testing.TB, name, format, layout string, attached bool) {
	t.Helper()
	spec, err := specOf(format, layout)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.cat.Create(context.Background(), name, spec); err != nil {
		t.Fatal(err)
	}
	if attached {
		n.attach(t, name)
		n.await(t, name, serving)
	}
}

// defineHeld adds a sequence to the catalog with every worker ID held
// elsewhere, and attaches it: the node waits for a worker ID.
func (n *adminNode) defineHeld(t testing.TB, name, format string) {
	t.Helper()
	n.define(t, name, format, "", false)
	seq, err := n.cat.Get(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	src, err := n.cat.Source(seq)
	if err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if _, err := src.Claim(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	n.attach(t, name)
	n.await(t, name, waiting)
}

// attach attaches the named sequence through the admin API, unrecorded.
func (n *adminNode) attach(t testing.TB, name string) {
	t.Helper()
	if code, body := n.call(http.MethodPost, "/v1/admin/sequences/"+name+"/attach"); code != http.StatusAccepted {
		t.Fatalf("attach %s: %d %s", name, code, body)
	}
}

// detach detaches the named sequence, which the node has.
func (n *adminNode) detach(t testing.TB, name string) {
	t.Helper()
	if err := n.srv.Detach(context.Background(), name); err != nil {
		t.Fatalf("detach %s: %v", name, err)
	}
}

// clear destroys every sequence of the catalog.
func (n *adminNode) clear(t testing.TB) {
	t.Helper()
	list, err := n.cat.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, seq := range list {
		if err := n.cat.Destroy(context.Background(), seq.Name); err != nil {
			t.Fatal(err)
		}
	}
}

// await waits up to 10 s until the named sequence, as the admin API lists
// it, meets cond, and returns it.
func (n *adminNode) await(t testing.TB, name string, cond func(adminSequence) bool) adminSequence {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		a, ok := n.sequence(name)
		if ok && cond(a) {
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not as awaited after 10 s: %+v (listed: %v)", name, a, ok)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// call serves one request, unrecorded, from a loopback client with the
// node's token, and returns the status and body.
func (n *adminNode) call(method, path string) (int, string) {
	r := httptest.NewRequest(method, path, nil)
	r.RemoteAddr = "127.0.0.1:1"
	if n.token != "" {
		r.Header.Set("Authorization", "Bearer "+n.token)
	}
	w := httptest.NewRecorder()
	n.srv.Handler().ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

// reply returns the body of the admin API's reply to an unrecorded
// request.
func (n *adminNode) reply(method, path string) string {
	_, body := n.call(method, path)
	return body
}

// requests returns the requests got so far.
func (n *adminNode) requests() []adminRequest {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.reqs)
}

// sequence returns the named sequence as the admin API lists it, and
// whether the catalog has it.
func (n *adminNode) sequence(name string) (adminSequence, bool) {
	var list struct {
		Sequences []adminSequence `json:"sequences"`
	}
	if err := json.Unmarshal([]byte(n.reply(http.MethodGet, "/v1/admin/sequences")), &list); err != nil {
		return adminSequence{}, false
	}
	for _, a := range list.Sequences {
		if a.Name == name {
			return a, true
		}
	}
	return adminSequence{}, false
}

// specOf is the spec the server records for a sequence of format and
// layout (server.Spec).
func specOf(format, layout string) (string, error) {
	sc := server.SequenceConfig{Format: cmp.Or(server.Format(format), server.Format64)}
	if layout != "" {
		l, err := id64.LayoutByName(layout)
		if err != nil {
			return "", err
		}
		sc.Layout = l
	}
	return server.Spec(sc)
}

// runAdmin runs floe with args, in which "ADDR" stands for addr, with
// $FLOE_ADMIN_ADDR and $FLOE_ADMIN_TOKEN set as env says (empty when it
// does not), and returns the exit status and what floe printed.
func runAdmin(t *testing.T, addr string, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Setenv("FLOE_ADMIN_ADDR", env["FLOE_ADMIN_ADDR"])
	t.Setenv("FLOE_ADMIN_TOKEN", env["FLOE_ADMIN_TOKEN"])
	args = slices.Clone(args)
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "ADDR", addr)
	}
	var out, errOut strings.Builder
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}
