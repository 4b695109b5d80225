package docs

import (
	"regexp"
	"strings"
)

// Sentence is a sentence of a Markdown file's prose.
type Sentence struct {
	Line  int // where it starts, from 1
	Words int
	Text  string
}

var (
	// codeSpan is inline code: one word however long, as a reader takes it.
	codeSpan = regexp.MustCompile("`[^`]*`")
	// link keeps a link's text and drops its target.
	link = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	// sentenceEnd ends a sentence: a full stop, question or exclamation
	// mark followed by a space, or a semicolon.
	sentenceEnd = regexp.MustCompile(`[.?!;]\s+`)
	// listItem starts an item of a list: each item is read on its own.
	listItem = regexp.MustCompile(`^\s*([-*+]|\d+\.)\s+`)
)

// Sentences returns the sentences of the prose of Markdown text: its
// paragraphs and list items, without code blocks, tables, headings, HTML
// comments and block quotes' markers.
func Sentences(text string) []Sentence {
	var (
		out    []Sentence
		para   []string
		start  int
		fence  string
		inHTML bool
	)
	flush := func() {
		if len(para) == 0 {
			return
		}
		s := strings.Join(para, " ")
		s = codeSpan.ReplaceAllString(s, "code")
		s = link.ReplaceAllString(s, "$1")
		for _, sent := range sentenceEnd.Split(s, -1) {
			if n := len(strings.Fields(sent)); n > 0 {
				out = append(out, Sentence{Line: start, Words: n, Text: strings.TrimSpace(sent)})
			}
		}
		para = nil
	}
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOf(trimmed); f != "" {
			flush()
			fence = f
			continue
		}
		if inHTML || strings.HasPrefix(trimmed, "<!--") {
			flush()
			inHTML = !strings.Contains(trimmed, "-->")
			continue
		}
		switch {
		case trimmed == "", strings.HasPrefix(trimmed, "|"), strings.HasPrefix(trimmed, "#"):
			flush()
			continue
		case listItem.MatchString(line):
			flush()
			trimmed = listItem.ReplaceAllString(line, "")
		}
		trimmed = strings.TrimLeft(trimmed, "> ")
		if len(para) == 0 {
			start = n
		}
		para = append(para, trimmed)
	}
	flush()
	return out
}
