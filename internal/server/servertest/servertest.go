// Package servertest helps test code that runs floed's server in process.
package servertest

import (
	"sync"

	"github.com/floeid/floe/internal/server"
)

// Store is a server.Store in memory: what it saves, it loads, until the
// test ends. The zero value is empty and ready to use.
type Store struct {
	mu   sync.Mutex
	recs map[string]server.Record
}

// Load returns the record last saved under name; ok is false if none was.
func (s *Store) Load(name string) (rec server.Record, ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok = s.recs[name]
	return rec, ok, nil
}

// Save keeps rec under name, in place of the one before.
func (s *Store) Save(name string, rec server.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.recs == nil {
		s.recs = make(map[string]server.Record)
	}
	s.recs[name] = rec
	return nil
}
