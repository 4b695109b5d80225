package statefile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Holder is what the lock file records of the process that holds the
// state directory, so that another process refused the directory can say
// who has it.
type Holder struct {
	// Name names the holder: its program ("floed"), or what OpenAs was
	// given ("floe new").
	Name string `json:"holder"`
	// PID is its process ID.
	PID int `json:"pid"`
}

// String returns the holder as error messages name it: "floed (pid 1234)".
func (h Holder) String() string { return fmt.Sprintf("%s (pid %d)", h.Name, h.PID) }

// programName is the holder name Open records: the base name of the
// program.
func programName() string {
	if len(os.Args) > 0 && os.Args[0] != "" {
		return filepath.Base(os.Args[0])
	}
	return "unknown program"
}

// encodeHolder returns the lock file's contents for h: one JSON object on
// one line.
func encodeHolder(h Holder) []byte {
	b, _ := json.Marshal(h) // a string and an int: cannot fail
	return append(b, '\n')
}

// recordHolder writes h to the locked lock file f, replacing what a
// previous holder left. It is informational only: a failure is ignored,
// and the lock, not the contents, keeps other processes out.
func recordHolder(f *os.File, h Holder) {
	if f.Truncate(0) == nil {
		f.WriteAt(encodeHolder(h), 0)
	}
}

// clearHolder empties the lock file before its lock is released, so that
// the next process refused the directory does not name a holder that left.
func clearHolder(f *os.File) { f.Truncate(0) }

// readHolder returns the holder the lock file at path records, and false
// when it records none that is alive: a file that is empty (its holder
// has just taken the lock, or does not record itself), unreadable or
// malformed, or that names a process that no longer exists (a holder
// that crashed; its lock went with it).
func readHolder(path string) (Holder, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Holder{}, false
	}
	var h Holder
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if dec.Decode(&h) != nil || strings.TrimSpace(h.Name) == "" || h.PID <= 0 || !processAlive(h.PID) {
		return Holder{}, false
	}
	return h, true
}

// LockedError is a state directory that another process holds. It wraps
// ErrLocked.
type LockedError struct {
	Dir  string // the state directory
	Lock string // its lock file
	// Holder is the process the lock file names, or the zero Holder when
	// it names none that is alive (see Known).
	Holder Holder
}

// Known reports whether the lock file named the holder.
func (e *LockedError) Known() bool { return e.Holder.Name != "" }

func (e *LockedError) Error() string {
	by := "by a process that has not recorded its name (one starting at this moment, or a floed of an earlier version)"
	if e.Known() {
		by = "by " + e.Holder.String()
	}
	return fmt.Sprintf("%v: %s: its lock file %s is held %s; one process at a time may use a state directory", ErrLocked, e.Dir, e.Lock, by)
}

func (e *LockedError) Unwrap() error { return ErrLocked }
