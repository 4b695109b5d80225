package docs_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"sigs.k8s.io/yaml"
)

// runbookURL is the address of the runbook's sections on GitHub, up to
// the fragment: each rule's runbook_url annotation is it and the
// fragment of its section.
const runbookURL = "https://github.com/floeid/floe/blob/main/docs/operations.md#"

// alertsFile holds the alerting rules whose runbook docs/operations.md
// keeps, relative to root.
const alertsFile = "deploy/prometheus/floed-alerts.yml"

// operationsFile is the guide with the runbook, relative to root.
const operationsFile = "docs/operations.md"

// alertRule is an alerting rule, as far as its runbook section says it.
type alertRule struct {
	Alert       string            `json:"alert"`
	Expr        string            `json:"expr"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// alertRules reads the alerting rules of alertsFile, in its order.
func alertRules(t *testing.T) []alertRule {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, alertsFile))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Rules []alertRule `json:"rules"`
		} `json:"groups"`
	}
	if err := yaml.Unmarshal(b, &file); err != nil {
		t.Fatalf("%s: %v", alertsFile, err)
	}
	var rules []alertRule
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" { // a recording rule has no runbook
				rules = append(rules, r)
			}
		}
	}
	if len(rules) == 0 {
		t.Fatalf("%s: no alerting rules", alertsFile)
	}
	return rules
}

// section is a part of a Markdown file under one heading.
type section struct {
	level int    // the number of #s
	title string // the heading's text
	line  int    // the heading's line, from 1
	body  string // the lines up to the next heading of its level or above
}

// sections returns the sections of Markdown text, in order, leaving out
// lines in fenced code blocks, where a "#" starts a comment.
func sections(text string) []section {
	var (
		out   []section
		fence string
	)
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		} else if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
		} else if level := len(line) - len(strings.TrimLeft(line, "#")); level > 0 && strings.HasPrefix(line[level:], " ") {
			out = append(out, section{level: level, title: strings.TrimSpace(line[level:]), line: i + 1})
			continue
		}
		if len(out) > 0 {
			out[len(out)-1].body += line + "\n"
		}
	}
	return out
}

// runbook returns the sections one level under the "Runbook" heading of
// docs/operations.md.
func runbook(t *testing.T) []section {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, operationsFile))
	if err != nil {
		t.Fatal(err)
	}
	all := sections(string(b))
	at := slices.IndexFunc(all, func(s section) bool { return s.title == "Runbook" })
	if at < 0 {
		t.Fatalf("%s: no heading named Runbook", operationsFile)
	}
	var out []section
	for _, s := range all[at+1:] {
		if s.level <= all[at].level {
			break
		}
		if s.level == all[at].level+1 {
			out = append(out, s)
		}
	}
	return out
}

// TestOperations_Runbook checks that docs/operations.md has a runbook
// section for each alert of deploy/prometheus/floed-alerts.yml, named
// exactly as the alert, and none for an alert that does not exist. Each
// section's first paragraph gives the rule's expression and severity, and
// the section says what the alert means, what to check and what to do.
// Each rule's runbook_url annotation points at its section.
func TestOperations_Runbook(t *testing.T) {
	rules := alertRules(t)
	secs := runbook(t)
	byTitle := make(map[string]section)
	for _, s := range secs {
		if _, dup := byTitle[s.title]; dup {
			t.Errorf("%s:%d: a second runbook section for %s", operationsFile, s.line, s.title)
		}
		byTitle[s.title] = s
	}
	for _, r := range rules {
		t.Run(r.Alert, func(t *testing.T) {
			s, ok := byTitle[r.Alert]
			if !ok {
				t.Fatalf("%s has no runbook section for the alert %s of %s: add \"### %s\" under \"## Runbook\"", operationsFile, r.Alert, alertsFile, r.Alert)
			}
			first, _, _ := strings.Cut(strings.TrimSpace(s.body), "\n\n")
			if expr := "`" + strings.TrimSpace(r.Expr) + "`"; !strings.Contains(first, expr) {
				t.Errorf("%s:%d: the section's first paragraph does not give the rule's expression %s:\n%s", operationsFile, s.line, expr, first)
			}
			if sev := r.Labels["severity"]; !strings.Contains(first, sev) {
				t.Errorf("%s:%d: the section's first paragraph does not give the rule's severity %q:\n%s", operationsFile, s.line, sev, first)
			}
			if got, want := r.Annotations["runbook_url"], runbookURL+anchor(s.title); got != want {
				t.Errorf("%s: the runbook_url of %s is %q, want %q (its section, %s:%d)", alertsFile, r.Alert, got, want, operationsFile, s.line)
			}
			for _, part := range []string{"**What it means.**", "**What to check.**", "**What to do.**"} {
				if !strings.Contains(s.body, part) {
					t.Errorf("%s:%d: the section lacks %s", operationsFile, s.line, part)
				}
			}
		})
	}
	for _, s := range secs {
		if !slices.ContainsFunc(rules, func(r alertRule) bool { return r.Alert == s.title }) {
			t.Errorf("%s:%d: a runbook section for %q, which is no alert of %s", operationsFile, s.line, s.title, alertsFile)
		}
	}
}

// anchor returns the fragment a heading gets on GitHub: lower case, with
// spaces as hyphens and other punctuation dropped.
func anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
