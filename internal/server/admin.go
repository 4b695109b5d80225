package server

import (
	"cmp"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/workerid"
)

// adminTimeout bounds one catalog operation of the admin API.
const adminTimeout = 10 * time.Second

// adminRoutes adds the admin API to mux:
//
//	GET    /v1/admin/sequences               the cluster's sequences and this node's part in each
//	POST   /v1/admin/sequences               create {"name","format","layout","token_sha256"}
//	DELETE /v1/admin/sequences/{name}        destroy it cluster-wide
//	POST   /v1/admin/sequences/{name}/attach this node claims a worker ID for it and serves it
//	POST   /v1/admin/sequences/{name}/detach this node releases its worker ID and stops serving it
//
// With Config.AdminToken set it is required as a bearer token. With
// Config.AdminLoopback, loopback clients are served without it. Without
// either, the API is closed (403): a same-host proxy or a mesh sidecar
// connects from loopback, so loopback alone proves nothing.
func (s *Server) adminRoutes(rt *router) {
	rt.handleFunc("GET /v1/admin/sequences", "", s.admin(s.handleAdminList))
	rt.handleFunc("POST /v1/admin/sequences", "", s.admin(s.handleAdminCreate))
	rt.handleFunc("DELETE /v1/admin/sequences/{name}", "", s.admin(s.handleAdminDestroy))
	rt.handleFunc("POST /v1/admin/sequences/{name}/attach", "", s.admin(s.handleAdminAttach))
	rt.handleFunc("POST /v1/admin/sequences/{name}/detach", "", s.admin(s.handleAdminDetach))
}

// The refusals of the admin API, which say how to open it.
const (
	adminClosed = "the admin API is closed: floed has no admin token. Start floed with --admin-token (or $FLOE_ADMIN_TOKEN) " +
		"and give floe the same token (-token or $FLOE_ADMIN_TOKEN); --admin-loopback serves loopback clients without one"
	adminLoopbackOnly = "the admin API serves loopback clients only (--admin-loopback) and floed has no admin token: " +
		"start floed with --admin-token (or $FLOE_ADMIN_TOKEN) to serve other clients that send it"
	adminWantToken = "the admin API needs the admin token (Authorization: Bearer <token>)"
)

func (s *Server) admin(h func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch {
		case s.adminTokenOK(r) || s.cfg.AdminLoopback && fromLoopback(r):
			h(w, r)
		case s.cfg.AdminToken != "":
			writeError(w, http.StatusUnauthorized, "unauthorized", adminWantToken)
		case s.cfg.AdminLoopback:
			writeError(w, http.StatusForbidden, "forbidden", adminLoopbackOnly)
		default:
			writeError(w, http.StatusForbidden, "forbidden", adminClosed)
		}
	}
}

// adminTokenOK reports whether r carries the admin token, compared in
// constant time; never without one set.
func (s *Server) adminTokenOK(r *http.Request) bool {
	if s.cfg.AdminToken == "" {
		return false
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(token), []byte(s.cfg.AdminToken)) == 1
}

// fromLoopback reports whether r comes from a loopback address.
func fromLoopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	ip := net.ParseIP(host)
	return err == nil && ip != nil && ip.IsLoopback()
}

// adminSequence describes a sequence in the admin API.
type adminSequence struct {
	Name     string `json:"name"`
	Spec     string `json:"spec"`
	Gen      int64  `json:"gen"`
	Attached bool   `json:"attached"`
	WorkerID int    `json:"worker_id"`
	Ready    bool   `json:"ready"`
	Reason   string `json:"reason,omitempty"`
	Tokens   int    `json:"tokens"` // how many tokens the catalog gives it
}

func (s *Server) describeLocal(a *adminSequence) {
	a.WorkerID = -1
	seq, ok := s.set.Load().byName[a.Name]
	if !ok || seq.sc.Gen != a.Gen {
		return
	}
	a.Attached = seq.attached()
	a.WorkerID, _, _ = seq.info()
	if err := seq.ready(); err != nil {
		a.Reason = err.Error()
	} else {
		a.Ready = true
	}
}

func (s *Server) noCatalog(w http.ResponseWriter) bool {
	if s.cfg.Catalog == nil {
		writeError(w, http.StatusNotImplemented, "no_cluster", "floed runs without a coordinator (--etcd or --redis): its sequences are its flags")
		return true
	}
	return false
}

