package workerid_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
)

// memStore is a Store in memory, failing on demand.
type memStore struct {
	mu   sync.Mutex
	rec  workerid.Record
	ok   bool
	fail error
}

func (m *memStore) Load() (workerid.Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rec, m.ok, m.fail
}

func (m *memStore) Save(rec workerid.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	if rec.Reserved < m.rec.Reserved {
		return workerid.ErrBackwards
	}
	m.rec, m.ok = rec, true
	return nil
}

func TestStatic_Conformance(t *testing.T) {
	workeridtest.Run(t, workeridtest.Config{
		IDs: 1,
		Namespace: func(t *testing.T) func() workerid.Source {
			src := workerid.NewStatic(7, &memStore{})
			return func() workerid.Source { return src }
		},
	})
}

func TestStatic_StoreFailure(t *testing.T) {
	ctx := context.Background()
	store := &memStore{}
	src := workerid.NewStatic(3, store)
	l, err := src.Claim(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Reserve(ctx, 100); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	store.mu.Lock()
	store.fail = boom
	store.mu.Unlock()
	if err := l.Reserve(ctx, 200); !errors.Is(err, boom) {
		t.Fatalf("Reserve with a failing store: %v, want %v", err, boom)
	}
	if got, want := l.Reserved(), uint64(100); got != want {
		t.Errorf("Reserved() after a failed write = %d, want %d", got, want)
	}
	select {
	case <-l.Done():
		t.Fatal("a failed local write ended the lease")
	default:
	}
	store.mu.Lock()
	store.fail = nil
	store.mu.Unlock()
	if err := l.Reserve(ctx, 200); err != nil {
		t.Fatalf("Reserve after the store recovered: %v", err)
	}
}

func TestStatic_ClaimUnreadable(t *testing.T) {
	boom := errors.New("corrupt")
	src := workerid.NewStatic(3, &memStore{fail: boom})
	if _, err := src.Claim(context.Background()); !errors.Is(err, boom) {
		t.Fatalf("Claim with an unreadable store: %v, want %v", err, boom)
	}
}
