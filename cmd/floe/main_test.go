package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/internal/buildinfo"
	"github.com/floeid/floe/internal/redistest"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		count int
	}{
		{"id64 text", []string{"new", "-n", "50"}, 50},
		{"id64 snowcast", []string{"new", "-layout", "snowcast-1024", "-w", "1000", "-n", "5", "-state", t.TempDir()}, 5},
		{"id80 decimal", []string{"new", "-format", "id80", "-meta", "7", "-o", "decimal", "-n", "20"}, 20},
		{"id96", []string{"new", "-format", "id96", "-node", "9", "-n", "20"}, 20},
		{"id128 decimal", []string{"new", "-format", "id128", "-worker", "9", "-o", "decimal", "-n", "20", "-state", t.TempDir()}, 20},
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
		{"new", "-format", "id65"},
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
	if code := run([]string{"redis", "init", "--shard", "9", "--addr", a.Addr}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "another shard") || !strings.Contains(errOut.String(), "--force") {
		t.Errorf("re-init with another shard: exit %d, %q", code, errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"redis", "init", "--shard", "1024", "--addr", a.Addr}, &out, &errOut); code != 1 || !strings.HasPrefix(errOut.String(), "floe redis: --shard 1024: ") {
		t.Errorf("init with a shard out of range: exit %d, %q", code, errOut.String())
	}
	if code := run([]string{"redis", "init", "--addr", a.Addr}, &out, &errOut); code != 1 {
		t.Errorf("init without --shard: exit %d, want 1", code)
	}
	if code := run([]string{"redis", "frob"}, &out, &errOut); code != 2 {
		t.Errorf("unknown redis command: exit %d, want 2", code)
	}
}

// floe redis init sets the shard on a server without persistence, and
// warns that redisgen is not restart-safe there, naming what is missing;
// on a server with AOF always it says nothing more.
func TestRedisInit_NotDurable(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string // in stderr; nil: stderr empty
	}{
		{name: "no persistence", want: []string{"floe redis: warning: ", "not restart-safe for redisgen", "AOF is off", "appendonly yes", "appendfsync always"}},
		{name: "aof always", args: []string{"--appendonly", "yes", "--appendfsync", "always"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := redistest.Start(t, tt.args...)
			var out, errOut bytes.Buffer
			code := run([]string{"redis", "init", "--shard", "1", "--addr", srv.Addr}, &out, &errOut)
			if want := srv.Addr + ": shard 1\n"; code != 0 || out.String() != want {
				t.Fatalf("init: exit %d, %q, want 0, %q", code, out.String(), want)
			}
			if tt.want == nil && errOut.Len() != 0 {
				t.Errorf("init on a durable server: stderr %q, want nothing", errOut.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("init: stderr %q, want it to contain %q", errOut.String(), w)
				}
			}
		})
	}
}

