//go:build !unix

package statefile

// processAlive cannot tell here; systems without flock(2) or fcntl(2)
// locks take no lock anyway.
func processAlive(int) bool { return true }
