package server

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
)

// Format names an ID format a sequence issues.
type Format = sequencer.Format

// The formats. Only Format64 can be served over the binary protocol.
const (
	Format64  = sequencer.Format64
	Format80  = sequencer.Format80
	Format96  = sequencer.Format96
	Format128 = sequencer.Format128
)

// SequenceConfig defines one named sequence.
type SequenceConfig struct {
	// Name selects the sequence over HTTP (?seq=name) and in the Store.
	Name string
	// Format is the ID format; empty means id64.
	Format Format
	// Layout is the id64 layout; the zero Layout means id64.Twitter.
	Layout id64.Layout
	// Datacenter and Worker are the id64 node.
	Datacenter, Worker uint64
	// Node is the id80 partition (0..65535), the id96 node (1..2^32-1) or
	// the id128 worker (0..65535).
	Node uint64
	// Source hands out the sequence's worker ID and keeps its
	// reservation: etcd or Redis in a cluster. Nil means the fixed node
	// above (Datacenter and Worker, or Node) with its reservation in
	// Config.Store, through a workerid.Static.
	Source workerid.Source
	// Gen is the generation of the sequence in Config.Catalog (see
	// workerid.Sequence); zero for a sequence outside any catalog. A
	// sequence whose generation is gone from the catalog was destroyed, and
	// the server stops serving it.
	Gen int64
	// Tokens select this sequence on a binary connection (the auth frame)
	// and authorize HTTP requests for it (Authorization: Bearer). A sequence
	// without tokens (and without TokenHashes) is open to all.
	Tokens []string
	// TokenHashes are more tokens of the sequence, as their hashes: the
	// catalog's (workerid.Sequence.Tokens).
	TokenHashes workerid.Tokens
}

// Record is what a Store keeps for a sequence.
type Record struct {
	// Definition is the sequence's canonical definition; a server refuses
	// to start a sequence whose definition changed.
	Definition string
	// Reserved is the reservation R: the highest tick the sequence may
	// issue. It never goes down.
	Reserved uint64
	// Last, when not zero, is the last tick issued before a clean stop
	// (at most Reserved): the next start may begin right above it.
	Last uint64
}

// Store keeps each sequence's Record durably: Save returns only once the
// record would survive a crash. The server calls Load once per sequence at
// New, and Save from one goroutine per sequence.
type Store interface {
	Load(name string) (rec Record, ok bool, err error)
	Save(name string, rec Record) error
}

// Config configures a Server. Zero fields take the defaults stated on them.
type Config struct {
	// Sequences are the sequences served; at least one. The first is the
	// default: binary connections without an auth frame and HTTP requests
	// without ?seq= use it.
	Sequences []SequenceConfig
	// Catalog, in a cluster, is where the named sequences are defined; it
	// serves the admin API's sequence operations. Nil outside a cluster.
	Catalog workerid.Catalog
	// Sources returns the worker-ID source of a catalog's sequence, for a
	// sequence attached at runtime. Required with Catalog.
	Sources func(workerid.Sequence) (workerid.Source, error)
	// Tokens gives the named sequences that are not in Sequences, which
	// the Catalog may define and the admin API attach at runtime, their
	// tokens, as SequenceConfig.Tokens does; the catalog's own tokens of
	// the sequence select it too. Only with Catalog.
	Tokens map[string][]string
	// AdminToken, when set, is required (Authorization: Bearer) by the
	// admin API under /v1/admin/. Without it (and without AdminLoopback)
	// the admin API refuses every request.
	AdminToken string
	// AdminLoopback serves the admin API to loopback clients without
	// AdminToken. Off by default: a same-host proxy or a mesh sidecar
	// (Istio's connects from 127.0.0.6) makes every client a loopback one.
	AdminLoopback bool
	// HTTPClientCert refuses the HTTP requests that came without a
	// verified client certificate (403, code client_cert_required), but
	// for /healthz and /readyz. It is for mutual TLS on HTTP served with
	// tls.VerifyClientCertIfGiven, so that a kubelet's HTTPS probes, which
	// present no certificate, still reach the probes: a certificate from
	// another CA still fails the handshake.
	HTTPClientCert bool
	// Store keeps the reservations of the sequences without a Source;
	// required when there are any.
	Store Store
	// Clock, Policy, MaxAhead, MaxWait, Window, ClaimTimeout and Floor
	// are every sequence's, as the fields of the same names in
	// sequencer.Config document them (Window: between half of it and all
	// of it stays reserved, and a crash costs at most one window).
	Clock        floe.Clock
	Policy       floe.Policy
	MaxAhead     time.Duration
	MaxWait      time.Duration
	Window       time.Duration
	ClaimTimeout time.Duration
	Floor        time.Time
	// FirstClaim is how long New claims a sequence's first worker ID
	// again while the claim fails (sequencer.ErrClaim: the coordinator
	// out of reach or refusing, a member rejoining; sequencer.ErrCatalog),
	// with a back-off from 100 ms to 1 s; New then returns the last
	// claim's error. Zero claims once. Later claims are the sequencer's,
	// retried without end.
	FirstClaim time.Duration
	// MaxConns bounds open binary connections, and apart from them open
	// gRPC connections; zero means 4096. Connections over it are closed at
	// once.
	MaxConns int
	// AuthTimeout bounds the time to complete an auth frame (from the
	// accept when a token is required); zero means 5 s.
	AuthTimeout time.Duration
	// IdleTimeout closes a binary connection with no request for this
	// long, and a gRPC connection with no call in progress (see
	// ServeGRPC); zero means 5 minutes.
	IdleTimeout time.Duration
	// MaxHTTPCount is the most IDs one HTTP request may ask for; zero means
	// 1000.
	MaxHTTPCount int
	// Logger receives the server's logs; nil means slog.Default(). The
	// lines about single binary connections (refused, bad requests, failed
	// requests, failed accepts) are written at most once per 5 s (read on
	// Clock) per kind; each counts in the attribute "suppressed" the lines
	// of its kind left out since the previous one.
	Logger *slog.Logger
	// Registry receives the server's metrics; nil means none.
	Registry *prometheus.Registry
	// Version and Revision (the module version and the VCS revision of
	// the build) are the labels of floe_build_info.
	Version  string
	Revision string
}

