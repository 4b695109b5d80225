package workeridtest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/workerid"
)

// RunCatalog runs the conformance suite of a Catalog. newCatalog returns a
// function making Catalogs over one fresh, empty cluster; each call of that
// function is another node. sources returns the Source of a sequence's
// worker IDs, so destroy can be checked to end leases; nil skips that test.
func RunCatalog(t *testing.T, newCatalog func(t *testing.T) func() workerid.Catalog, sources func(t *testing.T, seq workerid.Sequence) workerid.Source) {
	s := &suite{Config: Config{Timeout: 10e9}}
	t.Run("create is idempotent", func(t *testing.T) {
		cat := newCatalog(t)
		a, err := cat().Create(s.ctx(t), "orders", "id64 twitter")
		if err != nil {
			t.Fatal(err)
		}
		b, err := cat().Create(s.ctx(t), "orders", "id64 twitter")
		if err != nil {
			t.Fatalf("second create with the same spec: %v", err)
		}
		if a != b || a.Name != "orders" || a.Spec != "id64 twitter" {
			t.Fatalf("created %+v then %+v", a, b)
		}
		got, err := cat().Get(s.ctx(t), "orders")
		if err != nil || got != a {
			t.Fatalf("Get = %+v, %v; want %+v", got, err, a)
		}
	})
	t.Run("conflicting create is an error", func(t *testing.T) {
		cat := newCatalog(t)
		if _, err := cat().Create(s.ctx(t), "orders", "id64 twitter"); err != nil {
			t.Fatal(err)
		}
		if _, err := cat().Create(s.ctx(t), "orders", "id64 sonyflake"); !errors.Is(err, workerid.ErrConflict) {
			t.Fatalf("create with another spec: %v, want ErrConflict", err)
		}
	})
	t.Run("concurrent creates agree", func(t *testing.T) {
		cat := newCatalog(t)
		var wg sync.WaitGroup
		results := make([]workerid.Sequence, 8)
		errs := make([]error, 8)
		for i := range results {
			wg.Go(func() {
				spec := "spec-a"
				if i%2 == 1 {
					spec = "spec-b"
				}
				results[i], errs[i] = cat().Create(s.ctx(t), "race", spec)
			})
		}
		wg.Wait()
		var winner workerid.Sequence
		for i, err := range errs {
			if err == nil {
				if winner.Name != "" && results[i] != winner {
					t.Fatalf("two creates won: %+v and %+v", winner, results[i])
				}
				winner = results[i]
			} else if !errors.Is(err, workerid.ErrConflict) {
				t.Fatalf("create: %v", err)
			}
		}
		if winner.Name == "" {
			t.Fatal("no create won")
		}
	})
	t.Run("list is ordered by name", func(t *testing.T) {
		cat := newCatalog(t)
		for _, name := range []string{"b", "c.d", "a-1"} {
			if _, err := cat().Create(s.ctx(t), name, "spec "+name); err != nil {
				t.Fatal(err)
			}
		}
		list, err := cat().List(s.ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, seq := range list {
			got = append(got, seq.Name+"="+seq.Spec)
		}
		want := []string{"a-1=spec a-1", "b=spec b", "c.d=spec c.d"}
		if !slices.Equal(got, want) {
			t.Fatalf("List = %v, want %v", got, want)
		}
	})
	t.Run("invalid names are refused", func(t *testing.T) {
		cat := newCatalog(t)
		for _, name := range []string{"", "a/b", "a b", string(make([]byte, 65)), "ü"} {
			if _, err := cat().Create(s.ctx(t), name, "x"); !errors.Is(err, workerid.ErrName) {
				t.Errorf("Create(%q): %v, want ErrName", name, err)
			}
		}
	})
	t.Run("destroy removes and a new create starts afresh", func(t *testing.T) {
		cat := newCatalog(t)
		a, err := cat().Create(s.ctx(t), "orders", "spec-a")
		if err != nil {
			t.Fatal(err)
		}
		if err := cat().Destroy(s.ctx(t), "orders"); err != nil {
			t.Fatal(err)
		}
		if _, err := cat().Get(s.ctx(t), "orders"); !errors.Is(err, workerid.ErrNotFound) {
			t.Fatalf("Get after Destroy: %v, want ErrNotFound", err)
		}
		if err := cat().Destroy(s.ctx(t), "orders"); !errors.Is(err, workerid.ErrNotFound) {
			t.Fatalf("second Destroy: %v, want ErrNotFound", err)
		}
		b, err := cat().Create(s.ctx(t), "orders", "spec-b")
		if err != nil {
			t.Fatalf("create after destroy with another spec: %v", err)
		}
		if b.Gen == a.Gen {
			t.Fatalf("the sequence created again kept generation %d", a.Gen)
		}
	})
	t.Run("destroy ends the leases", func(t *testing.T) {
		if sources == nil {
			t.Skip("no Source for the catalog's sequences")
		}
		cat := newCatalog(t)
		seq, err := cat().Create(s.ctx(t), "orders", "spec-a")
		if err != nil {
			t.Fatal(err)
		}
		l := s.claim(t, sources(t, seq))
		s.reserve(t, l, l.Floor()+100)
		if err := cat().Destroy(s.ctx(t), "orders"); err != nil {
			t.Fatal(err)
		}
		if err := l.Reserve(s.ctx(t), l.Floor()+200); err == nil {
			t.Fatal("a lease of a destroyed sequence reserved")
		}
		s.waitDone(t, l)
	})
	t.Run("destroy retires what the generation could issue", func(t *testing.T) {
		if sources == nil {
			t.Skip("no Source for the catalog's sequences")
		}
		cat := newCatalog(t)
		a, err := cat().Create(s.ctx(t), "orders", "spec-a")
		if err != nil {
			t.Fatal(err)
		}
		if a.Retired != (workerid.Retired{}) {
			t.Fatalf("a new name has Retired %+v", a.Retired)
		}
		src := sources(t, a)
		held := s.claim(t, src)
		released := s.claim(t, src)
		s.reserve(t, held, 1000)
		s.reserve(t, released, 5000)
		if err := released.Release(s.ctx(t), 800); err != nil {
			t.Fatal(err)
		}
		if err := cat().Destroy(s.ctx(t), "orders"); err != nil {
			t.Fatal(err)
		}
		// The held ID could issue up to its R, 1000; the one released
		// cleanly stopped at its last tick, 800, below its R of 5000.
		want := workerid.Retired{Gen: a.Gen, Spec: "spec-a", Tick: 1000}
		b, err := cat().Create(s.ctx(t), "orders", "spec-b")
		if err != nil {
			t.Fatal(err)
		}
		if b.Retired != want {
			t.Fatalf("created again: Retired %+v, want %+v", b.Retired, want)
		}
		got, err := cat().Get(s.ctx(t), "orders")
		if err != nil || got != b {
			t.Fatalf("Get = %+v, %v; want %+v", got, err, b)
		}
		// A generation that reserved nothing leaves the Retired in place.
		if err := cat().Destroy(s.ctx(t), "orders"); err != nil {
			t.Fatal(err)
		}
		c, err := cat().Create(s.ctx(t), "orders", "spec-a")
		if err != nil {
			t.Fatal(err)
		}
		if c.Retired != want {
			t.Fatalf("after an unused generation: Retired %+v, want %+v", c.Retired, want)
		}
	})
	t.Run("tokens are kept as hashes with the sequence", func(t *testing.T) {
		cat := newCatalog(t)
		secret, other := workerid.HashToken([]byte("secret")), workerid.HashToken([]byte("other"))
		want := workerid.NewTokens(secret, other)
		a, err := cat().Create(s.ctx(t), "orders", "spec-a", other, secret)
		if err != nil {
			t.Fatal(err)
		}
		if a.Tokens != want {
			t.Fatalf("created with tokens %v, want %v", a.Tokens, want)
		}
		if got, err := cat().Get(s.ctx(t), "orders"); err != nil || got != a {
			t.Fatalf("Get = %+v, %v; want %+v", got, err, a)
		}
		if _, err := cat().Create(s.ctx(t), "plain", "spec-a"); err != nil {
			t.Fatal(err)
		}
		list, err := cat().List(s.ctx(t))
		if err != nil || len(list) != 2 || list[0] != a || list[1].Tokens.Len() != 0 {
			t.Fatalf("List = %+v, %v; want orders with its tokens, plain without", list, err)
		}
		// Created again without tokens (a node's flags) or with the same
		// ones in any order, it is the same sequence with its tokens.
		for _, tokens := range [][]workerid.TokenHash{nil, {secret, other}, {other, secret, secret}} {
			if got, err := cat().Create(s.ctx(t), "orders", "spec-a", tokens...); err != nil || got != a {
				t.Fatalf("Create with tokens %v = %+v, %v; want %+v", tokens, got, err, a)
			}
		}
		for _, tokens := range [][]workerid.TokenHash{{secret}, {secret, other, workerid.HashToken([]byte("third"))}} {
			if _, err := cat().Create(s.ctx(t), "orders", "spec-a", tokens...); !errors.Is(err, workerid.ErrConflict) {
				t.Fatalf("Create with other tokens %v: %v, want ErrConflict", tokens, err)
			}
		}
		if _, err := cat().Create(s.ctx(t), "plain", "spec-a", secret); !errors.Is(err, workerid.ErrConflict) {
			t.Fatalf("Create with tokens of a sequence without: %v, want ErrConflict", err)
		}
		// Destroyed and created again without tokens, it has none.
		if err := cat().Destroy(s.ctx(t), "orders"); err != nil {
			t.Fatal(err)
		}
		b, err := cat().Create(s.ctx(t), "orders", "spec-a")
		if err != nil || b.Tokens.Len() != 0 {
			t.Fatalf("created again without tokens: %+v, %v", b, err)
		}
	})
	t.Run("wait gone returns once the generation is destroyed", func(t *testing.T) {
		cat := newCatalog(t)
		a, err := cat().Create(s.ctx(t), "orders", "spec-a")
		if err != nil {
			t.Fatal(err)
		}
		short, cancel := context.WithTimeout(s.ctx(t), 50*time.Millisecond)
		defer cancel()
		if err := cat().WaitGone(short, "orders", a.Gen); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("WaitGone on a live sequence: %v, want the context's deadline", err)
		}
		waiting := cat()
		gone := make(chan error, 1)
		go func() { gone <- waiting.WaitGone(s.ctx(t), "orders", a.Gen) }()
		select {
		case err := <-gone:
			t.Fatalf("WaitGone returned %v before the destroy", err)
		case <-time.After(100 * time.Millisecond):
		}
		if err := cat().Destroy(s.ctx(t), "orders"); err != nil {
			t.Fatal(err)
		}
		if _, err := cat().Create(s.ctx(t), "orders", "spec-a"); err != nil {
			t.Fatal(err)
		}
		if err := <-gone; err != nil {
			t.Fatalf("WaitGone after the destroy: %v", err)
		}
		// A generation already gone returns at once.
		if err := cat().WaitGone(s.ctx(t), "orders", a.Gen); err != nil {
			t.Fatalf("WaitGone on a generation gone: %v", err)
		}
	})
}
