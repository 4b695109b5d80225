package workeridtest

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// Logs is a slog.Handler that keeps the level and message of each record,
// for tests of what a Source logs. It is safe for concurrent use.
type Logs struct {
	mu   sync.Mutex
	recs []slog.Record // guarded by mu
}

// Logger returns a logger that writes to l.
func (l *Logs) Logger() *slog.Logger { return slog.New(l) }

// Enabled keeps every level.
func (l *Logs) Enabled(context.Context, slog.Level) bool { return true }

// Handle keeps r.
func (l *Logs) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, r.Clone())
	return nil
}

// WithAttrs returns l: the attributes of a logger's With are not kept.
func (l *Logs) WithAttrs([]slog.Attr) slog.Handler { return l }

// WithGroup returns l.
func (l *Logs) WithGroup(string) slog.Handler { return l }

// Count returns how many records have level and message msg.
func (l *Logs) Count(level slog.Level, msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, r := range l.recs {
		if r.Level == level && r.Message == msg {
			n++
		}
	}
	return n
}

// AtLeast returns the records of level or above, one line each.
func (l *Logs) AtLeast(level slog.Level) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var lines []string
	for _, r := range l.recs {
		if r.Level >= level {
			lines = append(lines, line(r))
		}
	}
	return lines
}

// String returns every record, one line each.
func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, r := range l.recs {
		b.WriteString(line(r) + "\n")
	}
	return b.String()
}

// line formats r as its level, message and attributes.
func line(r slog.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q", r.Level, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s", a)
		return true
	})
	return b.String()
}
