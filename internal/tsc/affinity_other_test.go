//go:build !linux

package tsc

// moveTo cannot bind threads to processors here.
func moveTo(int) bool { return false }
