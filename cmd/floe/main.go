// Command floe generates and inspects floe IDs.
//
// Usage:
//
//	floe new [-format id64|id80|id96|id128] [-n count] [-o text|json|decimal] [flags]
//	floe inspect [-layout L] [-format id64|id80|id96|id128|uuid] [-o text|json] [ID... | -]
//	floe layout [-o text|json] [NAME_OR_TEXT...]
//	floe range [-layout L] [-o text|json] FROM [TO]
//	floe redis init --shard N --addr host:port
//	floe redis get [-n count] --addr host:port,...
//	floe get [-n count] [-addr host:port,...] [-token T] [-layout L] [-max-skew 10m] [-timeout 5s] [-o text|json]
//	floe bench [-addr host:port | -http host:port [-seq name]] [-c conns] [-b batch] [-d duration] [-n requests] [-o text|json] [flags]
//	floe seq create [-addr URL] [-token T] [-format id64|id80|id96|id128] [-layout name] [-token-file FILE] NAME
//	floe seq list [-addr URL] [-token T] [-o text|json]
//	floe seq destroy [-addr URL] [-token T] -yes NAME
//	floe node attach [-addr URL] [-token T] NAME
//	floe node detach [-addr URL] [-token T] NAME
//	floe completion bash|zsh|fish
//	floe version
//
// new issues id64 IDs from floed's state, as floed's default sequence: the
// state directory (-state, else $FLOE_STATE, else floed's default), its lock
// and its reservation, so that runs take turns and never repeat each other's
// or a stopped floed's IDs; a running floed on the directory is refused.
// id128 (UUIDv7) is issued on the same directory, in a record of its own.
// id80 and id96 keep no state (a random partition or node).
//
// seq and node use floed's admin HTTP API: -addr defaults to
// $FLOE_ADMIN_ADDR, else http://127.0.0.1:4445, and -token to
// $FLOE_ADMIN_TOKEN.
//
// "floe help <command>" and "floe <command> -h" print a command's usage
// and flags. A usage error (an unknown flag or command, an argument the
// command does not take) exits with status 2, any other error with 1.
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

// commands lists floe's subcommands, in the order "floe help" shows them.
// It is filled in by init, since "help" and "completion" read it.
var commands []command

func init() {
	commands = []command{
		{"new", "generate IDs locally", runNew},
		{"inspect", "decode IDs: format, parts and time", runInspect},
		{"layout", "describe an id64 layout: fields, tick, epoch, end date, capacity", runLayout},
		{"range", "the smallest and largest id64 ID of a time span, for WHERE id BETWEEN", runRange},
		{"redis", "set a Redis server's shard (init) or fetch IDs made in Redis (get)", runRedis},
		{"get", "fetch IDs from floed (or noeqd) daemons", runGet},
		{"bench", "load-test a noeq-protocol server or floed's HTTP API: IDs/s, latency, uniqueness", runBench},
		{"seq", "create, list or destroy a cluster's named sequences (floed admin API)", runSeq},
		{"node", "attach a floed to a sequence, or detach it (floed admin API)", runNode},
		{"completion", "print a shell completion script: bash, zsh or fish", runCompletion},
		{"version", "print floe's version and VCS revision", runVersion},
		{"help", "print a command's usage: floe help <command>", runHelp},
		{"__complete", "", runComplete}, // for the completion scripts; not listed
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	c, ok := lookup(name)
	if !ok {
		fmt.Fprintf(stderr, "floe: unknown command %q\n", name)
		usage(stderr)
		return 2
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

// lookup returns the command called name.
func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// errUsage: what was wrong has been printed, with the command's usage.
var errUsage = errors.New("usage")

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: floe <command> [flags] [arguments]")
	fmt.Fprintln(w)
	for _, c := range commands {
		if c.summary != "" {
			fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "floe help <command>" or "floe <command> -h" for a command's flags.`)
}

// runHelp runs "floe help [command [subcommand]]": the usage of floe, or
// the command's, as "floe <command> [subcommand] -h" prints it.
func runHelp(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		usage(stderr)
		return flag.ErrHelp
	}
	if len(args) > 2 || args[0] == "help" && len(args) > 1 {
		fmt.Fprintf(stderr, "floe help: want one command (and its subcommand), not %q\n", args)
		return errUsage
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "floe help: unknown command %q\n", args[0])
		usage(stderr)
		return errUsage
	}
	if c.name == "help" {
		usage(stderr)
		return flag.ErrHelp
	}
	return c.run(append(args[1:], "-h"), stdout, stderr)
}
