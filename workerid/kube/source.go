package kube

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/floeid/floe"
	"github.com/floeid/floe/workerid"
)

// Config configures a Source. A zero field means its documented default.
type Config struct {
	// Namespace is the Kubernetes namespace of the Lease objects.
	// Required; a Catalog sets it.
	Namespace string
	// Prefix begins the name of each worker ID's Lease: <Prefix><id>, for
	// example "floe-prod-" makes floe-prod-0, floe-prod-1... Required for
	// NewSource; a Catalog sets it. Prefix and each ID must make a valid
	// object name (a lower-case DNS-1123 subdomain).
	Prefix string
	// IDs is how many worker IDs the namespace has: the Source claims IDs
	// 0..IDs-1. Required, at least 1.
	IDs int
	// TTL is the Leases' leaseDurationSeconds: how long a holder that
	// stopped renewing keeps its worker ID, as another claimer observes it,
	// and how long a holder cut off from the API server keeps issuing.
	// Default 10 s, at least 1 s, rounded up to whole seconds.
	TTL time.Duration
	// RequestTimeout bounds each API request of a claim or a release, all
	// its attempts together; a renewal's or a reservation's attempts go on
	// until the lease's local deadline. One attempt takes TTL/6 at most.
	// Default TTL/3.
	RequestTimeout time.Duration
	// Owner names this process in the holder identities (<Owner>/<random>);
	// a claim prefers the worker ID its Owner held last. Give each process
	// a unique, stable name, its pod's name. Default os.Hostname(), which
	// in a pod is the pod's name.
	Owner string
	// Clock tells the time of the local lease deadline and of the
	// observations of other holders' Leases. Default floe.MonotonicClock.
	Clock floe.Clock
	// Logger receives claims (INFO), losses (WARN), leases a destroy of the
	// Catalog's sequence ended (INFO) and corrupt objects skipped (WARN).
	// Default: no logging.
	Logger *slog.Logger
}

// Source claims worker IDs as Lease objects of one namespace. It is safe
// for concurrent use; each Claim is another lease.
type Source struct {
	cli      Leases            // immutable: the namespace's Leases
	cfg      Config            // immutable, defaults applied
	ttl      time.Duration     // immutable: whole seconds
	renew    time.Duration     // immutable: interval of renewals
	retry    time.Duration     // immutable: interval of renewals after a failed one
	attempt  time.Duration     // immutable: bound of one attempt of a request
	labels   map[string]string // immutable: labels of this Source's worker Leases, with the Owner's
	selector string            // immutable: selects this Source's worker Leases
	mine     string            // immutable: selects those whose latest holder is this Owner
	guard    *guard            // immutable: nil unless made by a Catalog

	mu    sync.Mutex
	seen  map[string]observation // guarded by mu: what claims saw of others' Leases
	rv    string                 // guarded by mu: the resourceVersion of the last full list, "" before it
	ended map[string]bool        // guarded by mu: identities of this Source's leases lost here
}

// guard is the record a Catalog's Source claims under: a claim succeeds
// only while the record is live with the generation.
type guard struct {
	record string // the record Lease's name
	seq    string // the sequence name
	gen    int64
}

// NewSource returns a Source over the Leases cfg describes, using cli
// (a client of NewClient, or CoordinationV1() of a clientset).
func NewSource(cli LeasesGetter, cfg Config) (*Source, error) {
	return newSource(cli, cfg, nil)
}

