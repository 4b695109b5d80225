package main

import (
	"cmp"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/server"
	"github.com/floeid/floe/workerid"
)

// fakeAdmin is floed's admin API on 127.0.0.1 for the tests of floe seq and
// floe node: the routes, status codes, error codes and JSON bodies of
// internal/server's admin.go (and writeError, writeJSON of its http.go),
// over a catalog in memory that behaves as the server tests' memCatalog.
// Attach takes effect at once: the real node claims its worker ID in the
// background, so it is ready a little later. fakeAdmin records the
// requests it gets.
type fakeAdmin struct {
	url   string         // immutable: http://127.0.0.1:port
	token string         // immutable; required as a bearer token when not empty
	mux   *http.ServeMux // immutable: the admin API, without the recording

	mu   sync.Mutex
	seqs map[string]*fakeSeq // guarded by mu: the catalog, and this node's part in each
	gen  int64               // guarded by mu: the last generation handed out
	reqs []fakeAdminRequest  // guarded by mu
}

// fakeSeq is a sequence of a fakeAdmin's catalog.
type fakeSeq struct {
	name, spec string
	gen        int64
	local      bool // the node has the sequence (attached now or before): detach knows it
	attached   bool
	workerID   int // -1 when the node holds none
}

// fakeAdminRequest is a request a fakeAdmin got.
type fakeAdminRequest struct {
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
}

// startFakeAdmin starts a fakeAdmin that stops with the test. Its catalog
// holds the default sequence, as floed's with default flags defines it
// (generation 1), which the node serves with worker ID 0.
func startFakeAdmin(t testing.TB, token string) *fakeAdmin {
	t.Helper()
	f := &fakeAdmin{token: token, seqs: make(map[string]*fakeSeq)}
	f.define(t, "default", "id64", "", true)
	mux := http.NewServeMux()
	f.mux = mux
	mux.HandleFunc("GET /v1/admin/sequences", f.admin(f.handleList))
	mux.HandleFunc("POST /v1/admin/sequences", f.admin(f.handleCreate))
	mux.HandleFunc("DELETE /v1/admin/sequences/{name}", f.admin(f.handleDestroy))
	mux.HandleFunc("POST /v1/admin/sequences/{name}/attach", f.admin(f.handleAttach))
	mux.HandleFunc("POST /v1/admin/sequences/{name}/detach", f.admin(f.handleDetach))
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		f.mu.Lock()
		f.reqs = append(f.reqs, fakeAdminRequest{
			Method: r.Method, Path: r.URL.EscapedPath(), Auth: r.Header.Get("Authorization"),
			ContentType: r.Header.Get("Content-Type"), Body: string(body),
		})
		f.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	f.url = s.URL
	return f
}

// define adds a sequence to the catalog with a new generation; with
// attached the node serves it, with the lowest free worker ID.
func (f *fakeAdmin) define(t testing.TB, name, format, layout string, attached bool) {
	t.Helper()
	spec, err := fakeSpec(name, format, layout)
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gen++
	seq := &fakeSeq{name: name, spec: spec, gen: f.gen, workerID: -1}
	f.seqs[name] = seq
	if attached {
		f.attachLocked(seq)
	}
}

// update calls fn on the named sequence of the catalog, which must exist.
func (f *fakeAdmin) update(name string, fn func(*fakeSeq)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f.seqs[name])
}

// clear empties the catalog.
func (f *fakeAdmin) clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.seqs)
}

// reply returns the body of the admin API's reply to a request from a
// loopback client with the fake's token, which is not recorded.
func (f *fakeAdmin) reply(method, path string) string {
	r := httptest.NewRequest(method, path, nil)
	r.RemoteAddr = "127.0.0.1:1"
	if f.token != "" {
		r.Header.Set("Authorization", "Bearer "+f.token)
	}
	w := httptest.NewRecorder()
	f.mux.ServeHTTP(w, r)
	return w.Body.String()
}

// requests returns the requests got so far.
func (f *fakeAdmin) requests() []fakeAdminRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reqs)
}

// sequence returns the named sequence as the admin API lists it, and
// whether the catalog has it.
func (f *fakeAdmin) sequence(name string) (adminSequence, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	seq, ok := f.seqs[name]
	if !ok {
		return adminSequence{}, false
	}
	return seq.describe(), true
}

// describe is internal/server's describeLocal: the node's part in seq,
// and why it cannot issue when it cannot.
func (seq *fakeSeq) describe() adminSequence {
	a := adminSequence{Name: seq.name, Spec: seq.spec, Gen: seq.gen, WorkerID: -1}
	if !seq.local {
		return a
	}
	a.Attached, a.WorkerID = seq.attached, seq.workerID
	switch {
	case seq.workerID >= 0:
		a.Ready = true
	case seq.attached:
		a.Reason = fmt.Sprintf("%v: %s: no worker ID claimed yet", server.ErrNotReady, seq.name)
	default:
		a.Reason = fmt.Sprintf("%v: %s: detached", server.ErrNotReady, seq.name)
	}
	return a
}

