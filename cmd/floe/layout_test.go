package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestLayout(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
		code int
		errs string // in stderr
	}{
		{"twitter", []string{"layout", "twitter"}, `layout          twitter
text            41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z
bits            sign bit 0, time 41, datacenter 5, worker 5, sequence 12
tick            1ms
epoch           2010-11-04T01:42:54.657Z
end             2080-07-10T17:30:30.209Z (69.6 years)
IDs per tick    4096 per node
IDs per second  4096000 per node
nodes           1024 (32 datacenters of 32 workers)
largest ID      9223372036854775807
`, 0, ""},
		{"sequence first, and a second layout", []string{"layout", "sonyflake", "js53"}, `layout          sonyflake
text            39t/8s/16w 10ms since 2014-09-01T00:00:00Z
bits            sign bit 0, time 39, sequence 8, worker 16
tick            10ms
epoch           2014-09-01T00:00:00Z
end             2188-11-16T03:28:58.88Z (174.2 years)
IDs per tick    256 per node
IDs per second  25600 per node
nodes           65536
largest ID      9223372036854775807

layout          js53
text            41t/5w/7s 1ms since 2026-01-01T00:00:00Z
bits            11 bits 0, time 41, worker 5, sequence 7
tick            1ms
epoch           2026-01-01T00:00:00Z
end             2095-09-07T15:47:35.552Z (69.6 years)
IDs per tick    128 per node
IDs per second  128000 per node
nodes           32
largest ID      9007199254740991
`, 0, ""},
		{"written out, past the year 9999", []string{"layout", "48t/16s 1ms since 1970-01-01 unsigned"}, `layout          "48t/16s 1ms since 1970-01-01T00:00:00Z unsigned"
text            48t/16s 1ms since 1970-01-01T00:00:00Z unsigned
bits            time 48, sequence 16
tick            1ms
epoch           1970-01-01T00:00:00Z
end             10889-08-02T05:31:50.656Z (8919.5 years)
IDs per tick    65536 per node
IDs per second  65536000 per node
nodes           1
largest ID      18446744073709551615
`, 0, ""},
		{"a second not a whole number of ticks", []string{"layout", "41t/10w/12s 7ms since 2020-01-01"}, "", 0, ""},
		{"unknown layout", []string{"layout", "flake"}, "", 1, `floe layout: floe: unknown layout: "flake"`},
		{"malformed layout", []string{"layout", "41t/5d/12s/5w 1ms since 2020-01-01"}, "", 1, "the worker comes right after the datacenter"},
		{"bad output", []string{"layout", "-o", "xml", "twitter"}, "", 1, `-o "xml"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tc.args, &out, &errOut)
			if code != tc.code || tc.want != "" && out.String() != tc.want || !strings.Contains(errOut.String(), tc.errs) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, stderr with %q", code, out.String(), errOut.String(), tc.code, tc.want, tc.errs)
			}
			if tc.name == "a second not a whole number of ticks" && !strings.Contains(out.String(), "IDs per second  about 585143 per node\n") {
				t.Errorf("stdout %q, want about 585143 IDs per second", out.String())
			}
		})
	}
}

func TestLayout_JSON(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"layout", "-o", "json", "hazelcast"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	const want = `{"layout":"hazelcast","text":"41t/6s/16w 1ms since 2018-01-01T00:00:00Z","fields":[{"field":"time","bits":41},{"field":"sequence","bits":6},{"field":"worker","bits":16}],"zero_bits":1,"tick":"1ms","epoch":"2018-01-01T00:00:00Z","end":"2087-09-07T15:47:35.552Z","years":69.6,"ids_per_tick":64,"ids_per_second":64000,"nodes":65536,"max_id":"9223372036854775807"}` + "\n"
	if out.String() != want {
		t.Errorf("got %s, want %s", out.String(), want)
	}
}

// TestLayout_Presets describes every preset when given no layout.
func TestLayout_Presets(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"layout", "-o", "json"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var got []string
	dec := json.NewDecoder(&out)
	for dec.More() {
		var f layoutFacts
		if err := dec.Decode(&f); err != nil {
			t.Fatal(err)
		}
		got = append(got, f.Layout)
	}
	if strings.Join(got, " ") != strings.Join(layoutPresets, " ") {
		t.Errorf("got %q, want %q", got, layoutPresets)
	}
}
