package workerid

import (
	"errors"
	"fmt"
	"time"

	"github.com/floeid/floe/internal/statefile"
)

// FileConfig configures OpenFile. Zero fields take the defaults stated on
// them.
type FileConfig struct {
	// Dir is the state directory: created (mode 0o700) if missing, and
	// locked while the FileStore is open. Required.
	Dir string
	// Name names the record in the directory's state file, which can hold
	// several (floed keeps one per sequence): 1..64 bytes of
	// [A-Za-z0-9_.-], not "." or "..". Empty means "default".
	Name string
	// Definition says what the record's ticks count and which worker ID
	// issues them (format, layout, worker ID), in any canonical form the
	// caller chooses; it is written with each record and compared byte for
	// byte at OpenFile, which refuses a record written under another
	// definition: its reservation may count other ticks, or belong to
	// another worker ID. Empty is a definition like any other. floed
	// writes, for its default sequence,
	//	id64 layout="41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z" datacenter=0 worker=0
	// so a FileStore opened with that Definition and Name "default"
	// continues where a stopped floed ended, and the reverse.
	Definition string
	// Holder names this process in the directory's lock file, for the
	// error of another process refused the directory; empty means the
	// program's name (the base of os.Args[0]).
	Holder string
}

// FileStore is a Store in a local state file, floed's: a crash-safe,
// locked file that a single node keeps its worker ID's reservation in.
// Use it as the Store of a Static:
//
//	store, err := workerid.OpenFile(workerid.FileConfig{Dir: dir})
//	...
//	defer store.Close()
//	src := workerid.NewStatic(id, store)
//
// Every Save writes the whole state to a temporary file in the directory,
// fsyncs it, renames it over the state file and fsyncs the directory: it
// returns once the record would survive a crash or a power cut, and a crash
// during a write leaves the old record or the new one. A state file that
// exists but cannot be read or trusted (empty, truncated, bit-flipped,
// failing its checksum) is an error wrapping ErrCorrupt, never an empty
// record. The directory holds:
//
//   - floed.state, the state file: JSON, a CRC-32C checksum over the
//     records, one record per name with its definition, its reservation R
//     (a tick) and, after a clean release, the last tick issued;
//   - floed.lock, locked (flock(2); fcntl(2) on Solaris and AIX) while a
//     FileStore or a floed has the directory open, so that two processes
//     never share a reservation; it names the holder while locked. Other
//     systems take no lock: one process at a time must use a directory.
//
// A FileStore is safe for concurrent use.
type FileStore struct {
	f    *statefile.File // immutable
	name string          // immutable
	def  string          // immutable
}

// OpenFile opens the state directory cfg.Dir, locks it against other
// processes and reads its record cfg.Name. A directory held by another
// process (a FileStore or a floed) is an error wrapping ErrLocked that
// names the holder; a record written under another definition is an error
// wrapping ErrConflict that names both (a new definition takes another
// Name or Dir). No record (a fresh directory, or
// a new name) is no error: Load then reports none, and Fresh says whether
// the directory had no state file at all. The caller must Close the
// FileStore to release the directory.
func OpenFile(cfg FileConfig) (*FileStore, error) {
	if cfg.Dir == "" {
		return nil, errors.New("floe: file store: no state directory (FileConfig.Dir) given")
	}
	name := cfg.Name
	if name == "" {
		name = "default"
	}
	if !ValidName(name) {
		return nil, fmt.Errorf("%w: file store record %q: want 1..64 bytes of [A-Za-z0-9_.-], not \".\" or \"..\"", ErrName, name)
	}
	f, err := statefile.OpenAs(cfg.Dir, cfg.Holder)
	if err != nil {
		return nil, err
	}
	if seq, ok := f.Sequence(name); ok && seq.Definition != cfg.Definition {
		f.Close()
		return nil, fmt.Errorf("%w: record %q in %s was written for %q, and is opened for %q",
			ErrConflict, name, f.Path(), seq.Definition, cfg.Definition)
	}
	return &FileStore{f: f, name: name, def: cfg.Definition}, nil
}

// Load returns the record, and false when the state file has none.
func (s *FileStore) Load() (Record, bool, error) {
	seq, ok := s.f.Sequence(s.name)
	if !ok {
		return Record{}, false, nil
	}
	return Record{Reserved: seq.Reserved, Last: seq.Last}, true, nil
}

// Save writes rec durably (see FileStore) and returns once it is on disk.
// A reservation below the recorded one, or a Last above rec.Reserved, is
// an error wrapping ErrBackwards, and writes nothing. After Close, Save
// fails.
func (s *FileStore) Save(rec Record) error {
	err := s.f.Put(s.name, statefile.Sequence{Definition: s.def, Reserved: rec.Reserved, Last: rec.Last, Updated: time.Now()})
	if errors.Is(err, statefile.ErrBackwards) {
		return fmt.Errorf("%w: %w", ErrBackwards, err)
	}
	return err
}

// Path returns the path of the state file.
func (s *FileStore) Path() string { return s.f.Path() }

// Fresh reports whether OpenFile found no state file: a first start in
// the directory, or one whose file was lost. Nothing then says which IDs
// were issued before; floed warns of it, and a caller that knows a time
// after its last ID can pass it as sequencer.Config.Floor.
func (s *FileStore) Fresh() bool { return s.f.Fresh() }

// Close releases the directory's lock. Save fails after it; Load still
// returns the last record. Close is idempotent.
func (s *FileStore) Close() error { return s.f.Close() }
