//go:build unix && !solaris && !aix

package statefile

import (
	"errors"
	"os"
	"syscall"
)

// lockFile opens (creating) the lock file at path and takes an exclusive
// flock(2) on it without waiting. The lock belongs to the open file
// description: closing the returned file releases it, and a second open in
// the same process does not share it. A lock held elsewhere gives ErrLocked.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, &os.PathError{Op: "flock", Path: path, Err: err}
	}
	return f, nil
}