// catalogError answers a catalog failure.
func catalogError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, workerid.ErrNotFound):
		writeError(w, http.StatusNotFound, "not_found", err.Error())
	case errors.Is(err, workerid.ErrConflict):
		writeError(w, http.StatusConflict, "conflict", err.Error())
	case errors.Is(err, workerid.ErrName), errors.Is(err, ErrConfig):
		writeError(w, http.StatusBadRequest, "bad_request", err.Error())
	default:
		writeError(w, http.StatusServiceUnavailable, "unavailable", err.Error())
	}
}

func (s *Server) handleAdminList(w http.ResponseWriter, r *http.Request) {
	if s.noCatalog(w) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), adminTimeout)
	defer cancel()
	list, err := s.cfg.Catalog.List(ctx)
	if err != nil {
		catalogError(w, err)
		return
	}
	out := make([]adminSequence, 0, len(list))
	for _, seq := range list {
		a := adminSequence{Name: seq.Name, Spec: seq.Spec, Gen: seq.Gen, Tokens: seq.Tokens.Len()}
		s.describeLocal(&a)
		out = append(out, a)
	}
	writeJSON(w, http.StatusOK, struct {
		Sequences []adminSequence `json:"sequences"`
	}{out})
}

// createRequest is the body of POST /v1/admin/sequences. TokenSHA256
// holds the SHA-256 of each of the sequence's tokens in hex: the catalog
// keeps only hashes, and the tokens never travel.
type createRequest struct {
	Name        string   `json:"name"`
	Format      Format   `json:"format"`
	Layout      string   `json:"layout"`
	TokenSHA256 []string `json:"token_sha256"`
}

func (s *Server) handleAdminCreate(w http.ResponseWriter, r *http.Request) {
	if s.noCatalog(w) {
		return
	}
	var req createRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<16))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", "the body is not a JSON object {name, format, layout, token_sha256}: "+err.Error())
		return
	}
	var tokens []workerid.TokenHash
	for _, hex := range req.TokenSHA256 {
		h, err := workerid.ParseTokenHash(hex)
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf("token_sha256 %q: want the SHA-256 of a token in 64 hex digits (printf %%s \"$TOKEN\" | sha256sum), never the token itself", hex))
			return
		}
		tokens = append(tokens, h)
	}
	sc := SequenceConfig{Name: req.Name, Format: cmp.Or(req.Format, Format64)}
	if req.Layout != "" {
		if sc.Format != Format64 {
			writeError(w, http.StatusBadRequest, "bad_request", "a layout is for format id64 only")
			return
		}
		l, err := id64.ParseLayout(req.Layout)
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_request", err.Error())
			return
		}
		sc.Layout = l
	}
	spec, err := Spec(sc)
	if err != nil {
		catalogError(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), adminTimeout)
	defer cancel()
	before, err := s.cfg.Catalog.Get(ctx, req.Name)
	existed := err == nil && before.Spec == spec
	seq, err := s.cfg.Catalog.Create(ctx, req.Name, spec, tokens...)
	if err != nil {
		catalogError(w, err)
		return
	}
	status := http.StatusCreated
	if existed && before.Gen == seq.Gen {
		status = http.StatusOK
	}
	s.log.Info("sequence created", "seq", seq.Name, "gen", seq.Gen, "spec", seq.Spec, "tokens", seq.Tokens.Len(), "existed", status == http.StatusOK)
	writeJSON(w, status, adminSequence{Name: seq.Name, Spec: seq.Spec, Gen: seq.Gen, WorkerID: -1, Tokens: seq.Tokens.Len()})
}

func (s *Server) handleAdminDestroy(w http.ResponseWriter, r *http.Request) {
	if s.noCatalog(w) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), adminTimeout)
	defer cancel()
	name := r.PathValue("name")
	if msg := s.flagServed(name); msg != "" {
		writeError(w, http.StatusConflict, "conflict", msg)
		return
	}
	if err := s.cfg.Catalog.Destroy(ctx, name); err != nil {
		catalogError(w, err)
		return
	}
	s.log.Info("sequence destroyed cluster-wide", "seq", name)
	w.WriteHeader(http.StatusNoContent)
}

