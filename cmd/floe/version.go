package main

import (
	"fmt"
	"io"

	"github.com/floeid/floe/internal/buildinfo"
)

// runVersion runs "floe version" (also "floe --version"): the module
// version and the VCS revision of the build, e.g.
//
//	floe v1.2.3 (go1.26.8)
//	floe (devel) rev 3b95ecd4d790 2026-11-23T17:12:09Z, dirty (go1.26.8)
func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", stderr)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	_, err := fmt.Fprintln(stdout, "floe", buildinfo.Read())
	return err
}
