package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
)

// runCompletion runs "floe completion SHELL": it prints a script that makes
// SHELL complete floe's commands, subcommands and flags. The script asks
// floe itself (the hidden command "floe __complete"), so it stays right as
// commands and flags change. To load it:
//
//	bash: source <(floe completion bash)          # in ~/.bashrc
//	zsh:  source <(floe completion zsh)           # in ~/.zshrc, after compinit; or save it as _floe in $fpath
//	fish: floe completion fish | source           # or save it in ~/.config/fish/completions/floe.fish
func runCompletion(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("completion", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError(fs, "want one shell, bash, zsh or fish")
	}
	script, ok := completionScripts[fs.Arg(0)]
	if !ok {
		return usageError(fs, "unknown shell %q: want bash, zsh or fish", fs.Arg(0))
	}
	_, err := io.WriteString(stdout, script)
	return err
}

// completionScripts are the scripts of "floe completion", by shell. Each
// passes the words of the command line up to the cursor, the word being
// completed last (possibly empty), to "floe __complete", and offers the
// lines it prints.
var completionScripts = map[string]string{
	"bash": `# bash completion for floe: source <(floe completion bash)
_floe() {
	local IFS=$'\n'
	COMPREPLY=($(floe __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -F _floe floe
`,
	"zsh": `#compdef floe
# zsh completion for floe: source <(floe completion zsh), after compinit
_floe() {
	local -a candidates
	candidates=("${(@f)$(floe __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	candidates=(${candidates:#})
	(( ${#candidates} )) && compadd -Q -- "${candidates[@]}"
}
if [[ $funcstack[1] == _floe ]]; then
	_floe "$@" # autoloaded from a file _floe in $fpath
elif (( $+functions[compdef] )); then
	compdef _floe floe
fi
`,
	"fish": `# fish completion for floe: floe completion fish | source
function __floe_complete
	set -l words (commandline -opc) (commandline -ct)
	floe __complete $words[2..-1] 2>/dev/null
end
complete -c floe -f -a '(__floe_complete)'
`,
}

// subcommands lists the subcommands of the commands that have them.
var subcommands = map[string][]string{
	"redis":      {"init", "get"},
	"seq":        {"create", "list", "destroy"},
	"node":       {"attach", "detach"},
	"completion": {"bash", "zsh", "fish"},
}

// flagSetHook, when not nil, is given every FlagSet newFlagSet makes: the
// completer runs a command with -h to learn its flags.
var flagSetHook func(*flag.FlagSet)

// runComplete runs "floe __complete WORD...": words are the command line
// after "floe" up to the cursor, the last one the word being completed. It
// prints the candidates that start with it, one per line.
func runComplete(words []string, stdout, stderr io.Writer) error {
	if len(words) == 0 {
		words = []string{""}
	}
	cur, done := words[len(words)-1], words[:len(words)-1]
	var cands []string
	switch {
	case len(done) == 0 && strings.HasPrefix(cur, "-"):
		cands = []string{"-h", "--help", "--version"}
	case len(done) == 0:
		for _, c := range commands {
			if c.summary != "" {
				cands = append(cands, c.name)
			}
		}
	case done[0] == "help":
		switch len(done) {
		case 1:
			for _, c := range commands {
				if c.summary != "" && c.name != "help" {
					cands = append(cands, c.name)
				}
			}
		case 2:
			cands = subcommands[done[1]]
		}
	default:
		cands = completeArgs(done, cur)
	}
	var b bytes.Buffer
	for _, c := range cands {
		if strings.HasPrefix(c, cur) {
			b.WriteString(c)
			b.WriteByte('\n')
		}
	}
	_, err := stdout.Write(b.Bytes())
	return err
}

// completeArgs returns the candidates for the word after done, the words
// of a command line that starts with a command: its subcommands, or its
// flags when cur starts with "-". The value of a flag is left to the user.
func completeArgs(done []string, cur string) []string {
	c, ok := lookup(done[0])
	if !ok {
		return nil
	}
	subs := subcommands[c.name]
	if len(subs) > 0 {
		if len(done) == 1 {
			if strings.HasPrefix(cur, "-") {
				return []string{"-h"}
			}
			return subs
		}
		if !slices.Contains(subs, done[1]) {
			return nil
		}
	}
	if c.name == "completion" || c.name == "version" {
		return nil
	}
	var sub []string
	if len(subs) > 0 {
		sub = done[1:2]
	}
	fs := commandFlags(c, sub)
	if fs == nil {
		return nil
	}
	if last := done[len(done)-1]; len(done) > 1+len(sub) && strings.HasPrefix(last, "-") && !strings.Contains(last, "=") {
		if f := fs.Lookup(strings.TrimLeft(last, "-")); f != nil && !isBoolFlag(f) {
			return nil // cur is the value of the flag
		}
	}
	if !strings.HasPrefix(cur, "-") {
		return nil
	}
	dash := "-" // the flag package takes -name and --name alike
	if strings.HasPrefix(cur, "--") {
		dash = "--"
	}
	var cands []string
	fs.VisitAll(func(f *flag.Flag) { cands = append(cands, dash+f.Name) })
	return cands
}

// commandFlags returns the FlagSet of command c (with its subcommand in
// sub, if any), made by running it with -h and its output discarded.
func commandFlags(c command, sub []string) *flag.FlagSet {
	var fs *flag.FlagSet
	flagSetHook = func(f *flag.FlagSet) { fs = f }
	defer func() { flagSetHook = nil }()
	err := c.run(append(slices.Clone(sub), "-h"), io.Discard, io.Discard)
	if !errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return fs
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
