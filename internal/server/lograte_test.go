package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
)

// logBuffer collects JSON log lines; it is safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// logger returns a logger writing every level to b.
func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// lines returns the lines written with msg, decoded.
func (b *logBuffer) lines(t *testing.T, msg string) []map[string]any {
	t.Helper()
	b.mu.Lock()
	text := b.buf.String()
	b.mu.Unlock()
	var out []map[string]any
	for line := range strings.Lines(text) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// suppressed returns a line's "suppressed" attribute, 0 when absent.
func suppressed(line map[string]any) int {
	n, _ := line["suppressed"].(float64)
	return int(n)
}

func TestLogLimiter(t *testing.T) {
	type step struct {
		advance time.Duration // the clock moves by this first
		kind    string
		remote  string
		flush   bool // call flush instead of logging
		// The line written, if any: its remote and suppressed count.
		wantRemote     string
		wantSuppressed int
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"the first line is written", []step{
			{kind: "a", remote: "r1", wantRemote: "r1"},
		}},
		{"repeats within the interval are counted", []step{
			{kind: "a", remote: "r1", wantRemote: "r1"},
			{advance: time.Second, kind: "a", remote: "r2"},
			{advance: time.Second, kind: "a", remote: "r3"},
			{advance: 3 * time.Second, kind: "a", remote: "r4", wantRemote: "r4", wantSuppressed: 2},
			{kind: "a", remote: "r5"},
		}},
		{"one line per interval in a steady flood", []step{
			{kind: "a", remote: "r1", wantRemote: "r1"},
			{advance: 2 * time.Second, kind: "a", remote: "r2"},
			{advance: 2 * time.Second, kind: "a", remote: "r3"},
			{advance: 2 * time.Second, kind: "a", remote: "r4", wantRemote: "r4", wantSuppressed: 2},
			{advance: 2 * time.Second, kind: "a", remote: "r5"},
			{advance: 2 * time.Second, kind: "a", remote: "r6"},
			{advance: 2 * time.Second, kind: "a", remote: "r7", wantRemote: "r7", wantSuppressed: 2},
		}},
		{"a quiet interval writes the next line without a count", []step{
			{kind: "a", remote: "r1", wantRemote: "r1"},
			{advance: time.Hour, kind: "a", remote: "r2", wantRemote: "r2"},
		}},
		{"kinds are limited apart", []step{
			{kind: "a", remote: "r1", wantRemote: "r1"},
			{kind: "b", remote: "r2", wantRemote: "r2"},
			{kind: "a", remote: "r3"},
			{kind: "b", remote: "r4"},
			{advance: 5 * time.Second, kind: "b", remote: "r5", wantRemote: "r5", wantSuppressed: 1},
		}},
		{"a clock set back writes at once", []step{
			{kind: "a", remote: "r1", wantRemote: "r1"},
			{advance: -time.Hour, kind: "a", remote: "r2", wantRemote: "r2"},
			{advance: time.Second, kind: "a", remote: "r3"},
		}},
		{"flush reports the latest line left out", []step{
			{kind: "a", remote: "r1", wantRemote: "r1"},
			{kind: "a", remote: "r2"},
			{kind: "a", remote: "r3"},
			{flush: true, wantRemote: "r3", wantSuppressed: 2},
			{flush: true},
			{kind: "a", remote: "r4"},
		}},
		{"flush with nothing left out writes nothing", []step{
			{kind: "a", remote: "r1", wantRemote: "r1"},
			{flush: true},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf logBuffer
			clock := floetest.NewClock(start)
			l := newLogLimiter(buf.logger(), clock, 5*time.Second)
			written := 0
			for i, st := range tc.steps {
				clock.Step(st.advance)
				if st.flush {
					l.flush()
				} else {
					l.warn(st.kind, "something happened", "remote", st.remote)
				}
				lines := buf.lines(t, "something happened")
				if st.wantRemote == "" {
					if len(lines) != written {
						t.Fatalf("step %d: %d lines, want %d", i, len(lines), written)
					}
					continue
				}
				written++
				if len(lines) != written {
					t.Fatalf("step %d: %d lines, want %d", i, len(lines), written)
				}
				got := lines[len(lines)-1]
				if got["remote"] != st.wantRemote || suppressed(got) != st.wantSuppressed || got["level"] != "WARN" {
					t.Errorf("step %d: line %v, want level WARN, remote %s and suppressed %d", i, got, st.wantRemote, st.wantSuppressed)
				}
			}
		})
	}
}
