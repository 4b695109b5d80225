package etcd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/floeid/floe"
	"github.com/floeid/floe/workerid"
)

// Config configures a Source. A zero field means its documented default.
type Config struct {
	// Prefix is the key prefix of the worker-ID namespace, for example
	// "/floe/v1/prod/". Required; it ends in "/".
	Prefix string
	// IDs is how many worker IDs the namespace has: the Source claims IDs
	// 0..IDs-1. Required, at least 1.
	IDs int
	// TTL is the time to live of the etcd lease behind a claim: how soon
	// the worker ID of a holder that died is free again, and how long a
	// holder that cannot renew keeps its lease. Default 10 s, at least
	// 1 s, rounded up to whole seconds (etcd's unit).
	TTL time.Duration
	// RequestTimeout bounds each etcd request of a claim, a release or a
	// revocation, all its attempts together; a renewal's or a
	// reservation's attempts go on until the lease's local deadline. One
	// attempt takes TTL/6 at most, and RequestTimeout at most; one that
	// gets no reply is tried again on another member. Default TTL/3.
	RequestTimeout time.Duration
	// Owner names this process in the owner keys and reservations; a claim
	// prefers the worker ID this Owner held last. Give each process a
	// unique, stable name (its pod's name, or the host name with the
	// service's name or port), so that a restart takes its own worker ID
	// back. Default os.Hostname(): processes on one host then share one
	// name and compete for one preferred worker ID.
	Owner string
	// Clock tells the time of the local lease deadline. Default
	// floe.MonotonicClock.
	Clock floe.Clock
	// Logger receives claims, losses (WARN), leases a destroy of the
	// Catalog's sequence ended (INFO) and failed revocations. Default: no
	// logging.
	Logger *slog.Logger
}

// Source claims worker IDs in etcd. It is safe for concurrent use; each
// Claim is another lease, with its own etcd lease.
type Source struct {
	cli   *clientv3.Client // immutable
	cfg   Config           // immutable, defaults applied
	ttl   time.Duration    // immutable: whole seconds
	renew time.Duration    // immutable: interval of renewals
	retry time.Duration    // immutable: interval of renewals after a failed one
	// attempt bounds one attempt of a request: TTL/6, at most the
	// RequestTimeout. A request is tried again, on another member, until
	// the RequestTimeout or, for a lease's, its local deadline.
	attempt time.Duration // immutable
	guard   *guard        // immutable: nil unless made by a Catalog
}

// guard is the sequence key a Catalog's Source claims under: a claim
// succeeds only while the key exists with the sequence's generation.
type guard struct {
	key string
	gen int64
}

// NewSource returns a Source over the namespace cfg describes, using cli,
// which the caller keeps and closes after the Source's leases end.
func NewSource(cli *clientv3.Client, cfg Config) (*Source, error) {
	if cli == nil {
		return nil, ErrNoClient
	}
	if cfg.Prefix == "" || !strings.HasSuffix(cfg.Prefix, "/") {
		return nil, fmt.Errorf("%w: %q", ErrPrefix, cfg.Prefix)
	}
	if cfg.IDs < 1 {
		return nil, fmt.Errorf("%w: %d", ErrIDs, cfg.IDs)
	}
	switch {
	case cfg.TTL == 0:
		cfg.TTL = 10 * time.Second
	case cfg.TTL < time.Second:
		return nil, fmt.Errorf("%w: %v", ErrTTL, cfg.TTL)
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
	return &Source{
		cli:     cli,
		cfg:     cfg,
		ttl:     ttl,
		renew:   ttl / 3,
		retry:   ttl / 10, // a failed renewal is retried a few times before the deadline
		attempt: min(cfg.RequestTimeout, ttl/6),
	}, nil
}

func (s *Source) ownerKey(id int) string    { return s.cfg.Prefix + "workers/" + strconv.Itoa(id) }
func (s *Source) reservedKey(id int) string { return s.cfg.Prefix + "reserved/" + strconv.Itoa(id) }

// parseID returns the worker ID at the end of key after prefix, or -1.
func (s *Source) parseID(key []byte, prefix string) int {
	rest, ok := strings.CutPrefix(string(key), prefix)
	if !ok {
		return -1
	}
	id, err := strconv.Atoi(rest)
	if err != nil || id < 0 || id >= s.cfg.IDs || strconv.Itoa(id) != rest {
		return -1
	}
	return id
}

// request returns the context of one etcd request.
func (s *Source) request(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.cfg.RequestTimeout)
}

// call runs one etcd request, fn, in attempts (do) for at most the
// RequestTimeout.
func (s *Source) call(ctx context.Context, fn func(ctx context.Context) error) error {
	rctx, cancel := s.request(ctx)
	defer cancel()
	return s.do(rctx, nil, fn)
}

