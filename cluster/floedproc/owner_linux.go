package floedproc

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"os"
)

// socketOwner tells whether the far end of the loopback TCP connection nc
// is a socket of process pid: it finds the far end's socket in
// /proc/net/tcp (local and remote addresses swapped) and its inode among
// pid's descriptors. A socket still in its listener's accept queue has no
// inode yet.
func socketOwner(pid int, nc net.Conn) owner {
	local, ok1 := nc.LocalAddr().(*net.TCPAddr)
	remote, ok2 := nc.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return ownerKnownNot
	}
	table, key := "/proc/net/tcp", procAddr(remote)+" "+procAddr(local)
	if remote.IP.To4() == nil {
		table = "/proc/net/tcp6"
	}
	f, err := os.Open(table)
	if err != nil {
		return ownerKnownNot
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "sl local rem st tx:rx tr:when retrnsmt uid timeout inode ..."
		fields := bytes.Fields(sc.Bytes())
		if len(fields) < 10 || string(fields[1])+" "+string(fields[2]) != key {
			continue
		}
		inode := string(fields[9])
		if inode == "0" {
			// No descriptor: still in its listener's queue (established),
			// or closed by the process that held it (any later state).
			if string(fields[3]) == "01" {
				return ownerPending
			}
			return ownerClosed
		}
		if hasSocket(pid, inode) {
			return ownerPid
		}
		return ownerOther
	}
	return ownerClosed
}

// hasSocket reports whether process pid has a descriptor of the socket
// with the inode.
func hasSocket(pid int, inode string) bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	want := "socket:[" + inode + "]"
	for _, e := range ents {
		if l, err := os.Readlink(dir + "/" + e.Name()); err == nil && l == want {
			return true
		}
	}
	return false
}

// procAddr is addr as /proc/net/tcp writes it: the IP's 32-bit words in
// the host's order, in hex, a colon and the port in hex.
func procAddr(a *net.TCPAddr) string {
	ip := a.IP.To4()
	if ip == nil {
		ip = a.IP.To16()
	}
	var b []byte
	for i := 0; i+4 <= len(ip); i += 4 {
		b = fmt.Appendf(b, "%08X", binary.NativeEndian.Uint32(ip[i:i+4]))
	}
	return string(b) + ":" + fmt.Sprintf("%04X", a.Port)
}
