package etcd

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/floeid/floe/workerid"
)

// catalogTimeout bounds each request of a Catalog whose context has no
// deadline: catalog changes are rare and an operator is waiting.
const catalogTimeout = 10 * time.Second

// catalogAttempt bounds one attempt of a Catalog's read, which is tried
// again, on another member, until the request's deadline.
const catalogAttempt = time.Second

// Catalog keeps a cluster's named sequences in etcd, under
// prefix+"sequences/<name>". A sequence's generation is the create
// revision of its key; its worker IDs live under
// prefix+"seq/<name>/<gen>/". It is safe for concurrent use.
type Catalog struct {
	cli    *clientv3.Client // immutable
	prefix string           // immutable
}

var _ workerid.Catalog = (*Catalog)(nil)

// NewCatalog returns the Catalog under prefix, which ends in "/", using
// cli, which the caller keeps and closes.
func NewCatalog(cli *clientv3.Client, prefix string) *Catalog {
	return &Catalog{cli: cli, prefix: prefix}
}

// sequenceValue is the value of a sequence key: {"spec":"..."}, with
// "token_sha256":"<hex>,..." when the sequence has tokens.
type sequenceValue struct {
	Spec   string `json:"spec"`
	Tokens string `json:"token_sha256,omitempty"`
}

func (c *Catalog) key(name string) string { return c.prefix + "sequences/" + name }

// retiredKey holds the name's Retired: {"gen":G,"spec":"...","tick":T}.
func (c *Catalog) retiredKey(name string) string { return c.prefix + "retired/" + name }

// retiredValue is the value of a retired key.
type retiredValue struct {
	Gen  int64  `json:"gen"`
	Spec string `json:"spec"`
	Tick uint64 `json:"tick"`
}

// decodeRetired reads a retired key's value; no key is the zero Retired.
func (c *Catalog) decodeRetired(name string, kvs []*mvccpb.KeyValue) (workerid.Retired, error) {
	if len(kvs) == 0 {
		return workerid.Retired{}, nil
	}
	var v retiredValue
	if err := json.Unmarshal(kvs[0].Value, &v); err != nil || v.Gen <= 0 || v.Tick == 0 {
		return workerid.Retired{}, fmt.Errorf("%w: retired generation of %q: %q", ErrCorrupt, name, kvs[0].Value)
	}
	return workerid.Retired{Gen: v.Gen, Spec: v.Spec, Tick: v.Tick}, nil
}

// idPrefix is where the worker IDs of a sequence's generation live.
func (c *Catalog) idPrefix(name string, gen int64) string {
	return c.prefix + "seq/" + name + "/" + strconv.FormatInt(gen, 10) + "/"
}

// valid checks the Catalog's client and prefix.
func (c *Catalog) valid() error {
	if c.cli == nil {
		return ErrNoClient
	}
	if c.prefix == "" || !strings.HasSuffix(c.prefix, "/") {
		return fmt.Errorf("%w: %q", ErrPrefix, c.prefix)
	}
	return nil
}

// check checks the Catalog and a sequence name.
func (c *Catalog) check(name string) error {
	if err := c.valid(); err != nil {
		return err
	}
	if !workerid.ValidName(name) {
		return fmt.Errorf("%w: %q", workerid.ErrName, name)
	}
	return nil
}

func (c *Catalog) request(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, catalogTimeout)
}

// decode reads a sequence from its key-value pair.
func (c *Catalog) decode(name string, value []byte, createRev int64) (workerid.Sequence, error) {
	var v sequenceValue
	if err := json.Unmarshal(value, &v); err != nil {
		return workerid.Sequence{}, fmt.Errorf("%w: sequence %q: %v", ErrCorrupt, name, err)
	}
	tokens, err := workerid.ParseTokens(v.Tokens)
	if err != nil {
		return workerid.Sequence{}, fmt.Errorf("%w: sequence %q: its tokens: %v", ErrCorrupt, name, err)
	}
	return workerid.Sequence{Name: name, Spec: v.Spec, Gen: createRev, Tokens: tokens}, nil
}

