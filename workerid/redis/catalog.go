package redis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/floeid/floe/workerid"
	goredis "github.com/redis/go-redis/v9"
)

// Catalog keeps a cluster's named sequences in Redis: the hash
// prefix+"sequences" maps each name to "<gen> <spec>" (with a second line
// "token_sha256 <hex>,..." when the sequence has tokens), and the counter
// prefix+"gen" numbers the generations. The worker IDs of a sequence live
// under prefix+"seq/<name>/<gen>/". It is safe for concurrent use.
type Catalog struct {
	rdb    *goredis.Client // immutable
	prefix string          // immutable
}

var _ workerid.Catalog = (*Catalog)(nil)

// NewCatalog returns the Catalog under prefix (DefaultPrefix if empty) on
// the server behind rdb. The Sources it makes run CheckACL, with the
// Catalog's own commands, and Check; a program that only creates and
// destroys sequences can run CheckACL(ctx, rdb, prefix, true) itself.
func NewCatalog(rdb *goredis.Client, prefix string) *Catalog {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Catalog{rdb: rdb, prefix: prefix}
}

func (c *Catalog) hashKey() string { return c.prefix + "sequences" }

// retiredKey is the hash of retired generations: name -> "gen tick spec".
func (c *Catalog) retiredKey() string { return c.prefix + "retired" }

// channel hears the name of each sequence destroyed.
func (c *Catalog) channel() string { return c.prefix + "destroyed" }

// seqPrefix is the key prefix of every generation of the named sequence.
func (c *Catalog) seqPrefix(name string) string { return c.prefix + "seq/" + name + "/" }

// Create defines a sequence, by one script: with the same spec it returns
// the existing one; with another it is an error wrapping
// workerid.ErrConflict.
func (c *Catalog) Create(ctx context.Context, name, spec string, tokens ...workerid.TokenHash) (workerid.Sequence, error) {
	if !workerid.ValidName(name) {
		return workerid.Sequence{}, fmt.Errorf("%w: %q", workerid.ErrName, name)
	}
	if strings.Contains(spec, "\n"+tokensField) {
		return workerid.Sequence{}, fmt.Errorf("floe: creating sequence %s: a spec with a line starting %q cannot be stored: %q", name, tokensField, spec)
	}
	set := workerid.NewTokens(tokens...)
	record := encodeRecord(spec, set)
	reply, err := await(ctx, func(ctx context.Context) ([]any, error) {
		return createScript().Run(ctx, c.rdb, []string{c.hashKey(), c.prefix + "gen", c.retiredKey()}, name, record).Slice()
	})
	if err != nil {
		return workerid.Sequence{}, fmt.Errorf("floe: creating sequence %s: %w", name, err)
	}
	if len(reply) != 3 {
		return workerid.Sequence{}, fmt.Errorf("%w: create answered %v", ErrBadReply, reply)
	}
	gs, _ := reply[0].(string)
	got, ok := reply[1].(string)
	rs, ok2 := reply[2].(string)
	seq, err := decodeSequence(name, gs+" "+got)
	if !ok || !ok2 || err != nil {
		return workerid.Sequence{}, fmt.Errorf("%w: create answered %v", ErrBadReply, reply)
	}
	if seq.Retired, err = decodeRetired(name, rs); err != nil {
		return workerid.Sequence{}, err
	}
	if seq.Spec != spec {
		return workerid.Sequence{}, fmt.Errorf("%w: %s (generation %d) is %q, not %q", workerid.ErrConflict, name, seq.Gen, seq.Spec, spec)
	}
	if len(tokens) > 0 && seq.Tokens != set {
		return workerid.Sequence{}, fmt.Errorf("%w: %s (generation %d) has other tokens", workerid.ErrConflict, name, seq.Gen)
	}
	return seq, nil
}

