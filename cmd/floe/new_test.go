package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestNew_Layouts makes IDs in a layout given by name or written out and
// reads them back with floe inspect in the same layout.
func TestNew_Layouts(t *testing.T) {
	tests := []struct {
		name   string
		layout string
	}{
		{"icicle 2.x", "icicle2"},
		{"redisgen", "redisgen"},
		{"written out", "41t/10w/12s 1ms since 1455788600316"},
		{"written out with a datacenter and a coarser tick", "39t/3d/7w/14s 10ms since 2020-01-01"},
		{"sequence above the node", "sonyflake"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			before := time.Now().Add(-10 * time.Millisecond)
			if code := run([]string{"new", "-layout", tc.layout, "-w", "7", "-n", "3", "-state", t.TempDir()}, &out, &errOut); code != 0 {
				t.Fatalf("new: exit %d: %s", code, errOut.String())
			}
			after := time.Now()
			ids := strings.Fields(out.String())
			for i, r := range inspectJSON(t, tc.layout, ids) {
				id := ids[i]
				at, err := time.Parse(time.RFC3339Nano, r.Time)
				if err != nil || r.ID != id || at.Before(before) || at.After(after) || *r.Worker != 7 {
					t.Errorf("%s decodes as %+v, want time in %v..%v and worker 7", id, r, before, after)
				}
			}
		})
	}
}

func TestNew_BadLayout(t *testing.T) {
	tests := []struct {
		name, layout, errs string
	}{
		{"unknown name", "flake", `floe new: -layout: floe: unknown layout: "flake"`},
		{"malformed", "41t/10w/12s 1ms", `floe new: -layout: floe: malformed layout "41t/10w/12s 1ms": want "since EPOCH"`},
		{"too many bits", "41t/10w/13s 1ms since 2016-02-18", `floe new: -layout: layout "41t/10w/13s 1ms since 2016-02-18": floe: layout uses too many bits`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run([]string{"new", "-layout", tc.layout}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), tc.errs) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut.String(), tc.errs)
			}
		})
	}
}