func newSource(cli LeasesGetter, cfg Config, labels map[string]string) (*Source, error) {
	if cli == nil {
		return nil, ErrNoClient
	}
	if err := checkNamespace(cfg.Namespace); err != nil {
		return nil, err
	}
	if cfg.IDs < 1 {
		return nil, fmt.Errorf("%w: %d", ErrIDs, cfg.IDs)
	}
	if err := checkPrefix(cfg.Prefix, cfg.IDs); err != nil {
		return nil, err
	}
	switch {
	case cfg.TTL == 0:
		cfg.TTL = 10 * time.Second
	case cfg.TTL < time.Second:
		return nil, fmt.Errorf("%w: %v", ErrTTL, cfg.TTL)
	case cfg.TTL > time.Duration(1<<31-1)*time.Second:
		return nil, fmt.Errorf("%w: %v is above leaseDurationSeconds' range", ErrTTL, cfg.TTL)
	}
	ttl := (cfg.TTL + time.Second - 1).Truncate(time.Second)
	switch {
	case cfg.RequestTimeout == 0:
		cfg.RequestTimeout = ttl / 3
	case cfg.RequestTimeout < 0:
		return nil, fmt.Errorf("%w: %v", ErrRequestTimeout, cfg.RequestTimeout)
	}
	if cfg.Owner == "" {
		host, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("floe: naming the owner: %w", err)
		}
		cfg.Owner = host
	}
	if cfg.Clock == nil {
		cfg.Clock = floe.MonotonicClock
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	all := map[string]string{labelManagedBy: managedBy, labelSource: sourceLabel(cfg.Prefix)}
	for k, v := range labels {
		all[k] = v
	}
	all[labelOwner] = hashLabel(cfg.Owner)
	selector := labelSource + "=" + sourceLabel(cfg.Prefix)
	return &Source{
		cli:      cli.Leases(cfg.Namespace),
		cfg:      cfg,
		ttl:      ttl,
		renew:    ttl / 3,
		retry:    ttl / 10,
		attempt:  min(cfg.RequestTimeout, ttl/6),
		labels:   all,
		selector: selector,
		mine:     selector + "," + labelOwner + "=" + hashLabel(cfg.Owner),
		seen:     make(map[string]observation),
		ended:    make(map[string]bool),
	}, nil
}

// name is the Lease name of worker ID id.
func (s *Source) name(id int) string { return s.cfg.Prefix + strconv.Itoa(id) }

// obj names the Lease of worker ID id in errors: namespace/name.
func (s *Source) obj(id int) string { return s.cfg.Namespace + "/" + s.name(id) }

// parseID returns the worker ID of a Lease name, or -1.
func (s *Source) parseID(name string) int {
	rest, ok := strings.CutPrefix(name, s.cfg.Prefix)
	if !ok {
		return -1
	}
	id, err := strconv.Atoi(rest)
	if err != nil || id < 0 || id >= s.cfg.IDs || strconv.Itoa(id) != rest {
		return -1
	}
	return id
}

// call runs one API request in attempts for at most the RequestTimeout.
func (s *Source) call(ctx context.Context, fn func(ctx context.Context) error) error {
	rctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	return attempts(rctx, s.attempt, nil, fn)
}

// newIdentity returns a claim's holder identity: <Owner>/<16 hex digits>.
func (s *Source) newIdentity() string {
	var b [8]byte
	_, _ = crand.Read(b[:]) // crypto/rand.Read never fails
	return s.cfg.Owner + "/" + hex.EncodeToString(b[:])
}

// staleAfter is how many candidates a claim loses to other claimers before
// it lists the Leases again.
const staleAfter = 4

// probeIDs is how many random worker IDs a claim tries to create before it
// lists every Lease of the Source.
const probeIDs = 3

// errTaken: a candidate another claimer took first.
var errTaken = errors.New("taken")

