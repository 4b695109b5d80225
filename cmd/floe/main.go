// Command floe generates and inspects floe IDs.
//
// Usage:
//
//	floe new [-format id64|id80|id96] [-n count] [-o text|json|decimal] [flags]
//	floe inspect [-layout name] ID...
//	floe redis init --shard N --addr host:port
//	floe redis get [-n count] --addr host:port,...
//	floe get [-n count] [-addr host:port,...] [-token T] [-timeout 5s] [-o text|json]
//	floe bench [-addr host:port] [-c conns] [-b batch] [-d duration] [-n requests] [-o text|json] [flags]
//	floe seq create [-addr URL] [-token T] [-format id64|id80|id96] [-layout name] NAME
//	floe seq list [-addr URL] [-token T] [-o text|json]
//	floe seq destroy [-addr URL] [-token T] -yes NAME
//	floe node attach [-addr URL] [-token T] NAME
//	floe node detach [-addr URL] [-token T] NAME
//
// seq and node use floed's admin HTTP API: -addr defaults to
// $FLOE_ADMIN_ADDR, else http://127.0.0.1:4445, and -token to
// $FLOE_ADMIN_TOKEN.
//
// Run "floe <command> -h" for a command's flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// command is one subcommand: its name, a one-line summary and how to run it.
type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"new", "generate IDs locally", runNew},
	{"inspect", "decode IDs: format, parts and time", runInspect},
	{"redis", "set a Redis server's shard (init) or fetch IDs made in Redis (get)", runRedis},
	{"get", "fetch IDs from floed (or noeqd) daemons", runGet},
	{"bench", "load-test a noeq-protocol server: IDs/s, latency, uniqueness", runBench},
	{"seq", "create, list or destroy a cluster's named sequences (floed admin API)", runSeq},
	{"node", "attach a floed to a sequence, or detach it (floed admin API)", runNode},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(args[1:], stdout, stderr)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			return 2
		default:
			fmt.Fprintf(stderr, "floe %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "floe: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

// errUsage: the flag package already printed what was wrong.
var errUsage = errors.New("usage")

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: floe <command> [flags]")
	fmt.Fprintln(w)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
}

// newFlagSet returns a FlagSet that reports errors through errUsage.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("floe "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args into fs, mapping flag errors to errUsage.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}
