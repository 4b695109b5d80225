package statefile

import (
	"os"
	"path/filepath"
	"strings"
)

// DefaultDir is the state directory of floed and of "floe new" without
// --state or $FLOE_STATE: systemd's $STATE_DIRECTORY (its first entry),
// else $XDG_STATE_HOME/floed, else ~/.local/state/floed, else floed-state
// in the temporary directory. lookup reads the environment, as
// os.LookupEnv does. An empty variable counts as unset here: these belong
// to systemd and XDG, not to floe.
func DefaultDir(lookup func(string) (string, bool)) string {
	if d, _ := lookup("STATE_DIRECTORY"); d != "" {
		return strings.Split(d, ":")[0]
	}
	if d, _ := lookup("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "floed")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "floed")
	}
	return filepath.Join(os.TempDir(), "floed-state")
}
