package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/internal/redistest"
)

func TestInspect(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
		code int
		errs string // in stderr
	}{
		{"twitter", []string{"inspect", "2124472963691585536"}, "2124472963691585536 id64 layout=twitter time=2026-11-22T12:00:00Z tick=506513825343 datacenter=1 worker=2 sequence=0\n", 0, ""},
		{"discord", []string{"inspect", "-layout", "discord", "175928847299117063"}, "175928847299117063 id64 layout=discord time=2016-04-30T11:18:25.796Z tick=41944705796 datacenter=1 worker=0 sequence=7\n", 0, ""},
		{"id80, also valid as id96", []string{"inspect", "9q8xk7a2272im222"}, "9q8xk7a2272im222 id80 time=2026-11-22T12:00:00Z ticktock=false meta=1 partition=16650 sequence=0\n9q8xk7a2272im222 id96 time=2177-12-19T22:06:37.825032192Z drift=1 node=1153533504 sequence=12483\n", 0, ""},
		{"forced id80", []string{"inspect", "-format", "id80", "9q8xk7a2272im222"}, "9q8xk7a2272im222 id80 time=2026-11-22T12:00:00Z ticktock=false meta=1 partition=16650 sequence=0\n", 0, ""},
		{"bad format", []string{"inspect", "-format", "id32", "1"}, "", 1, ""},
		{"id96", []string{"inspect", "NlpAV..5KzRKzN.."}, "NlpAV..5KzRKzN.. id96 time=2026-11-22T11:59:59.999967232Z drift=3 node=51966 sequence=0\n", 0, ""},
		{"garbage", []string{"inspect", "not-an-id"}, "", 1, ""},
		{"no ids", []string{"inspect"}, "", 1, ""},
		{"unknown layout", []string{"inspect", "-layout", "nope", "1"}, "", 1, ""},
		{"top bit on a signed layout", []string{"inspect", "9223372036854775808"}, "", 1, "9223372036854775808: floe: id out of the layout's range: 9223372036854775808 has the top bit set"},
		{"largest uint64 on a signed layout", []string{"inspect", "-format", "id64", "18446744073709551615"}, "", 1, "out of the layout's range"},
		{"top bit on an unsigned layout", []string{"inspect", "-layout", "discord", "9223372036854775808"}, "9223372036854775808 id64 layout=discord time=2084-09-06T15:47:35.552Z tick=2199023255552 datacenter=0 worker=0 sequence=0\n", 0, ""},
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

func TestNew(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		count int
	}{
		{"id64 text", []string{"new", "-n", "50"}, 50},
		{"id64 snowcast", []string{"new", "-layout", "snowcast-1024", "-w", "1000", "-n", "5"}, 5},
		{"id80 decimal", []string{"new", "-format", "id80", "-meta", "7", "-o", "decimal", "-n", "20"}, 20},
		{"id96", []string{"new", "-format", "id96", "-node", "9", "-n", "20"}, 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(tc.args, &out, &errOut); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			lines := strings.Fields(out.String())
			if len(lines) != tc.count {
				t.Fatalf("got %d IDs, want %d", len(lines), tc.count)
			}
			if err := floetest.Unique(lines); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestNew_JSON(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"new", "-format", "id80", "-o", "json", "-n", "3"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var ids []id80.ID
	if err := json.Unmarshal(out.Bytes(), &ids); err != nil || len(ids) != 3 {
		t.Fatalf("output %q: %v", out.String(), err)
	}
}

func TestNew_BadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"new", "-format", "id128"},
		{"new", "-o", "xml"},
		{"new", "-n", "-1"},
		{"new", "-policy", "sleep"},
		{"new", "-w", "99"},
		{"new", "-format", "id96", "-policy", "ticktock"},
		{"new", "-format", "id80", "-meta", "300"},
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 1 || errOut.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 1 and a message", args, code, errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"new", "-bogus"}, &out, &errOut); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
	if code := run([]string{"frobnicate"}, &out, &errOut); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
}

func TestRedis(t *testing.T) {
	a, b := redistest.Start(t), redistest.Start(t)
	var out, errOut bytes.Buffer
	for i, addr := range []string{a.Addr, b.Addr} {
		out.Reset()
		code := run([]string{"redis", "init", "--shard", strconv.Itoa(i + 1), "--addr", addr}, &out, &errOut)
		if want := fmt.Sprintf("%s: shard %d\n", addr, i+1); code != 0 || out.String() != want {
			t.Fatalf("init: exit %d, %q (stderr %q), want %q", code, out.String(), errOut.String(), want)
		}
	}
	out.Reset()
	if code := run([]string{"redis", "get", "-n", "300", "--addr", a.Addr + "," + b.Addr}, &out, &errOut); code != 0 {
		t.Fatalf("get: exit %d: %s", code, errOut.String())
	}
	ids := strings.Fields(out.String())
	if len(ids) != 300 {
		t.Fatalf("got %d IDs, want 300", len(ids))
	}
	if err := floetest.Unique(ids); err != nil {
		t.Fatal(err)
	}
	errOut.Reset()
	if code := run([]string{"redis", "init", "--shard", "9", "--addr", a.Addr}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "another shard") {
		t.Errorf("re-init with another shard: exit %d, %q", code, errOut.String())
	}
	if code := run([]string{"redis", "init", "--addr", a.Addr}, &out, &errOut); code != 1 {
		t.Errorf("init without --shard: exit %d, want 1", code)
	}
	if code := run([]string{"redis", "frob"}, &out, &errOut); code != 2 {
		t.Errorf("unknown redis command: exit %d, want 2", code)
	}
}
