package kubetest

import "syscall"

// dieWithParent makes the kernel kill the process when the test binary
// dies (a -timeout panic, a kill): no daemon outlives its test.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
