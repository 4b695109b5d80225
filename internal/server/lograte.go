package server

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/floeid/floe"
)

// logEvery is how often at most a line of one kind about a connection is
// written: a flood of refused connections (a client retrying in a loop,
// every request failing while the clock is behind) costs one line per kind
// every few seconds instead of one per connection.
const logEvery = 5 * time.Second

// logLimiter writes log lines of a kind at a bounded rate: the first at
// once, then at most one per interval, which carries in the attribute
// "suppressed" the number of lines of its kind left out since the previous
// one. Kinds come from a fixed set of names, so its memory is bounded. It
// is safe for concurrent use.
type logLimiter struct {
	log      *slog.Logger  // immutable
	clock    floe.Clock    // immutable
	interval time.Duration // immutable

	mu    sync.Mutex
	kinds map[string]*logKind // guarded by mu
}

// logKind is the state of one kind of line.
type logKind struct {
	last       time.Time // when the previous line was written
	suppressed int       // lines left out since then
	// The latest line left out, written by flush.
	level slog.Level
	msg   string
	args  []any
}

func newLogLimiter(log *slog.Logger, clock floe.Clock, interval time.Duration) *logLimiter {
	return &logLimiter{log: log, clock: clock, interval: interval, kinds: make(map[string]*logKind)}
}

// logAt writes the line msg with args at level, unless a line of kind was
// written less than the interval ago: then it only counts it. A clock read
// behind the previous line counts as the interval having passed.
func (l *logLimiter) logAt(level slog.Level, kind, msg string, args ...any) {
	now := l.clock.Now()
	l.mu.Lock()
	k := l.kinds[kind]
	if k == nil {
		k = &logKind{}
		l.kinds[kind] = k
	} else if d := now.Sub(k.last); d >= 0 && d < l.interval {
		k.suppressed++
		k.level, k.msg, k.args = level, msg, args
		l.mu.Unlock()
		return
	}
	n := k.suppressed
	k.last, k.suppressed, k.args = now, 0, nil
	l.mu.Unlock()
	if n > 0 {
		args = append(args, "suppressed", n)
	}
	l.log.Log(context.Background(), level, msg, args...)
}

func (l *logLimiter) info(kind, msg string, args ...any) { l.logAt(slog.LevelInfo, kind, msg, args...) }
func (l *logLimiter) warn(kind, msg string, args ...any) { l.logAt(slog.LevelWarn, kind, msg, args...) }

// flush writes, for each kind with lines left out since its previous line,
// the latest of them with their count, so that the end of a burst is
// reported (at shutdown) rather than lost.
func (l *logLimiter) flush() {
	type line struct {
		kind  string
		level slog.Level
		msg   string
		args  []any
	}
	var lines []line
	now := l.clock.Now()
	l.mu.Lock()
	for kind, k := range l.kinds {
		if k.suppressed == 0 {
			continue
		}
		lines = append(lines, line{kind, k.level, k.msg, append(k.args, "suppressed", k.suppressed)})
		k.last, k.suppressed, k.args = now, 0, nil
	}
	l.mu.Unlock()
	slices.SortFunc(lines, func(a, b line) int { return strings.Compare(a.kind, b.kind) })
	for _, ln := range lines {
		l.log.Log(context.Background(), ln.level, ln.msg, ln.args...)
	}
}
