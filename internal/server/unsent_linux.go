package server

import (
	"net"
	"syscall"
	"unsafe"
)

// unsent returns how many bytes of what was written to the TCP
// connection nc the peer has not acknowledged yet (SIOCOUTQ), or -1 where
// that cannot be told.
func unsent(nc net.Conn) int {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return -1
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	n := -1
	rc.Control(func(fd uintptr) {
		var v int32
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCOUTQ, uintptr(unsafe.Pointer(&v))); e == 0 {
			n = int(v)
		}
	})
	return n
}
