//go:build !unix

package statefile

import "os"

// lockFile takes no lock on systems without flock(2) or fcntl(2) locks: the
// operator must make sure that one floed at most uses a state directory.
func lockFile(string) (*os.File, error) { return nil, nil }
