//go:build !linux

package tsc

import "runtime"

// usable reports why the counter cannot serve readings here.
func usable() string { return "the counter is read only on Linux, not " + runtime.GOOS }