func TestHelp(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"help of a command", []string{"help", "new"}, 0, "usage: floe new [-format"},
		{"help flag of a command", []string{"new", "-h"}, 0, "usage: floe new [-format"},
		{"help of a command with subcommands", []string{"help", "redis"}, 0, "usage: floe redis init"},
		{"help flag of a command with subcommands", []string{"redis", "-h"}, 0, "usage: floe redis init"},
		{"help of a subcommand", []string{"help", "redis", "init"}, 0, "-shard"},
		{"help flag of a subcommand", []string{"redis", "get", "-h"}, 0, "usage: floe redis get"},
		{"help of seq", []string{"help", "seq"}, 0, "usage: floe seq create"},
		{"help of seq create", []string{"help", "seq", "create"}, 0, "-layout"},
		{"help of node", []string{"help", "node"}, 0, "usage: floe node attach"},
		{"help of get", []string{"help", "get"}, 0, "-timeout"},
		{"help of bench", []string{"help", "bench"}, 0, "-pipeline"},
		{"help of inspect", []string{"help", "inspect"}, 0, "-layout"},
		{"help of completion", []string{"help", "completion"}, 0, "usage: floe completion bash|zsh|fish"},
		{"help of help", []string{"help", "help"}, 0, "usage: floe <command>"},
		{"help alone", []string{"help"}, 0, "usage: floe <command>"},
		{"-h alone", []string{"-h"}, 0, "usage: floe <command>"},
		{"--help alone", []string{"--help"}, 0, "usage: floe <command>"},
		{"no command", nil, 2, "usage: floe <command>"},
		{"help of an unknown command", []string{"help", "frob"}, 2, `unknown command "frob"`},
		{"unknown command", []string{"frob"}, 2, `unknown command "frob"`},
		{"unknown redis command", []string{"redis", "frob"}, 2, `unknown command "frob"`},
		{"redis without a command", []string{"redis"}, 2, "usage: floe redis init"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tc.args, &out, &errOut)
			if code != tc.code || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut.String(), tc.code, tc.want)
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"new with an argument", []string{"new", "-n", "2", "extra"}, "unexpected arguments: extra"},
		{"id80 flag with id64", []string{"new", "-format", "id64", "-partition", "3"}, "-partition is for -format id80, not id64"},
		{"id64 flag with id80", []string{"new", "-format", "id80", "-w", "3"}, "-w is for -format id64, not id80"},
		{"id96 flag with the default format", []string{"new", "-node", "3"}, "-node is for -format id96, not id64"},
		{"id80 flag with id96", []string{"new", "-format", "id96", "-meta", "1"}, "-meta is for -format id80, not id96"},
		{"layout with id96", []string{"new", "-format", "id96", "-layout", "twitter"}, "-layout is for -format id64, not id96"},
		{"get with an argument", []string{"get", "5"}, "unexpected arguments: 5"},
		{"redis get with an argument", []string{"redis", "get", "-n", "2", "127.0.0.1:1"}, "unexpected arguments: 127.0.0.1:1"},
		{"redis init with an argument", []string{"redis", "init", "--shard", "1", "x"}, "unexpected arguments: x"},
		{"version with an argument", []string{"version", "x"}, "unexpected arguments: x"},
		{"help with too many words", []string{"help", "redis", "init", "x"}, "want one command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tc.args, &out, &errOut)
			if code != 2 || out.Len() != 0 || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing and %q", code, out.String(), errOut.String(), tc.want)
			}
		})
	}
}

func TestNew_RangeErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // stderr
	}{
		{"worker", []string{"new", "-w", "99"}, "floe new: -w 99: out of range: want 0..31 for layout twitter\n"},
		{"datacenter", []string{"new", "-d", "32"}, "floe new: -d 32: out of range: want 0..31 for layout twitter\n"},
		{"meta", []string{"new", "-format", "id80", "-meta", "300"}, "floe new: -meta 300: out of range: want 0..255\n"},
		{"partition", []string{"new", "-format", "id80", "-partition", "70000"}, "floe new: -partition 70000: out of range: want 0..65535\n"},
		{"node", []string{"new", "-format", "id96", "-node", "4294967296"}, "floe new: -node 4294967296: out of range: want 0..4294967295\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tc.args, &out, &errOut)
			if code != 1 || errOut.String() != tc.want {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut.String(), tc.want)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	want := "floe " + buildinfo.Read().String() + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 0 || out.String() != want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0 and %q", args, code, out.String(), errOut.String(), want)
		}
	}
}

// TestRedis_OneErrorLine runs floe as a process, since go-redis writes its
// own log lines to the process's stderr.
func TestRedis_OneErrorLine(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "redis", "get", "--addr", addr, "--timeout", "5s")
	cmd.Env = append(os.Environ(), asFloe+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("floe redis get from a closed port succeeded")
	}
	if got := strings.Count(stderr.String(), "\n"); got != 1 || !strings.HasPrefix(stderr.String(), "floe redis: ") {
		t.Errorf("stderr has %d lines, want one error line:\n%s", got, stderr.String())
	}
}
