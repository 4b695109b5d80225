//go:build !linux

package floedproc

import "syscall"

// dieWithParent has no equivalent here: a daemon may outlive a test
// binary that dies before its cleanup.
func dieWithParent(*syscall.SysProcAttr) {}