// Get returns the named sequence, or an error wrapping
// workerid.ErrNotFound.
func (c *Catalog) Get(ctx context.Context, name string) (workerid.Sequence, error) {
	vs, err := await(ctx, func(ctx context.Context) ([]goredis.Cmder, error) {
		return c.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
			p.HGet(ctx, c.hashKey(), name)
			p.HGet(ctx, c.retiredKey(), name)
			return nil
		})
	})
	if err != nil && !errors.Is(err, goredis.Nil) {
		return workerid.Sequence{}, fmt.Errorf("floe: reading sequence %s: %w", name, err)
	}
	v, err := vs[0].(*goredis.StringCmd).Result()
	if errors.Is(err, goredis.Nil) {
		return workerid.Sequence{}, fmt.Errorf("%w: %q", workerid.ErrNotFound, name)
	}
	if err != nil {
		return workerid.Sequence{}, fmt.Errorf("floe: reading sequence %s: %w", name, err)
	}
	seq, err := decodeSequence(name, v)
	if err != nil {
		return seq, err
	}
	rs, err := vs[1].(*goredis.StringCmd).Result()
	if err != nil && !errors.Is(err, goredis.Nil) {
		return workerid.Sequence{}, fmt.Errorf("floe: reading sequence %s: %w", name, err)
	}
	seq.Retired, err = decodeRetired(name, rs)
	return seq, err
}

// List returns every sequence, ordered by name.
func (c *Catalog) List(ctx context.Context) ([]workerid.Sequence, error) {
	all, err := await(ctx, func(ctx context.Context) (map[string]string, error) {
		return c.rdb.HGetAll(ctx, c.hashKey()).Result()
	})
	if err != nil {
		return nil, fmt.Errorf("floe: listing sequences: %w", err)
	}
	list := make([]workerid.Sequence, 0, len(all))
	for name, v := range all {
		seq, err := decodeSequence(name, v)
		if err != nil {
			return nil, err
		}
		list = append(list, seq)
	}
	slices.SortFunc(list, func(a, b workerid.Sequence) int { return strings.Compare(a.Name, b.Name) })
	return list, nil
}

