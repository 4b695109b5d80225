//go:build unix

package statefile

import "os"

// syncDir fsyncs the directory dir, making the entries created or renamed
// in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
