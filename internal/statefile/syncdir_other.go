//go:build !unix

package statefile

// syncDir does nothing on systems where a directory cannot be opened and
// fsynced (Windows among them): there the rename's durability rests on the
// file system.
func syncDir(string) error { return nil }