// Create defines a sequence in one transaction that creates its key or
// reads the existing one.
func (c *Catalog) Create(ctx context.Context, name, spec string, tokens ...workerid.TokenHash) (workerid.Sequence, error) {
	if err := c.check(name); err != nil {
		return workerid.Sequence{}, err
	}
	set := workerid.NewTokens(tokens...)
	value, err := json.Marshal(sequenceValue{Spec: spec, Tokens: set.String()})
	if err != nil {
		return workerid.Sequence{}, err
	}
	key := c.key(name)
	rctx, cancel := c.request(ctx)
	defer cancel()
	resp, err := c.cli.Txn(rctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, string(value)), clientv3.OpGet(c.retiredKey(name))).
		Else(clientv3.OpGet(key), clientv3.OpGet(c.retiredKey(name))).
		Commit()
	if err != nil {
		return workerid.Sequence{}, fmt.Errorf("floe: creating sequence %q: %w", name, explain(c.cli, err))
	}
	retired, err := c.decodeRetired(name, resp.Responses[1].GetResponseRange().GetKvs())
	if err != nil {
		return workerid.Sequence{}, err
	}
	if resp.Succeeded {
		return workerid.Sequence{Name: name, Spec: spec, Gen: resp.Header.Revision, Retired: retired, Tokens: set}, nil
	}
	kvs := resp.Responses[0].GetResponseRange().GetKvs()
	if len(kvs) == 0 {
		// The compare and the read see one revision: unreachable.
		return workerid.Sequence{}, fmt.Errorf("floe: creating sequence %q: no key after a failed compare", name)
	}
	seq, err := c.decode(name, kvs[0].Value, kvs[0].CreateRevision)
	if err != nil {
		return workerid.Sequence{}, err
	}
	seq.Retired = retired
	if seq.Spec != spec {
		return workerid.Sequence{}, fmt.Errorf("%w: %q is %q, not %q", workerid.ErrConflict, name, seq.Spec, spec)
	}
	if len(tokens) > 0 && seq.Tokens != set {
		return workerid.Sequence{}, fmt.Errorf("%w: %q has other tokens", workerid.ErrConflict, name)
	}
	return seq, nil
}

// Get returns the named sequence.
func (c *Catalog) Get(ctx context.Context, name string) (workerid.Sequence, error) {
	if err := c.check(name); err != nil {
		return workerid.Sequence{}, err
	}
	rctx, cancel := c.request(ctx)
	defer cancel()
	var resp *clientv3.TxnResponse
	err := attempts(rctx, catalogAttempt, nil, func(ctx context.Context) (err error) {
		resp, err = c.cli.Txn(ctx).Then(clientv3.OpGet(c.key(name)), clientv3.OpGet(c.retiredKey(name))).Commit()
		return err
	})
	if err != nil {
		return workerid.Sequence{}, fmt.Errorf("floe: reading sequence %q: %w", name, explain(c.cli, err))
	}
	kvs := resp.Responses[0].GetResponseRange().GetKvs()
	if len(kvs) == 0 {
		return workerid.Sequence{}, fmt.Errorf("%w: %q", workerid.ErrNotFound, name)
	}
	seq, err := c.decode(name, kvs[0].Value, kvs[0].CreateRevision)
	if err != nil {
		return workerid.Sequence{}, err
	}
	seq.Retired, err = c.decodeRetired(name, resp.Responses[1].GetResponseRange().GetKvs())
	return seq, err
}

// List returns every sequence, ordered by name.
func (c *Catalog) List(ctx context.Context) ([]workerid.Sequence, error) {
	if err := c.valid(); err != nil {
		return nil, err
	}
	rctx, cancel := c.request(ctx)
	defer cancel()
	prefix := c.prefix + "sequences/"
	var resp *clientv3.GetResponse
	err := attempts(rctx, catalogAttempt, nil, func(ctx context.Context) (err error) {
		resp, err = c.cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithSort(clientv3.SortByKey, clientv3.SortAscend))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("floe: listing sequences: %w", explain(c.cli, err))
	}
	seqs := make([]workerid.Sequence, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		name := strings.TrimPrefix(string(kv.Key), prefix)
		seq, err := c.decode(name, kv.Value, kv.CreateRevision)
		if err != nil {
			return nil, err
		}
		seqs = append(seqs, seq)
	}
	return seqs, nil
}

