package tsc

import (
	"syscall"
	"unsafe"
)

// moveTo binds the calling thread to processor cpu, and reports whether
// the kernel did so.
func moveTo(cpu int) bool {
	var mask [16]uint64 // 1024 processors
	if cpu >= 64*len(mask) {
		return false
	}
	mask[cpu/64] = 1 << (cpu % 64)
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask)))
	return errno == 0
}
