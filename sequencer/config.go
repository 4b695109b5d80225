package sequencer

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/workerid"
)

// Config configures a Sequencer. Zero fields take the defaults stated on
// them; Open refuses the rest with an error wrapping ErrConfig, ErrName or
// ErrDefinition that names the field.
type Config struct {
	// Name names the sequence: 1..64 bytes of [A-Za-z0-9_.-], not "." or
	// "..". Required.
	Name string
	// Definition is the sequence's format and layout; the zero Definition
	// is id64 on id64.Twitter.
	Definition Definition

	// Source hands out the sequence's worker IDs and keeps their
	// reservations: workerid.Static for a fixed worker ID with a local
	// state file, or a coordinator's Source (workerid/etcd,
	// workerid/redis). Required unless Catalog and Sources are set.
	Source workerid.Source
	// Catalog, when set, is the cluster's catalog of sequences. Without a
	// Generation, Open creates the sequence under Name with the
	// Definition, or finds it defined so; a catalog that defines it
	// otherwise is a *DefinitionError. The sequencer follows its
	// generation in the catalog and is Destroyed as soon as the catalog
	// no longer has it; it issues only above the name's retired
	// generation (workerid.Retired). A catalog Open cannot reach is an
	// error wrapping ErrCatalog.
	Catalog workerid.Catalog
	// Sources returns the Source of a catalog's sequence generation (for
	// example a closure over etcd.Catalog.Source). Required with a Catalog
	// and no Source.
	//
	// A coordinator's Source names its process by its Owner
	// (etcd.Config.Owner, redis.Config.Owner), and a claim prefers the
	// worker ID its Owner held last: give each process a unique, stable
	// Owner (its pod's name, or the host name with the service's name or
	// port). The default, the host name, makes processes on one host
	// compete for one preferred worker ID. Reach the coordinator with
	// etcd.Dial or redis.Dial, which name an endpoint that refuses, fails
	// TLS or never answers, and why, where a client of one's own reports
	// only its deadline.
	Sources func(workerid.Sequence) (workerid.Source, error)
	// Generation is the catalog generation that Source serves, when the
	// caller has already defined the sequence in Catalog: Open then does
	// not touch the catalog. Zero means Open defines it (see Catalog).
	// Required with both Catalog and Source.
	Generation int64

	// Detached makes Open return the sequencer detached: it claims no
	// worker ID until Attach. Open then does no more than define the
	// sequence in the Catalog (without a Generation).
	Detached bool

	// Clock is read for the time; nil means floe.MonotonicClock.
	Clock floe.Clock
	// Policy is the clock policy: floe.Wait (the default), floe.Fail or
	// floe.Borrow. MaxAhead bounds Borrow (zero means 1 s) and MaxWait
	// bounds one call's wait for the clock or for the keeper to extend the
	// reservation (zero means 5 s).
	Policy   floe.Policy
	MaxAhead time.Duration
	MaxWait  time.Duration
	// Window is how far the durable reservation reaches ahead of need (the
	// later of the clock and the last tick issued): while serving, the
	// keeper keeps between half a window and a window reserved, writing
	// once the headroom falls to 9/16 of a window, that is every 7/16 of a
	// window. Zero means 2 s; otherwise it is at least MinWindow. A crash
	// costs at most one window of waiting at the worker ID's next claim
	// (policy Wait; Borrow adds MaxAhead).
	Window time.Duration
	// ClaimTimeout bounds one claim of a worker ID, one reservation write
	// and one release; zero means 5 s.
	ClaimTimeout time.Duration
	// Floor is noeqd's time of death: nothing is issued at or before it.
	// The zero time means none.
	Floor time.Time
	// Logger receives the sequencer's claims, losses and failed writes,
	// with the attribute seq; nil means no logging.
	Logger *slog.Logger
}

// MinWindow is the shortest Config.Window: it keeps the keeper from writing
// the coordinator more than a few hundred times a second.
const MinWindow = 10 * time.Millisecond

// Defaults.
const (
	defaultWindow       = 2 * time.Second
	defaultMaxWait      = 5 * time.Second
	defaultMaxAhead     = time.Second
	defaultClaimTimeout = 5 * time.Second
)

// validate checks c and fills in its defaults.
func (c *Config) validate() error {
	if !workerid.ValidName(c.Name) {
		return fmt.Errorf("%w: Name %q: want 1..64 bytes of [A-Za-z0-9_.-], not \".\" or \"..\"", ErrName, c.Name)
	}
	if err := c.Definition.Validate(); err != nil {
		return fmt.Errorf("sequence %q: Definition: %w", c.Name, err)
	}
	c.Definition = c.Definition.canonical()
	switch {
	case c.Source == nil && c.Catalog == nil:
		return fmt.Errorf("%w: sequence %q: neither a Source nor a Catalog", ErrConfig, c.Name)
	case c.Source == nil && c.Sources == nil:
		return fmt.Errorf("%w: sequence %q: a Catalog without Sources (or a Source)", ErrConfig, c.Name)
	case c.Source != nil && c.Catalog != nil && c.Generation == 0:
		return fmt.Errorf("%w: sequence %q: a Source and a Catalog without the Generation the Source serves", ErrConfig, c.Name)
	case c.Generation != 0 && (c.Catalog == nil || c.Source == nil):
		return fmt.Errorf("%w: sequence %q: Generation %d without a Catalog and its Source", ErrConfig, c.Name, c.Generation)
	}
	switch c.Policy {
	case floe.Wait, floe.Fail, floe.Borrow:
	default:
		return fmt.Errorf("%w: sequence %q: Policy %s (want wait, fail or borrow)", ErrConfig, c.Name, c.Policy)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"MaxAhead", c.MaxAhead}, {"MaxWait", c.MaxWait}, {"Window", c.Window}, {"ClaimTimeout", c.ClaimTimeout}} {
		if d.v < 0 {
			return fmt.Errorf("%w: sequence %q: %s %v is negative", ErrConfig, c.Name, d.name, d.v)
		}
	}
	if c.Window == 0 {
		c.Window = defaultWindow
	}
	if c.Window < MinWindow {
		return fmt.Errorf("%w: sequence %q: Window %v is below %v", ErrConfig, c.Name, c.Window, MinWindow)
	}
	if c.MaxWait == 0 {
		c.MaxWait = defaultMaxWait
	}
	if c.ClaimTimeout == 0 {
		c.ClaimTimeout = defaultClaimTimeout
	}
	if c.Clock == nil {
		c.Clock = floe.MonotonicClock
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}