// Destroy deletes the sequence key and every key of its worker IDs, and
// records the generation's Retired, in one transaction conditioned on
// nothing under the sequence having changed since it was read: the owner
// keys go, so every holder's next Reserve is refused and their watches end
// their leases, and no reservation rises past the Retired recorded.
func (c *Catalog) Destroy(ctx context.Context, name string) error {
	if err := c.check(name); err != nil {
		return err
	}
	key := c.key(name)
	rctx, cancel := c.request(ctx)
	defer cancel()
	for {
		resp, err := c.cli.Get(rctx, key)
		if err != nil {
			return fmt.Errorf("floe: destroying sequence %q: %w", name, explain(c.cli, err))
		}
		if len(resp.Kvs) == 0 {
			return fmt.Errorf("%w: %q", workerid.ErrNotFound, name)
		}
		kv := resp.Kvs[0]
		seq, err := c.decode(name, kv.Value, kv.CreateRevision)
		if err != nil {
			return err
		}
		ids := c.idPrefix(name, kv.CreateRevision)
		all, err := c.cli.Get(rctx, ids, clientv3.WithPrefix())
		if err != nil {
			return fmt.Errorf("floe: destroying sequence %q: %w", name, explain(c.cli, err))
		}
		top, err := retiredTick(ids, all.Kvs)
		if err != nil {
			return fmt.Errorf("floe: destroying sequence %q: %w", name, explain(c.cli, err))
		}
		ops := []clientv3.Op{clientv3.OpDelete(key), clientv3.OpDelete(ids, clientv3.WithPrefix())}
		if top != 0 {
			v, _ := json.Marshal(retiredValue{Gen: seq.Gen, Spec: seq.Spec, Tick: top})
			ops = append(ops, clientv3.OpPut(c.retiredKey(name), string(v)))
		}
		tx, err := c.cli.Txn(rctx).
			If(
				clientv3.Compare(clientv3.ModRevision(key), "=", kv.ModRevision),
				// No worker ID claimed, reserved or released since the read.
				clientv3.Compare(clientv3.ModRevision(ids), "<", all.Header.Revision+1).WithPrefix(),
			).
			Then(ops...).Commit()
		if err != nil {
			return fmt.Errorf("floe: destroying sequence %q: %w", name, explain(c.cli, err))
		}
		if tx.Succeeded {
			return nil
		}
		// Changed since the read: read again.
	}
}

// retiredTick is the highest tick the holders of the worker IDs under ids
// could have issued: each ID's reservation R, or the last tick of an ID
// released cleanly (no owner key, a last tick recorded).
func retiredTick(ids string, kvs []*mvccpb.KeyValue) (uint64, error) {
	held := make(map[string]bool)
	for _, kv := range kvs {
		if id, ok := strings.CutPrefix(string(kv.Key), ids+"workers/"); ok {
			held[id] = true
		}
	}
	var top uint64
	for _, kv := range kvs {
		id, ok := strings.CutPrefix(string(kv.Key), ids+"reserved/")
		if !ok {
			continue
		}
		r, err := decodeReservation(kv.Value)
		if err != nil {
			return 0, err
		}
		tick := r.R
		if r.Last != 0 && !held[id] {
			tick = r.Last
		}
		top = max(top, tick)
	}
	return top, nil
}

// WaitGone watches the sequence key from the revision it reads, until the
// key is deleted or holds another generation; a watch that ends (a
// compaction, a lost connection) reads the key again and watches on.
func (c *Catalog) WaitGone(ctx context.Context, name string, gen int64) error {
	if err := c.check(name); err != nil {
		return err
	}
	key := c.key(name)
	for {
		resp, err := c.cli.Get(ctx, key)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			select {
			case <-time.After(time.Second):
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != gen {
			return nil
		}
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		for wr := range c.cli.Watch(wctx, key, clientv3.WithRev(resp.Header.Revision+1)) {
			for _, ev := range wr.Events {
				if ev.Type == clientv3.EventTypeDelete || ev.Kv.CreateRevision != gen {
					cancel()
					return nil
				}
			}
		}
		cancel()
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// Source returns the Source of seq's worker IDs: cfg with Prefix set to
// the sequence generation's own prefix (cfg.Prefix is ignored). Its claims
// succeed only while the sequence exists with seq.Gen; after that they
// return an error wrapping workerid.ErrNotFound.
func (c *Catalog) Source(seq workerid.Sequence, cfg Config) (*Source, error) {
	if err := c.check(seq.Name); err != nil {
		return nil, err
	}
	cfg.Prefix = c.idPrefix(seq.Name, seq.Gen)
	s, err := NewSource(c.cli, cfg)
	if err != nil {
		return nil, err
	}
	s.guard = &guard{key: c.key(seq.Name), gen: seq.Gen}
	return s, nil
}
