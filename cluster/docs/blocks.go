// Package docs runs the code blocks of the project's Markdown: README.md
// and docs/*.md. Its tests compile every Go block as written, run every
// shell and Go block that can run on loopback, and require a reason for
// every block they do not run, so that a document cannot drift from the
// code.
//
// A block is told how to run by an HTML comment on the line before its
// fence, invisible when the Markdown is rendered:
//
//	<!-- doctest: etcd; want ^\d+$ -->
//
// Directives, separated by ";"; skip and want take the rest of the
// comment as their argument, so they come last:
//
//	skip REASON  do not run it; REASON says what checks it instead
//	repo         run in the repository's root (default: an empty directory)
//	etcd         an etcd (Debian's etcd-server) on localhost:2379 first
//	redis        a redis-server on localhost:6379, AOF appendfsync always
//	floed        a zero-configuration floed (noeq :4444, HTTP :4445) first
//	postgres     an sql block: run by psql on a new PostgreSQL database
//	serve URL    the block's last command keeps running (a daemon): it runs
//	             in the background, the lines before it in the session's
//	             shell; the block passes once URL answers 2xx
//	continue     run in the session of the block before: same network,
//	             directory, HOME and background processes
//	want REGEXP  its standard output must match REGEXP
//
// Each session runs in a network namespace of its own (so "localhost:4445"
// in a document means a port no other test holds) and a PID namespace
// (every process it started ends with it), with floed and floe built from
// the checkout first on the PATH and HOME an empty directory.
package docs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Block is a fenced code block of a Markdown file.
type Block struct {
	File string // the file's path, relative to the repository's root
	Line int    // the line of its opening fence, from 1
	Lang string // the fence's info string, up to its first space: "go", "sh"
	Body string
	Directives

	indent string // of the opening fence: a fence in a list item is indented, and so is its body
}

// Directives is how a block runs, from its doctest comment.
type Directives struct {
	Skip     string // the reason it is not run; empty: it runs
	Repo     bool
	Etcd     bool
	Redis    bool
	Floed    bool
	Postgres bool
	Serve    string // the URL that answers once it is up
	Continue bool
	Want     *regexp.Regexp
}

func (b Block) String() string { return fmt.Sprintf("%s:%d (```%s)", b.File, b.Line, b.Lang) }

// Runnable reports whether b's language is one the tests must run or
// compile: a shell, Go or SQL block. Other blocks (output, JSON, YAML,
// text) show, they do not command.
func (b Block) Runnable() bool {
	switch b.Lang {
	case "sh", "bash", "shell", "go", "sql":
		return true
	}
	return false
}

// directive is the comment that tells a block how to run.
var directive = regexp.MustCompile(`^<!--\s*doctest:(.*)-->\s*$`)

// ParseFile reads the fenced code blocks of the Markdown file at
// filepath.Join(root, name).
func ParseFile(root, name string) ([]Block, error) {
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		return nil, err
	}
	return Parse(name, string(b))
}

// Parse reads the fenced code blocks of Markdown text, naming them after
// file. A doctest comment that no block follows, a directive it does not
// know and a fence left open are errors.
func Parse(file, text string) ([]Block, error) {
	var (
		blocks  []Block
		pending *Directives // from a doctest comment on the line before
		pendAt  int
		cur     *Block
		fence   string
		body    strings.Builder
	)
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if cur != nil {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				cur.Body = body.String()
				blocks = append(blocks, *cur)
				cur = nil
				continue
			}
			// A fence indented in a list item: take the indentation off.
			body.WriteString(strings.TrimPrefix(line, cur.indent))
			body.WriteByte('\n')
			continue
		}
		if m := directive.FindStringSubmatch(trimmed); m != nil {
			if pending != nil {
				return nil, fmt.Errorf("%s:%d: a doctest comment with no code block after it", file, pendAt)
			}
			d, err := parseDirectives(m[1])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", file, n, err)
			}
			pending, pendAt = &d, n
			continue
		}
		if f := fenceOf(trimmed); f != "" {
			info := strings.TrimSpace(trimmed[len(f):])
			lang, _, _ := strings.Cut(info, " ")
			cur = &Block{File: file, Line: n, Lang: lang, indent: line[:len(line)-len(strings.TrimLeft(line, " \t"))]}
			if pending != nil {
				cur.Directives = *pending
				pending = nil
			}
			fence = f
			body.Reset()
			continue
		}
		if pending != nil && trimmed != "" {
			return nil, fmt.Errorf("%s:%d: a doctest comment with no code block after it", file, pendAt)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: a code block that is never closed", file, cur.Line)
	}
	if pending != nil {
		return nil, fmt.Errorf("%s:%d: a doctest comment with no code block after it", file, pendAt)
	}
	return blocks, nil
}

// fenceOf returns the fence that line opens (``` or ~~~, or longer), or "".
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// parseDirectives reads the text of a doctest comment.
func parseDirectives(s string) (Directives, error) {
	var d Directives
	for rest := strings.TrimSpace(s); rest != ""; {
		part, more, _ := strings.Cut(rest, ";")
		word, arg, _ := strings.Cut(strings.TrimSpace(part), " ")
		if word == "skip" || word == "want" {
			// Its text runs to the end of the comment, semicolons and all.
			_, arg, _ = strings.Cut(strings.TrimSpace(rest), " ")
			more = ""
		}
		rest = strings.TrimSpace(more)
		arg = strings.TrimSpace(arg)
		if word == "" {
			continue
		}
		needArg := func() error {
			if arg == "" {
				return fmt.Errorf("doctest: %q needs an argument", word)
			}
			return nil
		}
		noArg := func() error {
			if arg != "" {
				return fmt.Errorf("doctest: %q takes no argument, got %q", word, arg)
			}
			return nil
		}
		var err error
		switch word {
		case "skip":
			err, d.Skip = needArg(), arg
		case "repo":
			err, d.Repo = noArg(), true
		case "etcd":
			err, d.Etcd = noArg(), true
		case "redis":
			err, d.Redis = noArg(), true
		case "floed":
			err, d.Floed = noArg(), true
		case "postgres":
			err, d.Postgres = noArg(), true
		case "continue":
			err, d.Continue = noArg(), true
		case "serve":
			err, d.Serve = needArg(), arg
		case "want":
			if err = needArg(); err == nil {
				d.Want, err = regexp.Compile(arg)
			}
		default:
			err = fmt.Errorf("doctest: unknown directive %q (skip, repo, etcd, redis, floed, postgres, serve, continue, want)", word)
		}
		if err != nil {
			return Directives{}, err
		}
	}
	return d, nil
}

// Daemon splits the body of a serve block into the lines the session's
// shell runs first and its last command, which keeps running: the last
// line that is not empty or a comment, with the lines it continues (a
// line ending in a backslash continues on the next).
func (b Block) Daemon() (before, last string) {
	lines := strings.Split(strings.TrimRight(b.Body, "\n"), "\n")
	i := len(lines) - 1
	for i > 0 && (strings.TrimSpace(lines[i]) == "" || strings.HasPrefix(strings.TrimSpace(lines[i]), "#")) {
		i--
	}
	for i > 0 && strings.HasSuffix(lines[i-1], "\\") {
		i--
	}
	return strings.Join(lines[:i], "\n"), strings.Join(lines[i:], "\n")
}
