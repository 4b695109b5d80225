package redis

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
)

// TestCatalog_Conformance runs the catalog suite of workerid, each cluster
// under a fresh prefix, each node with a client of its own.
func TestCatalog_Conformance(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	var mu sync.Mutex
	prefixOf := make(map[*testing.T]string) // guarded by mu: the cluster of each test
	workeridtest.RunCatalog(t,
		func(t *testing.T) func() workerid.Catalog {
			prefix := freshPrefix()
			mu.Lock()
			prefixOf[t] = prefix
			mu.Unlock()
			return func() workerid.Catalog { return NewCatalog(newClient(t, srv.Addr), prefix) }
		},
		func(t *testing.T, seq workerid.Sequence) workerid.Source {
			mu.Lock()
			prefix := prefixOf[t]
			mu.Unlock()
			src, err := NewCatalog(newClient(t, srv.Addr), prefix).Source(ctxFor(t, 5*time.Second), seq, Config{IDs: 4, TTL: 5 * time.Second, Owner: "a"})
			if err != nil {
				t.Fatalf("Catalog.Source: %v", err)
			}
			return src
		})
}

// A Source belongs to one generation of a sequence: once it is destroyed,
// even if created again under the name, the Source claims nothing and a
// new Source of it is refused; the new generation starts afresh, and the
// destroyed one leaves no key behind.
func TestCatalog_SourceOfDestroyedSequence(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	admin := newClient(t, srv.Addr)
	prefix := freshPrefix()
	cat := NewCatalog(newClient(t, srv.Addr), prefix)
	cfg := Config{IDs: 4, TTL: 5 * time.Second, Owner: "a"}
	old, err := cat.Create(ctxFor(t, 5*time.Second), "orders", "spec-a")
	if err != nil {
		t.Fatal(err)
	}
	src, err := cat.Source(ctxFor(t, 5*time.Second), old, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var leases []workerid.Lease
	for range cfg.IDs {
		l := mustClaim(t, src)
		mustReserve(t, l, 1000)
		leases = append(leases, l)
	}
	if err := cat.Destroy(ctxFor(t, 5*time.Second), "orders"); err != nil {
		t.Fatal(err)
	}
	for _, l := range leases {
		workeridtest.WantLost(t, l, opTimeout)
	}
	seqPrefix := prefix + "seq/orders/" + strconv.FormatInt(old.Gen, 10) + "/"
	keys, err := admin.Keys(ctxFor(t, 5*time.Second), seqPrefix+"*").Result()
	if err != nil || len(keys) != 0 {
		t.Errorf("keys of the destroyed sequence left: %q, %v", keys, err)
	}

	cur, err := cat.Create(ctxFor(t, 5*time.Second), "orders", "spec-b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Claim(ctxFor(t, 5*time.Second)); !errors.Is(err, workerid.ErrNotFound) {
		t.Errorf("claim on a destroyed generation: %v, want ErrNotFound", err)
	}
	if _, err := cat.Source(ctxFor(t, 5*time.Second), old, cfg); !errors.Is(err, workerid.ErrNotFound) {
		t.Errorf("Source of a destroyed generation: %v, want ErrNotFound", err)
	}
	if _, err := cat.Source(ctxFor(t, 5*time.Second), workerid.Sequence{Name: "other", Gen: 1}, cfg); !errors.Is(err, workerid.ErrNotFound) {
		t.Errorf("Source of a sequence never created: %v, want ErrNotFound", err)
	}
	fresh, err := cat.Source(ctxFor(t, 5*time.Second), cur, cfg)
	if err != nil {
		t.Fatal(err)
	}
	l := mustClaim(t, fresh)
	if l.Floor() != 0 || l.Fence() != 1 {
		t.Errorf("first claim of the new generation: floor %d, fence %d; want 0, 1", l.Floor(), l.Fence())
	}
}

// Two sequences of one catalog have worker IDs of their own: holding every
// ID of one leaves the other's free.
func TestCatalog_SequencesApart(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	cat := NewCatalog(newClient(t, srv.Addr), freshPrefix())
	cfg := Config{IDs: 2, TTL: 5 * time.Second, Owner: "a"}
	var srcs []*Source
	for _, name := range []string{"a", "b"} {
		seq, err := cat.Create(ctxFor(t, 5*time.Second), name, "spec")
		if err != nil {
			t.Fatal(err)
		}
		src, err := cat.Source(ctxFor(t, 5*time.Second), seq, cfg)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, src)
	}
	for range cfg.IDs {
		mustReserve(t, mustClaim(t, srcs[0]), 100)
	}
	if _, err := srcs[0].Claim(ctxFor(t, 5*time.Second)); !errors.Is(err, workerid.ErrExhausted) {
		t.Fatalf("claim with every ID of sequence a held: %v, want ErrExhausted", err)
	}
	l := mustClaim(t, srcs[1])
	if l.Floor() != 0 {
		t.Errorf("sequence b's first holder: floor %d, want 0", l.Floor())
	}
}