// Destroy removes the named sequence and, in the same script, the owner,
// fence and reservation keys of every worker ID its Sources used: each
// holder's next renewal or reservation fails, and its lease ends. The
// holder reads the sequence then (within a second) and, finding it gone,
// ends the lease with a cause wrapping workerid.ErrNotFound and logs INFO
// "worker ID lease ended: the sequence was destroyed", not the WARN
// "worker ID lease lost" of a loss. The script records the generation's Retired and publishes the name to
// WaitGone's channel. It
// returns an error wrapping workerid.ErrNotFound when there is no such
// sequence.
func (c *Catalog) Destroy(ctx context.Context, name string) error {
	n, err := await(ctx, func(ctx context.Context) (int64, error) {
		return destroyScript().Run(ctx, c.rdb, []string{c.hashKey(), c.retiredKey()}, name, c.seqPrefix(name), c.channel()).Int64()
	})
	if err != nil {
		return fmt.Errorf("floe: destroying sequence %s: %w", name, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: %q", workerid.ErrNotFound, name)
	}
	return nil
}

// Source returns the Source of seq's worker IDs, as NewSource does, with
// cfg.Prefix replaced by the sequence's own prefix+"seq/<name>/<gen>/".
// Each claim checks that seq (this generation) still exists. It returns an
// error wrapping workerid.ErrNotFound when it does not.
func (c *Catalog) Source(ctx context.Context, seq workerid.Sequence, cfg Config) (*Source, error) {
	cur, err := c.Get(ctx, seq.Name)
	if err != nil {
		return nil, err
	}
	if cur.Gen != seq.Gen {
		return nil, fmt.Errorf("%w: %s generation %d (now %d)", workerid.ErrNotFound, seq.Name, seq.Gen, cur.Gen)
	}
	gen := strconv.FormatInt(seq.Gen, 10)
	cfg.Prefix = c.seqPrefix(seq.Name) + gen + "/"
	cfg.seq = &seqRef{hash: c.hashKey(), name: seq.Name, gen: gen, usedKey: cfg.Prefix + "ids",
		retired: c.retiredKey(), channel: c.channel()}
	return NewSource(ctx, c.rdb, cfg)
}

// decodeSequence parses a value of the sequence hash: "<gen> <spec>".
func decodeSequence(name, v string) (workerid.Sequence, error) {
	gs, record, ok := strings.Cut(v, " ")
	gen, ok2 := parseDecimal(gs)
	spec, tokens, err := decodeRecord(record)
	if !ok || !ok2 || gen == 0 || gen > 1<<62 || err != nil {
		return workerid.Sequence{}, fmt.Errorf("%w: sequence %s holds %q", ErrBadReply, name, v)
	}
	return workerid.Sequence{Name: name, Spec: spec, Gen: int64(gen), Tokens: tokens}, nil
}

// tokensField starts the line of a sequence's token hashes.
const tokensField = "token_sha256 "

// encodeRecord returns a sequence's definition as Create stores it: the
// spec, then, when the sequence has tokens, a last line of their hashes.
func encodeRecord(spec string, tokens workerid.Tokens) string {
	if tokens.Len() == 0 {
		return spec
	}
	return spec + "\n" + tokensField + tokens.String()
}

// decodeRecord reads a definition as encodeRecord writes it, and only so.
func decodeRecord(record string) (spec string, tokens workerid.Tokens, err error) {
	i := strings.LastIndex(record, "\n"+tokensField)
	if i < 0 {
		return record, tokens, nil
	}
	list := record[i+1+len(tokensField):]
	tokens, err = workerid.ParseTokens(list)
	if err != nil || tokens.Len() == 0 || tokens.String() != list {
		return "", workerid.Tokens{}, ErrBadReply
	}
	return record[:i], tokens, nil
}

// decodeRetired parses a value of the retired hash: "gen tick spec", or ""
// for none.
func decodeRetired(name, v string) (workerid.Retired, error) {
	if v == "" {
		return workerid.Retired{}, nil
	}
	gs, rest, ok := strings.Cut(v, " ")
	ts, spec, ok2 := strings.Cut(rest, " ")
	gen, ok3 := parseDecimal(gs)
	tick, ok4 := parseDecimal(ts)
	if !ok || !ok2 || !ok3 || !ok4 || gen == 0 || gen > 1<<62 || tick == 0 {
		return workerid.Retired{}, fmt.Errorf("%w: retired generation of %s holds %q", ErrBadReply, name, v)
	}
	// destroy.lua copies the definition: its spec, and its tokens, if any.
	spec, _, err := decodeRecord(spec)
	if err != nil {
		return workerid.Retired{}, fmt.Errorf("%w: retired generation of %s holds %q", ErrBadReply, name, v)
	}
	return workerid.Retired{Gen: int64(gen), Spec: spec, Tick: tick}, nil
}

// goneEvery is how often WaitGone reads the catalog besides hearing its
// channel, which misses what is published while it reconnects.
const goneEvery = time.Second

// WaitGone subscribes to the channel Destroy publishes to, and reads the
// sequence when it hears the name and at least every second.
func (c *Catalog) WaitGone(ctx context.Context, name string, gen int64) error {
	if !workerid.ValidName(name) {
		return fmt.Errorf("%w: %q", workerid.ErrName, name)
	}
	ps := c.rdb.Subscribe(ctx, c.channel())
	defer ps.Close()
	msgs := ps.Channel()
	tick := time.NewTicker(goneEvery)
	defer tick.Stop()
	for {
		seq, err := c.Get(ctx, name)
		switch {
		case errors.Is(err, workerid.ErrNotFound):
			return nil
		case err == nil && seq.Gen != gen:
			return nil
		}
		for heard := false; !heard; {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-tick.C:
				heard = true
			case m, ok := <-msgs:
				if !ok {
					// The subscription ended: the reads each second go on.
					msgs = nil
					continue
				}
				heard = m.Payload == name
			}
		}
	}
}
