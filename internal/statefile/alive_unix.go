//go:build unix

package statefile

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with the ID pid exists: signal 0
// checks without sending anything. One that exists under another user
// (EPERM) counts as alive.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