var sequenceTests = []struct {
	name  string
	in    string
	want  workerid.Sequence
	error bool
}{
	{name: "gen and spec", in: "3 id64 twitter", want: workerid.Sequence{Name: "s", Spec: "id64 twitter", Gen: 3}},
	{name: "empty spec", in: "1 ", want: workerid.Sequence{Name: "s", Gen: 1}},
	{name: "spec with newline", in: "7 a\nb", want: workerid.Sequence{Name: "s", Spec: "a\nb", Gen: 7}},
	{name: "largest gen", in: "4611686018427387904 x", want: workerid.Sequence{Name: "s", Spec: "x", Gen: 1 << 62}},
	{name: "empty", in: "", error: true},
	{name: "no space", in: "3", error: true},
	{name: "gen zero", in: "0 x", error: true},
	{name: "gen above 2^62", in: "4611686018427387905 x", error: true},
	{name: "gen above uint64", in: "18446744073709551616 x", error: true},
	{name: "leading zero", in: "03 x", error: true},
	{name: "negative gen", in: "-3 x", error: true},
	{name: "no gen", in: " x", error: true},
	{name: "two spaces", in: "3  x", want: workerid.Sequence{Name: "s", Spec: " x", Gen: 3}},
	{name: "tokens out of order", in: "3 x\ntoken_sha256 " + otherHash + "," + secretHash, error: true},
	{name: "a token twice", in: "3 x\ntoken_sha256 " + secretHash + "," + secretHash, error: true},
	{name: "upper-case hex", in: "3 x\ntoken_sha256 " + strings.ToUpper(secretHash), error: true},
	{name: "tokens", in: "3 x\ntoken_sha256 " + secretHash + "," + otherHash, want: workerid.Sequence{Name: "s", Spec: "x", Gen: 3,
		Tokens: workerid.NewTokens(workerid.HashToken([]byte("secret")), workerid.HashToken([]byte("other")))}},
	{name: "spec with newline and tokens", in: "3 a\nb\ntoken_sha256 " + secretHash, want: workerid.Sequence{Name: "s", Spec: "a\nb", Gen: 3,
		Tokens: workerid.NewTokens(workerid.HashToken([]byte("secret")))}},
	{name: "empty token list", in: "3 x\ntoken_sha256 ", error: true},
	{name: "a token in clear", in: "3 x\ntoken_sha256 secret", error: true},
	{name: "a short hash", in: "3 x\ntoken_sha256 " + secretHash[1:], error: true},
}

// The SHA-256 of "secret" and of "other".
const (
	secretHash = "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b"
	otherHash  = "d9298a10d1b0735837dc4bd85dac641b0f3cef27a47e5d53a54f2f3f5b2fcffa"
)

func TestDecodeSequence(t *testing.T) {
	for _, tt := range sequenceTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeSequence("s", tt.in)
			if tt.error {
				if !errors.Is(err, ErrBadReply) {
					t.Fatalf("decodeSequence(%q) = %+v, %v; want ErrBadReply", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("decodeSequence(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		})
	}
}

// FuzzDecodeSequence: a value is accepted only as create.lua writes it,
// with a generation in 1..2^62.
func FuzzDecodeSequence(f *testing.F) {
	for _, tt := range sequenceTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, v string) {
		seq, err := decodeSequence("s", v)
		if err != nil {
			if !errors.Is(err, ErrBadReply) {
				t.Fatalf("error %v does not match ErrBadReply", err)
			}
			return
		}
		if seq.Gen < 1 || seq.Gen > 1<<62 || seq.Name != "s" {
			t.Fatalf("decodeSequence(%q) = %+v", v, seq)
		}
		if got := strconv.FormatInt(seq.Gen, 10) + " " + encodeRecord(seq.Spec, seq.Tokens); got != v {
			t.Fatalf("decodeSequence(%q) = %+v, written back as %q", v, seq, got)
		}
	})
}

// TestDecodeRetired: destroy.lua copies the definition, tokens included,
// after the generation and the tick; the Retired has the spec alone.
func TestDecodeRetired(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  workerid.Retired
		error bool
	}{
		{name: "none", in: "", want: workerid.Retired{}},
		{name: "spec", in: "5 100 x", want: workerid.Retired{Gen: 5, Spec: "x", Tick: 100}},
		{name: "spec and tokens", in: "5 100 x\ntoken_sha256 " + secretHash, want: workerid.Retired{Gen: 5, Spec: "x", Tick: 100}},
		{name: "bad tokens", in: "5 100 x\ntoken_sha256 secret", error: true},
		{name: "tick zero", in: "5 0 x", error: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeRetired("s", tt.in)
			if tt.error {
				if !errors.Is(err, ErrBadReply) {
					t.Fatalf("decodeRetired(%q) = %+v, %v; want ErrBadReply", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("decodeRetired(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		})
	}
}