// Claim takes a free worker ID: the one this Owner held last if it is
// free, else one of probeIDs random IDs with no Lease yet, else, from a
// list of the Source's Leases, a released one, else one with no Lease
// yet, else one whose holder was not seen renewing for its lease
// duration. It returns an error wrapping workerid.ErrExhausted when every
// ID is held, and for a Catalog's Source one wrapping workerid.ErrNotFound
// when the sequence's generation is no longer live.
//
// The probes spare the list of every Lease, which many claimers starting
// together would each make, to most claims while free IDs remain.
func (s *Source) Claim(ctx context.Context) (workerid.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	identity := s.newIdentity()
	order, err := s.probes(ctx)
	if err != nil {
		return nil, err
	}
	var st string
	for listed, lost := false, 0; ; {
		if len(order) == 0 {
			if listed {
				break
			}
			if order, st, err = s.candidates(ctx); err != nil {
				return nil, err
			}
			listed = true
			continue
		}
		c := order[0]
		order = order[1:]
		l, err := s.try(ctx, c, identity)
		if errors.Is(err, errTaken) {
			if !listed {
				continue
			}
			if lost++; lost%staleAfter == 0 && len(order) > 0 {
				if order, st, err = s.candidates(ctx); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		s.cfg.Logger.Info("worker ID claimed", "worker_id", l.id, "fence", l.fence, "object", l.name,
			"floor", l.floor, "reserved", l.reserved.Load(), "lease_ttl", s.ttl)
		return l, nil
	}
	return nil, fmt.Errorf("%w: all %d worker IDs of Leases %s/%s*%s", workerid.ErrExhausted, s.cfg.IDs, s.cfg.Namespace, s.cfg.Prefix, st)
}

// candidate is a worker ID a claim may take: obj is its Lease as listed,
// nil when it has none.
type candidate struct {
	id  int
	obj *coordv1.Lease
	w   worker
}

// list lists the Source's Leases that opts select.
func (s *Source) list(ctx context.Context, opts metav1.ListOptions) (*coordv1.LeaseList, error) {
	var list *coordv1.LeaseList
	err := s.call(ctx, func(ctx context.Context) (err error) {
		list, err = s.cli.List(ctx, opts)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("floe: listing worker IDs: %w", explain(err, "list", s.cfg.Namespace, ""))
	}
	return list, nil
}

// probes returns the worker IDs a claim tries before it lists every Lease
// of the Source: the one this Owner held last, when its Lease is free,
// then up to probeIDs random IDs not seen with a Lease, to create. It
// lists only the Leases labelled with this Owner, from the API server's
// watch cache: a stale answer costs a refused write, never the fence.
func (s *Source) probes(ctx context.Context) ([]candidate, error) {
	list, err := s.list(ctx, metav1.ListOptions{LabelSelector: s.mine, ResourceVersion: "0"})
	if err != nil {
		return nil, err
	}
	var order []candidate
	exists := make(map[int]bool, len(list.Items)+probeIDs)
	s.mu.Lock()
	for i := range list.Items {
		obj := &list.Items[i]
		id := s.parseID(obj.Name)
		if id < 0 {
			continue
		}
		exists[id] = true
		// A corrupt Lease is logged by the list of every Lease.
		w, err := decodeWorker(obj)
		if err != nil || w.retired || w.owner != s.cfg.Owner || len(order) > 0 {
			continue
		}
		if w.holder == "" || s.ended[w.holder] {
			order = append(order, candidate{id: id, obj: obj, w: w})
		}
	}
	s.mu.Unlock()
	for range probeIDs {
		if id := rand.IntN(s.cfg.IDs); !exists[id] {
			exists[id] = true
			order = append(order, candidate{id: id})
		}
	}
	return order, nil
}

// candidates lists the Source's Leases and returns the worker IDs to try
// in order, and what the held ones tell for an ErrExhausted message.
//
// A Source's first list is a consistent read; later ones may be served
// from the API server's watch cache, no older than the list before. A
// stale list is safe: every claim's write carries the resourceVersion
// listed (or is a Create), so a write after one the list missed is
// refused with a conflict and costs the claim a candidate. The expiry
// judgment stays safe too. A takeover's Update applies only if the
// resourceVersion it carries is still the Lease's latest: no write came
// between the one that made it, before the list was served, and the
// Update. The claimer saw that resourceVersion unchanged for the lease
// duration, on its own clock, from after the list returned. So the holder
// wrote nothing for that long, and its local deadline, the send time of
// its last applied write plus the TTL, has passed. A renewal the cache
// had not shown changed the resourceVersion: the takeover gets a 409.
func (s *Source) candidates(ctx context.Context) ([]candidate, string, error) {
	opts := metav1.ListOptions{LabelSelector: s.selector}
	s.mu.Lock()
	if s.rv != "" {
		opts.ResourceVersion, opts.ResourceVersionMatch = s.rv, metav1.ResourceVersionMatchNotOlderThan
	}
	s.mu.Unlock()
	list, err := s.list(ctx, opts)
	if err != nil {
		return nil, "", err
	}
	now := s.cfg.Clock.Now()
	present := make([]bool, s.cfg.IDs)
	var preferred, released, expired []candidate
	var held heldStatus
	s.mu.Lock()
	if list.ResourceVersion != "" {
		s.rv = list.ResourceVersion
	}
	names := make(map[string]bool, len(list.Items))
	holders := make(map[string]bool, len(list.Items))
	for i := range list.Items {
		obj := &list.Items[i]
		id := s.parseID(obj.Name)
		if id < 0 {
			continue
		}
		present[id] = true
		names[obj.Name] = true
		w, err := decodeWorker(obj)
		if err != nil {
			s.cfg.Logger.Warn("skipping a corrupt worker lease", "object", objName(obj), "err", err)
			continue
		}
		holders[w.holder] = true
		if w.retired {
			continue
		}
		c := candidate{id: id, obj: obj, w: w}
		unchanged := observe(s.seen, obj.Name, obj.ResourceVersion, now)
		ttl := w.duration
		if ttl == 0 {
			ttl = s.ttl
		}
		switch {
		case w.holder == "" || s.ended[w.holder]:
		case unchanged >= ttl:
			c.w.duration = unchanged // kept for the order: the longest silent first
		default:
			held.add(unchanged, ttl)
			continue
		}
		switch {
		case w.owner == s.cfg.Owner && len(preferred) == 0:
			preferred = append(preferred, c)
		case w.holder == "" || s.ended[w.holder]:
			released = append(released, c)
		default:
			expired = append(expired, c)
		}
	}
	for name := range s.seen {
		if !names[name] {
			delete(s.seen, name)
		}
	}
	for identity := range s.ended {
		if !holders[identity] {
			delete(s.ended, identity)
		}
	}
	s.mu.Unlock()
	var missing []candidate
	for id, ok := range present {
		if !ok {
			missing = append(missing, candidate{id: id})
		}
	}
	// In random order: claimers that start together and lose a race try
	// unrelated IDs next.
	rand.Shuffle(len(released), func(i, j int) { released[i], released[j] = released[j], released[i] })
	rand.Shuffle(len(missing), func(i, j int) { missing[i], missing[j] = missing[j], missing[i] })
	slices.SortFunc(expired, func(a, b candidate) int { return int(b.w.duration - a.w.duration) })
	order := slices.Concat(preferred, released, missing, expired)
	return order, held.String(), nil
}

// try writes this claim on candidate c: a Create for a worker ID with no
// Lease, an Update carrying the listed resourceVersion otherwise. It
// returns errTaken when another claimer wrote first.
func (s *Source) try(ctx context.Context, c candidate, identity string) (*lease, error) {
	now := s.cfg.Clock.Now()
	mt := metav1.NewMicroTime(now)
	var obj *coordv1.Lease
	next := worker{holder: identity, duration: s.ttl, owner: s.cfg.Owner}
	verb := "create"
	if c.obj == nil {
		next.fence = 1
		one := int32(1)
		obj = &coordv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: s.name(c.id), Namespace: s.cfg.Namespace, Labels: s.labels},
			Spec:       coordv1.LeaseSpec{AcquireTime: &mt, RenewTime: &mt, LeaseTransitions: &one},
		}
	} else {
		verb = "update"
		next.fence, next.reserved = c.w.fence+1, c.w.reserved
		obj = c.obj.DeepCopy()
		if obj.Labels == nil {
			obj.Labels = make(map[string]string, 1)
		}
		obj.Labels[labelOwner] = s.labels[labelOwner]
		obj.Spec.AcquireTime, obj.Spec.RenewTime = &mt, &mt
		n := int32(1)
		if t := obj.Spec.LeaseTransitions; t != nil && *t >= 0 && *t < 1<<31-1 {
			n = *t + 1
		}
		obj.Spec.LeaseTransitions = &n
	}
	setWorker(obj, next)
	sent := s.cfg.Clock.Now()
	var got *coordv1.Lease
	tries := 0
	err := s.call(ctx, func(ctx context.Context) (err error) {
		tries++
		if c.obj == nil {
			got, err = s.cli.Create(ctx, obj, metav1.CreateOptions{})
		} else {
			got, err = s.cli.Update(ctx, obj, metav1.UpdateOptions{})
		}
		return err
	})
	switch {
	case (apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err)) && tries == 1:
		return nil, errTaken // no earlier attempt of this claim: another's write
	case apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err):
		// Another claimer's write, or an attempt of this claim's that got
		// no reply and applied: then the Lease holds this identity.
		if got, err = s.get(ctx, s.name(c.id)); err != nil {
			return nil, err
		}
		if w, derr := decodeWorker(got); got == nil || derr != nil || w.holder != identity || w.fence != next.fence {
			return nil, errTaken
		}
	case apierrors.IsNotFound(err) && notFoundKind(err) != "namespaces" && c.obj != nil:
		return nil, errTaken // deleted since the list
	case err != nil:
		return nil, fmt.Errorf("floe: claiming worker ID %d: %w", c.id, explain(err, verb, s.cfg.Namespace, s.name(c.id)))
	}
	floor := next.reserved
	if c.w.last > 0 && c.obj != nil {
		floor = c.w.last
	}
	l := s.newLease(c.id, next.fence, identity, floor, got, sent)
	if err := s.validate(ctx, l); err != nil {
		return nil, err
	}
	if now := s.cfg.Clock.Now(); !now.Before(sent.Add(s.ttl)) {
		l.giveBack()
		return nil, fmt.Errorf("floe: claiming worker ID %d (Lease %s) took %v, longer than the lease TTL %v", c.id, s.obj(c.id), now.Sub(sent), s.ttl)
	}
	l.start()
	return l, nil
}

