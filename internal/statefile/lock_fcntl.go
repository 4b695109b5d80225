//go:build solaris || aix

package statefile

import (
	"errors"
	"os"
	"syscall"
)

// lockFile opens (creating) the lock file at path and takes an exclusive
// fcntl(2) write lock on the whole file without waiting; these systems have
// no flock(2). Closing the returned file releases the lock. fcntl locks
// belong to the process, so a second Open of the same directory in the same
// process is not refused; other processes are. A lock held elsewhere gives
// ErrLocked.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	for {
		err = syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EACCES) {
			return nil, ErrLocked
		}
		return nil, &os.PathError{Op: "fcntl", Path: path, Err: err}
	}
	return f, nil
}
