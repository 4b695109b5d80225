package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
)

// runNode runs "floe node attach" and "floe node detach": the floed asked
// claims a worker ID for a sequence and serves it, or releases it and stops.
func runNode(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "attach", "detach":
			return runNodeAttach(args[0], args[1:], stdout, stderr)
		case "-h", "--help", "help":
			nodeUsage(stderr)
			return flag.ErrHelp
		}
		fmt.Fprintf(stderr, "floe node: unknown command %q\n", args[0])
	}
	nodeUsage(stderr)
	return errUsage
}

func nodeUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: floe node attach [-addr URL] [-token T] NAME")
	fmt.Fprintln(w, "       floe node detach [-addr URL] [-token T] NAME")
}

// runNodeAttach runs "floe node attach" or, with op "detach", "floe node
// detach".
func runNodeAttach(op string, args []string, stdout, stderr io.Writer) error {
	var af adminFlags
	fs := newAdminFlagSet("node "+op, "[-addr URL] [-token T] NAME", &af, stderr)
	name, err := parseNameArgs(fs, args, stderr)
	if err != nil {
		return err
	}
	path, err := sequencePath(name, "/"+op)
	if err != nil {
		return err
	}
	c, err := af.client(fs)
	if err != nil {
		return err
	}
	var reply struct {
		Name     string `json:"name"`
		Attached bool   `json:"attached"`
	}
	if _, err := c.do(http.MethodPost, path, nil, &reply); err != nil {
		return err
	}
	name = orName(reply.Name, name)
	if op == "attach" {
		fmt.Fprintf(stdout, "%s: attached to %s; it serves the sequence once it holds a worker ID (READY in floe seq list)\n", name, c.base)
		return nil
	}
	fmt.Fprintf(stdout, "%s: detached from %s\n", name, c.base)
	return nil
}