// fakeSpec is the spec the server records for a sequence (server.Spec).
func fakeSpec(name, format, layout string) (string, error) {
	sc := server.SequenceConfig{Name: name, Format: cmp.Or(server.Format(format), server.Format64)}
	if layout != "" {
		if sc.Format != server.Format64 {
			return "", errors.New("a layout is for format id64 only")
		}
		l, err := id64.LayoutByName(layout)
		if err != nil {
			return "", err
		}
		sc.Layout = l
	}
	return server.Spec(sc)
}

// attachLocked makes the node serve seq, with the lowest worker ID no
// other sequence of the node holds. f.mu must be held.
func (f *fakeAdmin) attachLocked(seq *fakeSeq) {
	seq.local, seq.attached = true, true
	if seq.workerID >= 0 {
		return
	}
	held := make(map[int]bool)
	for _, s := range f.seqs {
		held[s.workerID] = true
	}
	for id := 0; ; id++ {
		if !held[id] {
			seq.workerID = id
			return
		}
	}
}

// The handlers below follow internal/server's admin.go.

func (f *fakeAdmin) admin(h func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !f.adminAllowed(r) {
			fakeWriteError(w, http.StatusUnauthorized, "unauthorized", "the admin API needs the admin token (or, without one, a loopback client)")
			return
		}
		h(w, r)
	}
}

func (f *fakeAdmin) adminAllowed(r *http.Request) bool {
	if f.token == "" {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		ip := net.ParseIP(host)
		return err == nil && ip != nil && ip.IsLoopback()
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(token), []byte(f.token)) == 1
}

func (f *fakeAdmin) handleList(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	out := make([]adminSequence, 0, len(f.seqs))
	for _, seq := range f.seqs {
		out = append(out, seq.describe())
	}
	f.mu.Unlock()
	slices.SortFunc(out, func(a, b adminSequence) int { return strings.Compare(a.Name, b.Name) })
	fakeWriteJSON(w, http.StatusOK, struct {
		Sequences []adminSequence `json:"sequences"`
	}{out})
}

func (f *fakeAdmin) handleCreate(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name   string `json:"name"`
		Format string `json:"format"`
		Layout string `json:"layout"`
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<16))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		fakeWriteError(w, http.StatusBadRequest, "bad_request", "the body is not a JSON object {name, format, layout}: "+err.Error())
		return
	}
	spec, err := fakeSpec(req.Name, req.Format, req.Layout)
	if err != nil {
		fakeWriteError(w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	if !workerid.ValidName(req.Name) {
		fakeWriteError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf("%v: %q", workerid.ErrName, req.Name))
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	status := http.StatusOK
	seq, ok := f.seqs[req.Name]
	switch {
	case ok && seq.spec != spec:
		fakeWriteError(w, http.StatusConflict, "conflict", fmt.Sprintf("%v: %s", workerid.ErrConflict, req.Name))
		return
	case !ok:
		f.gen++
		seq = &fakeSeq{name: req.Name, spec: spec, gen: f.gen, workerID: -1}
		f.seqs[req.Name] = seq
		status = http.StatusCreated
	}
	fakeWriteJSON(w, status, adminSequence{Name: seq.name, Spec: seq.spec, Gen: seq.gen, WorkerID: -1})
}

func (f *fakeAdmin) handleDestroy(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.seqs[name]; !ok {
		fakeWriteError(w, http.StatusNotFound, "not_found", fmt.Sprintf("%v: %s", workerid.ErrNotFound, name))
		return
	}
	delete(f.seqs, name)
	w.WriteHeader(http.StatusNoContent)
}

func (f *fakeAdmin) handleAttach(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	f.mu.Lock()
	seq, ok := f.seqs[name]
	if ok {
		f.attachLocked(seq)
	}
	f.mu.Unlock()
	if !ok {
		fakeWriteError(w, http.StatusNotFound, "not_found", fmt.Sprintf("%v: %s", workerid.ErrNotFound, name))
		return
	}
	fakeWriteJSON(w, http.StatusAccepted, struct {
		Name     string `json:"name"`
		Attached bool   `json:"attached"`
	}{name, true})
}

func (f *fakeAdmin) handleDetach(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	f.mu.Lock()
	seq, ok := f.seqs[name]
	if ok && seq.local {
		seq.attached, seq.workerID = false, -1
	}
	f.mu.Unlock()
	if !ok || !seq.local {
		fakeWriteError(w, http.StatusNotFound, "not_found", fmt.Sprintf("%v: %q", server.ErrUnknownSequence, name))
		return
	}
	fakeWriteJSON(w, http.StatusOK, struct {
		Name     string `json:"name"`
		Attached bool   `json:"attached"`
	}{name, false})
}

// fakeWriteError is internal/server's writeError.
func fakeWriteError(w http.ResponseWriter, status int, code, msg string) {
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	fakeWriteJSON(w, status, struct {
		Error string `json:"error"`
		Code  string `json:"code"`
	}{msg, code})
}

// fakeWriteJSON is internal/server's writeJSON.
func fakeWriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
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