// Claim takes a free worker ID: the one this Owner held last if it is
// free, else a free one at random. Each attempt is one
// transaction creating the ID's owner key under a new etcd lease and
// reading its reservation. It returns an error wrapping
// workerid.ErrExhausted when every ID is held, and one wrapping ErrCorrupt
// when the claimed ID's reservation does not decode.
func (s *Source) Claim(ctx context.Context) (workerid.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// A grant retried after an attempt without a reply may leave the
	// attempt's lease, which nothing uses, to expire after its TTL.
	sent := s.cfg.Clock.Now()
	var g *clientv3.LeaseGrantResponse
	err := s.call(ctx, func(ctx context.Context) (err error) {
		g, err = s.cli.Grant(ctx, int64(s.ttl/time.Second))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("floe: granting an etcd lease: %w", err)
	}
	l, err := s.claim(ctx, g.ID, sent)
	if err != nil {
		s.revoke(ctx, g.ID)
		return nil, err
	}
	s.cfg.Logger.Info("worker ID claimed", "worker_id", l.id, "fence", l.fence,
		"floor", l.floor, "reserved", l.reserved.Load(), "lease_ttl", s.ttl)
	return l, nil
}

func (s *Source) claim(ctx context.Context, leaseID clientv3.LeaseID, sent time.Time) (*lease, error) {
	order, err := s.candidates(ctx)
	if err != nil {
		return nil, err
	}
	for lost := 0; len(order) > 0; {
		id := order[0]
		order = order[1:]
		ownerKey, reservedKey := s.ownerKey(id), s.reservedKey(id)
		cmps := []clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(ownerKey), "=", 0)}
		orElse := []clientv3.Op{clientv3.OpGet(ownerKey), clientv3.OpGet(reservedKey)}
		if s.guard != nil {
			cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(s.guard.key), "=", s.guard.gen))
			orElse = append(orElse, clientv3.OpGet(s.guard.key))
		}
		var resp *clientv3.TxnResponse
		err := s.call(ctx, func(ctx context.Context) (err error) {
			resp, err = s.cli.Txn(ctx).If(cmps...).Then(
				clientv3.OpPut(ownerKey, s.cfg.Owner, clientv3.WithLease(leaseID)),
				clientv3.OpGet(reservedKey),
			).Else(orElse...).Commit()
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("floe: claiming worker ID %d: %w", id, err)
		}
		fence, reserved := resp.Header.Revision, resp.Responses[1].GetResponseRange().GetKvs()
		if !resp.Succeeded {
			// An attempt that got no reply may have created the key under
			// this claim's etcd lease: then the ID is this claim's.
			if owner := resp.Responses[0].GetResponseRange().GetKvs(); len(owner) > 0 && owner[0].Lease == int64(leaseID) {
				fence = owner[0].CreateRevision
				goto claimed
			}
			if s.guard != nil {
				kvs := resp.Responses[2].GetResponseRange().GetKvs()
				if len(kvs) == 0 || kvs[0].CreateRevision != s.guard.gen {
					return nil, fmt.Errorf("%w: sequence at %q, generation %d", workerid.ErrNotFound, s.guard.key, s.guard.gen)
				}
			}
			// Taken since the snapshot. Claimers starting together take
			// the IDs free in it fast: after a few losses, read it again
			// rather than try one stale candidate after another.
			if lost++; lost%staleAfter == 0 && len(order) > 0 {
				if order, err = s.candidates(ctx); err != nil {
					return nil, err
				}
			}
			continue
		}
	claimed:
		var rec reservation
		var rev int64 // the reservation's mod revision; 0: none
		if len(reserved) > 0 {
			if rec, err = decodeReservation(reserved[0].Value); err != nil {
				return nil, fmt.Errorf("floe: claiming worker ID %d: %w", id, err)
			}
			rev = reserved[0].ModRevision
		}
		floor := rec.R
		if rec.Last != 0 {
			// This holder may issue above Last up to R without reserving:
			// if it dies, the next holder must start above R, not Last.
			floor = rec.Last
			if rev, err = s.clearLast(ctx, id, fence, rec.R, rev); err != nil {
				return nil, err
			}
		}
		if now := s.cfg.Clock.Now(); !now.Before(sent.Add(s.ttl)) {
			return nil, fmt.Errorf("floe: claiming worker ID %d took %v, longer than the lease TTL %v", id, now.Sub(sent), s.ttl)
		}
		return s.newLease(id, fence, leaseID, floor, rec.R, rev, sent), nil
	}
	return nil, fmt.Errorf("%w: all %d worker IDs under %q", workerid.ErrExhausted, s.cfg.IDs, s.cfg.Prefix)
}

// staleAfter is how many candidates a claim loses to other claimers before
// it reads which IDs are held again.
const staleAfter = 4