// flagServed says why the named sequence may not be destroyed through the
// API, or returns "": the node serves it from its configuration (floed's
// flags), and would stop serving it, with every node configured alike,
// until restarted without it. The default sequence is every node's.
func (s *Server) flagServed(name string) string {
	for i, sc := range s.cfg.Sequences {
		switch {
		case sc.Name != name:
		case i == 0:
			return fmt.Sprintf("sequence %q is the default sequence, which every node serves from its flags: it cannot be destroyed through the admin API (floe node detach stops one node serving it)", name)
		default:
			return fmt.Sprintf("sequence %q is served from this node's flags (--seq): destroying it would stop every node that serves it so, until restarted without it; remove it from their --seq flags and restart them, then destroy it", name)
		}
	}
	return ""
}

func (s *Server) handleAdminAttach(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), adminTimeout)
	defer cancel()
	name := r.PathValue("name")
	if err := s.attachNamed(ctx, name); err != nil {
		if errors.Is(err, ErrUnknownSequence) {
			writeError(w, http.StatusNotFound, "not_found", err.Error())
			return
		}
		catalogError(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, struct {
		Name     string `json:"name"`
		Attached bool   `json:"attached"`
	}{name, true})
}

func (s *Server) handleAdminDetach(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), adminTimeout)
	defer cancel()
	name := r.PathValue("name")
	if _, ok := s.set.Load().byName[name]; !ok {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("%v: %q", ErrUnknownSequence, name))
		return
	}
	if err := s.Detach(ctx, name); err != nil {
		writeError(w, http.StatusServiceUnavailable, "unavailable", err.Error())
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Name     string `json:"name"`
		Attached bool   `json:"attached"`
	}{name, false})
}

// attachNamed attaches the named sequence: a sequence this node has, as
// the catalog defines it now, or else one it adds from the catalog.
func (s *Server) attachNamed(ctx context.Context, name string) error {
	local, ok := s.set.Load().byName[name]
	if s.cfg.Catalog == nil {
		if !ok {
			return fmt.Errorf("%w: %q", ErrUnknownSequence, name)
		}
		return s.Attach(ctx, name)
	}
	def, err := s.cfg.Catalog.Get(ctx, name)
	if err != nil {
		return err
	}
	if ok && local.sc.Gen == def.Gen {
		return s.Attach(ctx, name)
	}
	return s.addSequence(ctx, def)
}

// addSequence starts serving a catalog's sequence this node does not have
// (or has in a destroyed generation, which it replaces). Its sequencer
// claims a worker ID in the background.
func (s *Server) addSequence(ctx context.Context, def workerid.Sequence) error {
	sc, err := SequenceFromSpec(def.Name, def.Spec)
	if err != nil {
		return err
	}
	sc.Gen = def.Gen
	// Its tokens: the catalog's, and those this node's configuration
	// gives the name (Config.Tokens, or the flags of a sequence it served
	// in an older generation).
	sc.TokenHashes, sc.Tokens = def.Tokens, s.cfg.Tokens[def.Name]
	if prev, ok := s.set.Load().byName[def.Name]; ok {
		sc.Tokens = prev.sc.Tokens
	}
	if sc.Source, err = s.cfg.Sources(def); err != nil {
		return err
	}
	seq, err := newSequence(sc, &s.cfg)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped || s.closing.Load() {
		return ErrServerClosed
	}
	old := s.set.Load()
	prev, had := old.byName[def.Name]
	if had && prev.sc.Gen == def.Gen {
		return nil // attached meanwhile
	}
	// An older generation is destroyed, even if its sequencer has not
	// seen it yet: the new one issues only above every tick the old one
	// could (workerid.Retired), so both may overlap for a moment.
	for _, h := range seq.tokens.Hashes() {
		for _, other := range old.list {
			if other.name != def.Name && other.tokens.Match(h) {
				return fmt.Errorf("%w: a token of sequence %q also selects sequence %q on this node", workerid.ErrConflict, def.Name, other.name)
			}
		}
	}
	if err := seq.open(context.Background(), &s.cfg, true); err != nil {
		return err
	}
	if err := seq.sq.Attach(ctx); err != nil {
		seq.sq.Close(context.Background())
		return err
	}
	list := slices.Clone(old.list)
	if i := slices.IndexFunc(list, func(q *sequence) bool { return q.name == def.Name }); i >= 0 {
		list[i] = seq
	} else {
		list = append(list, seq)
	}
	s.set.Store(newSeqSet(list))
	if had {
		// Destroyed: it holds no worker ID, or one of a generation the
		// catalog no longer has, whose release fails harmlessly.
		prev.sq.Close(context.Background())
	}
	s.log.Info("sequence attached", "seq", def.Name, "gen", def.Gen)
	s.watch(seq)
	return nil
}
