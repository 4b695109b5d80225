package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// Names of the files in the state directory.
const (
	// StateName is the state file.
	StateName = "floed.state"
	// LockName is the lock file. It is never removed: removing a lock
	// file while another process waits on it lets two processes lock two
	// different files of the same name.
	LockName = "floed.lock"
	// tempPattern names the temporary files of a write. Open removes any
	// left by a crash.
	tempPattern = StateName + ".*.tmp"
)

// refuse is the end of every error about an unusable state file: why it is
// not taken for an empty one and what the operator can do.
const refuse = "floe will not start from zero, which could issue IDs again: " +
	"restore the file from a backup, or move it aside and start with a reservation floor above every tick already issued"

// Sequence is what the file records for one named ID sequence.
type Sequence struct {
	// Definition describes the sequence's format, layout and node in a
	// canonical form chosen by the daemon, which compares it at start to
	// refuse a changed definition. The package does not interpret it.
	Definition string `json:"definition"`
	// Reserved is the reservation R: the highest tick the sequence's
	// generator may issue. A restarted generator starts strictly above
	// it. It never goes down (see Put).
	Reserved uint64 `json:"reserved"`
	// Last, when not zero, is the last tick issued before a clean stop, at
	// most Reserved: the next start may begin right above it instead of
	// above Reserved. A running daemon writes it as zero.
	Last uint64 `json:"last,omitempty"`
	// Updated is the wall time of the write; informational only.
	Updated time.Time `json:"updated"`
}

// File is an open state directory: it holds the directory's lock and the
// last durable contents of its state file.
//
// A File is safe for concurrent use. Writes (Put, Delete) are serialized and
// each waits for its fsyncs; reads (Sequence, Sequences) never wait for a
// write and always see the last state that reached the disk.
type File struct {
	dir  string // immutable
	path string // immutable

	// seqs is the last durable state. The map is never modified once
	// stored: a write builds a new map and stores it after the rename
	// and the directory fsync succeed.
	seqs atomic.Pointer[map[string]Sequence] // atomic

	fresh bool // immutable: Open found no state file

	// created, when not nil, closes once the fsync of the parent of the
	// directory Open created has returned, with its error in createErr
	// (immutable once created closes). Until then nothing written in the
	// directory is durable: writes wait for it, and so does Close.
	created   chan struct{}
	createErr error

	mu     sync.Mutex // serializes writes and Close
	lock   *os.File   // guarded by mu; nil where the platform has no lock
	closed bool       // guarded by mu
}

// Open opens the state directory dir, creating it (mode 0o700) if needed,
// locks it against other processes and reads its state file. The fsync
// that makes a new directory's entry durable runs in the background; every
// write (Put, Delete) waits for it, and fails with its error. The lock
// file names the holder by the program's name (the base of os.Args[0]);
// OpenAs names it otherwise.
//
// A missing state file is a fresh start: no sequences. A state file that
// exists but cannot be read or trusted is an error, never an empty state:
// it wraps ErrCorrupt (empty, truncated, invalid, unknown version, checksum
// mismatch) or the read error, names the path and says what is wrong. A
// directory locked by another process gives a *LockedError, which wraps
// ErrLocked and names the holder when the lock file records one.
//
// The lock is an advisory flock(2) on LockName (fcntl(2) on Solaris and
// AIX, where a second Open in the same process is not refused); other
// systems get no lock. The caller must Close the File to release it.
func Open(dir string) (*File, error) { return OpenAs(dir, programName()) }

// OpenAs is Open with the holder's name that the lock file records, for
// the error of another process refused the directory: "floed", "floe new".
// An empty holder is the program's name.
func OpenAs(dir, holder string) (*File, error) {
	if dir == "" {
		return nil, errors.New("floe: no state directory given")
	}
	if holder == "" {
		holder = programName()
	}
	created := false
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("floe: create state directory: %w", err)
		}
		created = true
	}
	lockPath := filepath.Join(dir, LockName)
	lock, err := lockFile(lockPath)
	if errors.Is(err, ErrLocked) {
		le := &LockedError{Dir: dir, Lock: lockPath}
		le.Holder, _ = readHolder(lockPath)
		return nil, le
	}
	if err != nil {
		return nil, fmt.Errorf("floe: lock state directory %s: %w", dir, err)
	}
	if lock != nil {
		recordHolder(lock, Holder{Name: holder, PID: os.Getpid()})
	}
	f := &File{dir: dir, path: filepath.Join(dir, StateName), lock: lock}
	if created {
		// Make the new directory's entry durable, as the state file's
		// own entry will be. The fsync runs beside the rest of the
		// start, the first write's own fsyncs included; every write
		// waits for it before it returns.
		parent := filepath.Dir(filepath.Clean(dir))
		f.created = make(chan struct{})
		go func() {
			defer close(f.created)
			if err := syncParent(parent); err != nil {
				f.createErr = fmt.Errorf("floe: create state directory %s: %w", dir, err)
			}
		}()
	}
	seqs, fresh, err := f.read()
	if err != nil {
		f.Close()
		return nil, err
	}
	f.fresh = fresh
	f.seqs.Store(&seqs)
	f.removeTemps()
	return f, nil
}

