package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRange(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
		code int
		errs string // in stderr
	}{
		{"one tick of twitter", []string{"range", "2026-11-22T12:00:00Z"}, "first=2124472963691446272 last=2124472963695640575 from=2026-11-22T12:00:00Z until=2026-11-22T12:00:00.001Z\n", 0, ""},
		{"a day of sonyflake, as json", []string{"range", "-layout", "sonyflake", "-o", "json", "2026-11-22", "2026-11-22T23:59:59.999Z"},
			`{"layout":"39t/8s/16w 10ms since 2014-09-01T00:00:00Z","first":"647224727961600000","last":"647369683107839999","from":"2026-11-22T00:00:00Z","until":"2026-11-23T00:00:00Z"}` + "\n", 0, ""},
		{"the last tick of js53", []string{"range", "-layout", "js53", "2095-09-07T15:47:35.551Z"}, "first=9007199254736896 last=9007199254740991 from=2095-09-07T15:47:35.551Z until=2095-09-07T15:47:35.552Z\n", 0, ""},
		{"within a tick, offset time", []string{"range", "2026-11-22T13:00:00.0005+01:00"}, "first=2124472963691446272 last=2124472963695640575 from=2026-11-22T12:00:00Z until=2026-11-22T12:00:00.001Z\n", 0, ""},
		{"before the epoch", []string{"range", "-layout", "js53", "2025-01-01"}, "", 1, "floe range: floe: time is before the layout epoch: 2025-01-01T00:00:00Z (the epoch is 2026-01-01T00:00:00Z"},
		{"at the end", []string{"range", "-layout", "js53", "2026-01-01", "2095-09-07T15:47:35.552Z"}, "", 1, "floe range: floe: layout time exhausted: 2095-09-07T15:47:35.552Z (the epoch is 2026-01-01T00:00:00Z, the end 2095-09-07T15:47:35.552Z)"},
		{"to before from", []string{"range", "2026-11-22T12:00:00Z", "2026-11-22T11:00:00Z"}, "", 1, "floe: time range ends before it starts: 2026-11-22T11:00:00Z is before 2026-11-22T12:00:00Z"},
		{"bad time", []string{"range", "noon"}, "", 1, `FROM "noon": want an RFC 3339 time`},
		{"bad to", []string{"range", "2026-11-22", "later"}, "", 1, `TO "later": want`},
		{"no time", []string{"range"}, "", 2, "want a time FROM"},
		{"three times", []string{"range", "now", "now", "now"}, "", 2, "want a time FROM"},
		{"unknown layout", []string{"range", "-layout", "flake", "now"}, "", 1, `-layout: floe: unknown layout: "flake"`},
		{"bad output", []string{"range", "-o", "xml", "now"}, "", 1, `-o "xml"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tc.args, &out, &errOut)
			if code != tc.code || out.String() != tc.want || !strings.Contains(errOut.String(), tc.errs) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, stderr with %q", code, out.String(), errOut.String(), tc.code, tc.want, tc.errs)
			}
		})
	}
}

func TestRange_Now(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"range", "now"}, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "first=") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