// clearLast rewrites the claimed ID's reservation, of mod revision rev,
// without its last tick, and returns its new mod revision. The write is
// conditioned on rev, as every later one: an attempt without a reply that
// etcd applies late can never bring R down.
func (s *Source) clearLast(ctx context.Context, id int, fence int64, r uint64, rev int64) (int64, error) {
	ownerKey, reservedKey := s.ownerKey(id), s.reservedKey(id)
	var resp *clientv3.TxnResponse
	err := s.call(ctx, func(ctx context.Context) (err error) {
		resp, err = s.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(ownerKey), "=", fence),
				clientv3.Compare(clientv3.ModRevision(reservedKey), "=", rev)).
			Then(clientv3.OpPut(reservedKey, reservation{R: r, Owner: s.cfg.Owner}.encode())).
			Else(clientv3.OpGet(ownerKey), clientv3.OpGet(reservedKey)).
			Commit()
		return err
	})
	if err == nil && !resp.Succeeded {
		// The write of an attempt without a reply, or another's.
		owner, kvs := resp.Responses[0].GetResponseRange().GetKvs(), resp.Responses[1].GetResponseRange().GetKvs()
		if len(owner) > 0 && owner[0].CreateRevision == fence && len(kvs) > 0 {
			if rec, derr := decodeReservation(kvs[0].Value); derr == nil && rec.R == r && rec.Last == 0 {
				return kvs[0].ModRevision, nil
			}
		}
		err = fmt.Errorf("the owner key or the reservation changed (fence %d)", fence)
	}
	if err != nil {
		return 0, fmt.Errorf("floe: claiming worker ID %d: clearing the last tick: %w", id, err)
	}
	return resp.Header.Revision, nil
}

// candidates reads which IDs are held and returns the free ones in the
// order to try: the one this Owner held last, then the others in random
// order.
func (s *Source) candidates(ctx context.Context) ([]int, error) {
	var resp *clientv3.TxnResponse
	err := s.call(ctx, func(ctx context.Context) (err error) {
		resp, err = s.cli.Txn(ctx).Then(
			clientv3.OpGet(s.cfg.Prefix+"workers/", clientv3.WithPrefix(), clientv3.WithKeysOnly()),
			clientv3.OpGet(s.cfg.Prefix+"reserved/", clientv3.WithPrefix()),
		).Commit()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("floe: reading the held worker IDs: %w", err)
	}
	held := make(map[int]bool)
	for _, kv := range resp.Responses[0].GetResponseRange().GetKvs() {
		if id := s.parseID(kv.Key, s.cfg.Prefix+"workers/"); id >= 0 {
			held[id] = true
		}
	}
	preferred, rev := -1, int64(0)
	for _, kv := range resp.Responses[1].GetResponseRange().GetKvs() {
		id := s.parseID(kv.Key, s.cfg.Prefix+"reserved/")
		if id < 0 || held[id] || kv.ModRevision < rev {
			continue
		}
		// A corrupt value is reported by the claim that takes its ID.
		if rec, err := decodeReservation(kv.Value); err == nil && rec.Owner == s.cfg.Owner {
			preferred, rev = id, kv.ModRevision
		}
	}
	order := make([]int, 0, s.cfg.IDs-len(held))
	for id := range s.cfg.IDs {
		if !held[id] && id != preferred {
			order = append(order, id)
		}
	}
	// In random order: claimers that start together and lose a race try
	// unrelated IDs next, where from a random start they would try the
	// neighbours another claimer is taking in turn.
	rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	if preferred >= 0 {
		order = append([]int{preferred}, order...)
	}
	return order, nil
}

// destroyedTimeout bounds the read of destroyed: a lease that lost its
// owner key waits for it before it ends.
const destroyedTimeout = time.Second

// destroyed reports whether the catalog no longer has the generation of
// the sequence a Catalog's Source claims under; false for another Source,
// and when the read fails or takes longer than destroyedTimeout (or the
// request timeout, if shorter): then the end of a lease is a loss.
func (s *Source) destroyed() bool {
	if s.guard == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), min(s.cfg.RequestTimeout, destroyedTimeout))
	defer cancel()
	var resp *clientv3.GetResponse
	err := s.do(ctx, nil, func(ctx context.Context) (err error) {
		resp, err = s.cli.Get(ctx, s.guard.key)
		return err
	})
	if err != nil {
		return false
	}
	return len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != s.guard.gen
}

// revoke revokes an etcd lease, best effort, even when ctx has ended.
func (s *Source) revoke(ctx context.Context, id clientv3.LeaseID) {
	err := s.call(context.WithoutCancel(ctx), func(ctx context.Context) error {
		_, err := s.cli.Revoke(ctx, id)
		return err
	})
	if err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) && rpctypes.Error(err) != rpctypes.ErrLeaseNotFound {
		s.cfg.Logger.Warn("revoking an etcd lease failed; it expires after its TTL",
			"lease", int64(id), "lease_ttl", s.ttl, "err", err)
	}
}