// Defaults.
const (
	defaultWindow       = 2 * time.Second
	defaultMaxConns     = 4096
	defaultAuthTimeout  = 5 * time.Second
	defaultIdleTimeout  = 5 * time.Minute
	defaultMaxHTTPCount = 1000
	defaultMaxWait      = 5 * time.Second
	defaultClaimTimeout = 5 * time.Second
)

// MinWindow is the shortest Config.Window: it keeps the keeper from writing
// the store more than a few hundred times a second.
const MinWindow = sequencer.MinWindow

func (c *Config) setDefaults() {
	if c.Clock == nil {
		c.Clock = floe.MonotonicClock
	}
	if c.Window == 0 {
		c.Window = defaultWindow
	}
	if c.MaxConns == 0 {
		c.MaxConns = defaultMaxConns
	}
	if c.AuthTimeout == 0 {
		c.AuthTimeout = defaultAuthTimeout
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = defaultIdleTimeout
	}
	if c.MaxHTTPCount == 0 {
		c.MaxHTTPCount = defaultMaxHTTPCount
	}
	if c.ClaimTimeout == 0 {
		c.ClaimTimeout = defaultClaimTimeout
	}
	if c.MaxWait == 0 {
		c.MaxWait = defaultMaxWait
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

func (c *Config) validate() error {
	switch {
	case len(c.Sequences) == 0:
		return fmt.Errorf("%w: no sequences", ErrConfig)
	case c.Window < MinWindow:
		return fmt.Errorf("%w: reservation window %v is below %v", ErrConfig, c.Window, MinWindow)
	case c.MaxConns < 0 || c.AuthTimeout < 0 || c.IdleTimeout < 0 || c.MaxHTTPCount < 0 || c.MaxAhead < 0 || c.MaxWait < 0 || c.ClaimTimeout < 0 || c.FirstClaim < 0:
		return fmt.Errorf("%w: negative limit", ErrConfig)
	}
	if c.Catalog != nil && c.Sources == nil {
		return fmt.Errorf("%w: a catalog without Sources", ErrConfig)
	}
	switch c.Policy {
	case floe.Wait, floe.Fail, floe.Borrow:
	default:
		return fmt.Errorf("%w: clock policy %s (want wait, fail or borrow)", ErrConfig, c.Policy)
	}
	names := make(map[string]bool)
	tokens := make(map[workerid.TokenHash]string)
	add := func(name string, clear []string, hashes workerid.Tokens) error {
		seen := make(map[workerid.TokenHash]bool)
		for _, tok := range clear {
			if len(tok) == 0 || len(tok) > 255 {
				return fmt.Errorf("%w: sequence %q: a token has 1..255 bytes", ErrConfig, name)
			}
			seen[workerid.HashToken([]byte(tok))] = true
		}
		for _, h := range hashes.Hashes() {
			seen[h] = true
		}
		for h := range seen {
			if other, ok := tokens[h]; ok {
				return fmt.Errorf("%w: one token selects both %q and %q", ErrConfig, other, name)
			}
			tokens[h] = name
		}
		return nil
	}
	for _, sc := range c.Sequences {
		if sc.Name == "" {
			return fmt.Errorf("%w: a sequence without a name", ErrConfig)
		}
		if names[sc.Name] {
			return fmt.Errorf("%w: sequence %q defined twice", ErrConfig, sc.Name)
		}
		names[sc.Name] = true
		if err := add(sc.Name, sc.Tokens, sc.TokenHashes); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Tokens)) {
		switch {
		case c.Catalog == nil:
			return fmt.Errorf("%w: tokens for sequence %q, which is not served, and no catalog to attach it from", ErrConfig, name)
		case names[name]:
			return fmt.Errorf("%w: tokens for sequence %q both in Tokens and in Sequences", ErrConfig, name)
		case !workerid.ValidName(name):
			return fmt.Errorf("%w: tokens for sequence name %q: want 1..64 bytes of [A-Za-z0-9_.-], not \".\" or \"..\"", ErrConfig, name)
		}
		if err := add(name, c.Tokens[name], workerid.Tokens{}); err != nil {
			return err
		}
	}
	return nil
}