// get reads one Lease of the namespace; nil and no error when it does not
// exist.
func (s *Source) get(ctx context.Context, name string) (*coordv1.Lease, error) {
	var got *coordv1.Lease
	err := s.call(ctx, func(ctx context.Context) (err error) {
		got, err = s.cli.Get(ctx, name, metav1.GetOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("floe: %w", explain(err, "get", s.cfg.Namespace, name))
	}
	return got, nil
}

// validate checks, after a claim's write, that the sequence of a
// Catalog's Source is still live with its generation (a consistent read
// of its record); else it gives the worker ID back and returns an error
// wrapping workerid.ErrNotFound. A Destroy marks the record before it
// lists the worker Leases, so a claim written after that list reads the
// mark here and never issues.
func (s *Source) validate(ctx context.Context, l *lease) error {
	if s.guard == nil {
		return nil
	}
	rec, err := s.get(ctx, s.guard.record)
	var why string
	switch {
	case err != nil:
		l.giveBack()
		return fmt.Errorf("floe: claiming worker ID %d of sequence %q: reading its record: %w", l.id, s.guard.seq, err)
	case rec == nil:
		why = "has no record"
	default:
		r, err := decodeRecord(rec)
		switch {
		case err != nil:
			l.giveBack()
			return fmt.Errorf("floe: claiming worker ID %d of sequence %q: %w", l.id, s.guard.seq, err)
		case r.name != s.guard.seq:
			why = fmt.Sprintf("shares the record Lease %s with sequence %q (a hash collision)", objName(rec), r.name)
		case r.state != stateLive || r.gen != s.guard.gen:
			why = fmt.Sprintf("is %s at generation %d (record Lease %s)", r.state, r.gen, objName(rec))
		default:
			return nil
		}
	}
	l.giveBack()
	return fmt.Errorf("%w: sequence %q generation %d %s", workerid.ErrNotFound, s.guard.seq, s.guard.gen, why)
}

// lost records that the lease of identity ended here: a claim of this
// Source may take its worker ID at once, the holder having stopped.
func (s *Source) lost(identity string) {
	s.mu.Lock()
	s.ended[identity] = true
	s.mu.Unlock()
}
