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
