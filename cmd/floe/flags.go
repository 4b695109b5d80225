package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// synopses are the argument summaries of the commands' usage lines, by the
// name given to newFlagSet.
var synopses = map[string]string{
	"new":        "[-format id64|id80|id96|id128] [-n count] [-o text|json|decimal] [flags]",
	"inspect":    "[-layout L] [-format id64|id80|id96|id128|uuid] [-o text|json] [ID... | -]",
	"layout":     "[-o text|json] [NAME_OR_TEXT...]",
	"range":      "[-layout L] [-o text|json] FROM [TO]",
	"get":        "[-n count] [-addr host:port,...] [-token T] [-layout L] [-max-skew 10m] [-timeout 5s] [-o text|json]",
	"bench":      "[-addr host:port | -http host:port [-seq name]] [-c conns] [-b batch] [-d duration] [-n requests] [-o text|json] [flags]",
	"redis init": "--shard N [--addr host:port] [--force] [flags]",
	"redis get":  "[-n count] [--addr host:port,...] [flags]",
	"completion": "bash|zsh|fish",
	"version":    "",
}

// newFlagSet returns the FlagSet of "floe <name>". Its errors go to stderr
// with the command's usage: "usage: floe <name> <synopsis>", then the
// flags.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("floe "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if flagSetHook != nil {
		flagSetHook(fs)
	}
	fs.Usage = func() {
		fmt.Fprintln(stderr, strings.TrimSpace("usage: floe "+name+" "+synopses[name]))
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(stderr, "\nflags:")
			fs.PrintDefaults()
		}
	}
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

// parseNoArgs is parseFlags for a command that takes flags only: an
// argument left after them is a usage error.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(fs, "unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	return nil
}

// usageError prints "<command>: <message>" and the command's usage to the
// FlagSet's output, and returns errUsage.
func usageError(fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(fs.Output(), "%s: %s\n", fs.Name(), fmt.Sprintf(format, args...))
	fs.Usage()
	return errUsage
}

// onlyFor reports a flag given on the command line that does not apply to
// the choice made with the flag named by: owners maps such flags to the
// value of by they belong to. For example, with by "format" and choice
// "id64", a -partition (an id80 flag) is a usage error.
func onlyFor(fs *flag.FlagSet, by, choice string, owners map[string]string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if owner, ok := owners[f.Name]; ok && owner != choice && err == nil {
			err = usageError(fs, "-%s is for -%s %s, not %s", f.Name, by, owner, choice)
		}
	})
	return err
}