// read reads and decodes the state file; a missing file is an empty state
// and fresh.
func (f *File) read() (seqs map[string]Sequence, fresh bool, err error) {
	b, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		// A dangling symlink also reads as missing: only a path with
		// nothing at all behind it is a fresh start.
		if _, lerr := os.Lstat(f.path); errors.Is(lerr, fs.ErrNotExist) {
			return map[string]Sequence{}, true, nil
		}
		return nil, false, fmt.Errorf("floe: read state file %s: a symlink to a missing file: %w; %s", f.path, err, refuse)
	}
	if err != nil {
		return nil, false, fmt.Errorf("floe: read state file %s: %w; %s", f.path, err, refuse)
	}
	if seqs, err = decode(b); err != nil {
		return nil, false, fmt.Errorf("%w: %s: %v; %s", ErrCorrupt, f.path, err, refuse)
	}
	return seqs, false, nil
}

// removeTemps removes temporary files left by a write that crashed before
// its rename. Holding the lock, no write of another process is under way.
// Failures are ignored: a leftover file is harmless.
func (f *File) removeTemps() {
	temps, _ := filepath.Glob(filepath.Join(f.dir, tempPattern))
	for _, t := range temps {
		os.Remove(t)
	}
}

// Path returns the path of the state file.
func (f *File) Path() string { return f.path }

// Fresh reports whether Open found no state file: a first start in this
// directory, or one whose file was lost. Nothing then says which IDs the
// directory's worker IDs issued before.
func (f *File) Fresh() bool { return f.fresh }

// Sequence returns the recorded state of the named sequence, and whether
// there is one.
func (f *File) Sequence(name string) (Sequence, bool) {
	s, ok := (*f.seqs.Load())[name]
	return s, ok
}

// Sequences returns a copy of the recorded state of every sequence.
func (f *File) Sequences() map[string]Sequence {
	return maps.Clone(*f.seqs.Load())
}

// Put records s for the named sequence and writes the whole state
// durably before it returns: to a temporary file in the directory, fsynced,
// renamed over the state file, and the directory fsynced.
//
// A reservation never goes down: if name has a recorded Reserved above
// s.Reserved, Put returns an error wrapping ErrBackwards and writes nothing
// (Delete the sequence first to start it over). A zero s.Updated is set to
// the current time; Updated is stored in UTC. If the write fails, the File
// keeps its previous state, so readers never see a reservation that is not
// on disk; the state file on disk then holds the previous state or, if
// only the directory fsync failed, possibly the new one.
func (f *File) Put(name string, s Sequence) error {
	if name == "" {
		return ErrName
	}
	if s.Updated.IsZero() {
		s.Updated = time.Now()
	}
	s.Updated = s.Updated.UTC() // also drops the monotonic reading
	return f.update(func(cur map[string]Sequence) (map[string]Sequence, error) {
		if old, ok := cur[name]; ok && s.Reserved < old.Reserved {
			return nil, fmt.Errorf("%w: sequence %q: %d is below the recorded %d", ErrBackwards, name, s.Reserved, old.Reserved)
		}
		if s.Last > s.Reserved {
			return nil, fmt.Errorf("%w: sequence %q: last tick %d above the reservation %d", ErrBackwards, name, s.Last, s.Reserved)
		}
		next := maps.Clone(cur)
		next[name] = s
		return next, nil
	})
}

// Delete removes the named sequence and writes the state durably, as Put
// does. Deleting a sequence that is not recorded writes nothing. The next
// Put for that name may then start at any reservation: the caller must be
// sure that no ID of the old sequence can collide with the new one.
func (f *File) Delete(name string) error {
	return f.update(func(cur map[string]Sequence) (map[string]Sequence, error) {
		if _, ok := cur[name]; !ok {
			return nil, nil
		}
		next := maps.Clone(cur)
		delete(next, name)
		return next, nil
	})
}

// update applies change to the current state under mu and, if it returns a
// new map, writes that durably and makes it current. A nil map with a nil
// error means no change.
func (f *File) update(change func(cur map[string]Sequence) (map[string]Sequence, error)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	next, err := change(*f.seqs.Load())
	if err != nil || next == nil {
		return err
	}
	b, err := encode(next)
	if err != nil {
		return fmt.Errorf("floe: encode state file %s: %w", f.path, err)
	}
	if err := writeFile(f.dir, f.path, b); err != nil {
		return fmt.Errorf("floe: write state file %s: %w", f.path, err)
	}
	if err := f.createdDurably(); err != nil {
		return err
	}
	f.seqs.Store(&next)
	return nil
}

// syncParent fsyncs the parent of a directory Open created; tests replace
// it.
var syncParent = syncDir

// createdDurably waits for the fsync that makes the entry of a directory
// Open created durable, and returns its error.
func (f *File) createdDurably() error {
	if f.created == nil {
		return nil
	}
	<-f.created
	return f.createErr
}

// Close releases the directory's lock. Later Puts and Deletes fail with
// ErrClosed; reads still return the last state. Close waits for a write
// under way and is idempotent.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	f.createdDurably()
	if f.lock == nil {
		return nil
	}
	clearHolder(f.lock)
	err := f.lock.Close() // closing the descriptor drops the lock
	f.lock = nil
	return err
}
