package statefile

import (
	"fmt"
	"os"
)

// writeFile replaces path with b atomically and durably: it writes b to a
// temporary file in dir, fsyncs it, renames it over path and fsyncs dir. A
// crash at any point leaves either the old file or the new one at path,
// never a mix; the temporary file of a failed write is removed.
func writeFile(dir, path string, b []byte) error {
	tmp, err := os.CreateTemp(dir, tempPattern) // mode 0o600
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(tmp.Name())
		}
	}()
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	renamed = true
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("renamed, but the new state may not survive a crash: %w", err)
	}
	return nil
}
