package floedproc

import (
	"fmt"
	"sync"
)

// Ledger records every ID the daemons issued, with who issued it, and
// counts the duplicates. It is safe for concurrent use.
type Ledger struct {
	describe func(id uint64) string // immutable: an ID in a duplicate's report

	mu    sync.Mutex
	seen  map[uint64]string // guarded by mu: ID → who issued it first
	dups  []string          // guarded by mu: the first duplicates found
	ndups int               // guarded by mu
}

// NewLedger returns an empty Ledger of Twitter-layout IDs.
func NewLedger() *Ledger {
	return NewLedgerOf(func(id uint64) string { return fmt.Sprintf("ID %d (tick %d, node %d)", id, Tick(id), Node(id)) })
}

// NewLedgerOf returns an empty Ledger of IDs, or keys of IDs, that
// describe writes out in a duplicate's report.
func NewLedgerOf(describe func(id uint64) string) *Ledger {
	return &Ledger{describe: describe, seen: make(map[uint64]string)}
}

// maxDupReports bounds the duplicates a Ledger describes.
const maxDupReports = 20

// Add records ids as issued by who.
func (l *Ledger) Add(who string, ids ...uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range ids {
		if first, ok := l.seen[id]; ok {
			l.ndups++
			if len(l.dups) < maxDupReports {
				l.dups = append(l.dups, fmt.Sprintf("%s from %s, first from %s", l.describe(id), who, first))
			}
			continue
		}
		l.seen[id] = who
	}
}

// Len returns how many distinct IDs were recorded.
func (l *Ledger) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.seen)
}

// Dups returns the number of duplicates and the first ones described.
func (l *Ledger) Dups() (int, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ndups, append([]string(nil), l.dups...)
}

// Err returns an error describing the duplicates, or nil.
func (l *Ledger) Err() error {
	n, dups := l.Dups()
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%d duplicate IDs among %d; first: %v", n, l.Len(), dups)
}
