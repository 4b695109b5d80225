//go:build unix

package kube_test

import (
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"testing"
)

// usage is what the built floed says of itself in its usage (floed -h):
// its listeners with their default ports, and the variables it reads. The
// defaults are set in package main of cmd/floed, which no other package
// can import; the usage prints them.
type usage struct {
	ports []floedPort
	vars  map[string]bool // the FLOE_* variables floed reads
}

// floedPort is one of floed's listeners: its flag and the name the
// manifests give its container port.
type floedPort struct {
	flag, name string
	port       int32 // floed's default
}

var (
	// defaultFlag is a flag of floed's usage and its default value.
	defaultFlag = regexp.MustCompile(`(?m)^  -(\S+) \S+\n\s+.*\(default (\S+)\)$`)
	// usageVar is a variable floed's usage names.
	usageVar = regexp.MustCompile(`\bFLOE_[A-Z0-9_]+\b`)
)

var (
	usageOnce sync.Once
	usageOf   *usage
	usageErr  error
)

// floedUsage runs floed -h once and returns what it says.
func floedUsage(t *testing.T) *usage {
	t.Helper()
	usageOnce.Do(func() { usageOf, usageErr = readUsage() })
	if usageErr != nil {
		t.Fatal(usageErr)
	}
	return usageOf
}

func readUsage() (*usage, error) {
	out, err := exec.Command(bin, "-h").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("floed -h: %v\n%s", err, out)
	}
	u := &usage{vars: make(map[string]bool)}
	for _, v := range usageVar.FindAllString(string(out), -1) {
		u.vars[v] = true
	}
	defaults := make(map[string]string)
	for _, m := range defaultFlag.FindAllStringSubmatch(string(out), -1) {
		defaults[m[1]] = m[2]
	}
	for _, p := range []floedPort{{flag: "listen", name: "noeq"}, {flag: "http", name: "http"}} {
		_, port, err := net.SplitHostPort(defaults[p.flag])
		n, perr := strconv.ParseUint(port, 10, 16)
		if err != nil || perr != nil {
			return nil, fmt.Errorf("floed -h gives --%s the default %q, want host:port:\n%s", p.flag, defaults[p.flag], out)
		}
		p.port = int32(n)
		u.ports = append(u.ports, p)
	}
	return u, nil
}
