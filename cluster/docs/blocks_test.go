package docs_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/floeid/floe/cluster/docs"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		md   string
		want []string // each block: lang|body|directives, as summary prints it
	}{
		{"plain block", "text\n```sh\nfloed\n```\n", []string{"sh|floed\n|"}},
		{"no language", "```\nout\n```\n", []string{"|out\n|"}},
		{"info string after the language", "```go title\npackage main\n```\n", []string{"go|package main\n|"}},
		{"directives", "<!-- doctest: etcd; floed; want ^\\d+$ -->\n```sh\nfloe get\n```\n", []string{"sh|floe get\n|etcd floed want=^\\d+$"}},
		{"skip with its reason", "<!-- doctest: skip needs kubectl: cluster/kube decodes it -->\n```sh\nkubectl apply -f x\n```\n",
			[]string{"sh|kubectl apply -f x\n|skip=needs kubectl: cluster/kube decodes it"}},
		{"serve, continue, repo", "<!-- doctest: repo; serve http://localhost:4445/readyz -->\n```sh\na\n```\n<!-- doctest: continue -->\n```sh\nb\n```\n",
			[]string{"sh|a\n|repo serve=http://localhost:4445/readyz", "sh|b\n|continue"}},
		{"skip and want run to the comment's end", "<!-- doctest: skip CI runs it; so does .ci/run -->\n```sh\nx\n```\n<!-- doctest: floed; want a;b -->\n```sh\ny\n```\n",
			[]string{"sh|x\n|skip=CI runs it; so does .ci/run", "sh|y\n|floed want=a;b"}},
		{"a fence in a list item", "- step:\n\n  ```sh\n  floed &\n  curl x\n  ```\n", []string{"sh|floed &\ncurl x\n|"}},
		{"a longer fence holds a shorter one", "````md\n```sh\nx\n```\n````\n", []string{"md|```sh\nx\n```\n|"}},
		{"tildes", "~~~sh\nx\n~~~\n", []string{"sh|x\n|"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bs, err := docs.Parse("f.md", tc.md)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range bs {
				got = append(got, summary(b))
			}
			if strings.Join(got, "\n--\n") != strings.Join(tc.want, "\n--\n") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParse_Errors(t *testing.T) {
	tests := []struct {
		name, md, want string
	}{
		{"comment with no block", "<!-- doctest: etcd -->\ntext\n```sh\nx\n```\n", "f.md:1: a doctest comment with no code block after it"},
		{"comment at the end", "<!-- doctest: etcd -->\n", "f.md:1: a doctest comment with no code block after it"},
		{"unknown directive", "<!-- doctest: ectd -->\n```sh\nx\n```\n", `f.md:1: doctest: unknown directive "ectd"`},
		{"skip without a reason", "<!-- doctest: skip -->\n```sh\nx\n```\n", `f.md:1: doctest: "skip" needs an argument`},
		{"argument where none is taken", "<!-- doctest: etcd 2379 -->\n```sh\nx\n```\n", `f.md:1: doctest: "etcd" takes no argument, got "2379"`},
		{"bad regexp", "<!-- doctest: want ( -->\n```sh\nx\n```\n", "f.md:1: error parsing regexp"},
		{"open fence", "text\n```sh\nx\n", "f.md:2: a code block that is never closed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := docs.Parse("f.md", tc.md)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want an error starting %q", err, tc.want)
			}
		})
	}
}

// summary prints a block as lang|body|directives.
func summary(b docs.Block) string {
	var d []string
	add := func(on bool, s string) {
		if on {
			d = append(d, s)
		}
	}
	add(b.Skip != "", "skip="+b.Skip)
	add(b.Repo, "repo")
	add(b.Etcd, "etcd")
	add(b.Redis, "redis")
	add(b.Floed, "floed")
	add(b.Serve != "", "serve="+b.Serve)
	add(b.Continue, "continue")
	if b.Want != nil {
		d = append(d, "want="+b.Want.String())
	}
	return b.Lang + "|" + b.Body + "|" + strings.Join(d, " ")
}

func TestSessions(t *testing.T) {
	md := "```sh\na\n```\n<!-- doctest: continue -->\n```sh\nb\n```\n```json\n{}\n```\n<!-- doctest: skip shown only -->\n```sh\nc\n```\n```sh\nd\n```\n"
	bs, err := docs.Parse("f.md", md)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := sessionsOf(bs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range ss {
		var bodies []string
		for _, b := range s {
			bodies = append(bodies, strings.TrimSpace(b.Body))
		}
		got = append(got, strings.Join(bodies, "+"))
	}
	if want := "a+b d"; strings.Join(got, " ") != want {
		t.Errorf("got sessions %q, want %q", got, want)
	}

	bad := "<!-- doctest: skip shown only -->\n```sh\nc\n```\n<!-- doctest: continue -->\n```sh\nd\n```\n"
	bs, err = docs.Parse("f.md", bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sessionsOf(bs); err == nil || !strings.Contains(err.Error(), "does not run") {
		t.Errorf("a continue after a skipped block: got %v, want an error", err)
	}
}

func TestSentences(t *testing.T) {
	md := "# A heading of many many many words\n\nOne two three. Four five\nsix seven? `a long code span` eight.\n\n" +
		"- item one\n- item `x y` two three\n\n| a | b c d |\n\n```sh\nnot prose at all\n```\n<!-- doctest:\n  etcd -->\n> quoted words here\n"
	var got []string
	for _, s := range docs.Sentences(md) {
		got = append(got, fmt.Sprintf("%d:%d", s.Line, s.Words))
	}
	want := "3:3 3:4 3:2 6:2 7:4 16:3"
	if strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

func TestBlock_Daemon(t *testing.T) {
	tests := []struct {
		name, body, before, last string
	}{
		{"one command", "floed\n", "", "floed"},
		{"lines before it", "export A=1\nfloed --a\n", "export A=1", "floed --a"},
		{"a trailing comment", "export A=1\nfloed\n# then ask it\n\n", "export A=1", "floed\n# then ask it"},
		{"continued lines", "cd x\nfloed --a \\\n  --b\n", "cd x", "floed --a \\\n  --b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, last := docs.Block{Body: tc.body}.Daemon()
			if before != tc.before || last != tc.last {
				t.Errorf("got %q, %q; want %q, %q", before, last, tc.before, tc.last)
			}
		})
	}
}
