package redis

import (
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/internal/redistest"
)

// startWithReplica starts a safe primary and a replica of it, waits until
// the primary counts the replica as connected, and returns both.
func startWithReplica(t *testing.T) (primary, replica *redistest.Server) {
	t.Helper()
	primary = redistest.Start(t, safeArgs...)
	host, port, err := net.SplitHostPort(primary.Addr)
	if err != nil {
		t.Fatal(err)
	}
	replica = redistest.Start(t, append([]string{"--replicaof", host, port}, safeArgs...)...)
	rdb := newClient(t, primary.Addr)
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := rdb.Info(ctxFor(t, 5*time.Second), "replication").Result()
		if err == nil && infoField(info, "connected_slaves") == "1" {
			return primary, replica
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica not connected within 10 s: %v\n%s", err, info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Check refuses each server that can lose an acknowledged reservation,
// naming each failed condition; NewSource refuses it too unless
// Config.Unsafe is set, and then Source.Unsafe reports the same reasons.
func TestCheck(t *testing.T) {
	t.Parallel()
	start := func(args ...string) func(t *testing.T) string {
		return func(t *testing.T) string { return redistest.Start(t, args...).Addr }
	}
	tests := []struct {
		name  string
		start func(t *testing.T) string // starts the server and returns the address to check
		want  []string                  // a part of each reason, in order; none for a safe server
	}{
		{name: "aof and appendfsync always", start: start(safeArgs...)},
		{
			name:  "aof off",
			start: start(),
			want:  []string{"AOF is off (aof_enabled:0)", `appendfsync is "everysec"`},
		},
		{
			name:  "appendfsync everysec",
			start: start("--appendonly", "yes", "--appendfsync", "everysec"),
			want:  []string{`appendfsync is "everysec"`},
		},
		{
			name:  "appendfsync no",
			start: start("--appendonly", "yes", "--appendfsync", "no"),
			want:  []string{`appendfsync is "no"`},
		},
		{
			name:  "primary with a connected replica",
			start: func(t *testing.T) string { p, _ := startWithReplica(t); return p.Addr },
			want:  []string{"the primary has replicas (connected_slaves:1)"},
		},
		{
			name:  "replica",
			start: func(t *testing.T) string { _, r := startWithReplica(t); return r.Addr },
			want:  []string{"the server is a replica (role:slave)"},
		},
		{
			name:  "config disabled",
			start: start(append([]string{"--rename-command", "CONFIG", ""}, safeArgs...)...),
			want:  []string{"CONFIG is disabled or renamed"},
		},
		{
			name:  "info not permitted",
			start: start(append([]string{"--user", "default", "on", "nopass", "~*", "&*", "+@all", "-info"}, safeArgs...)...),
			want:  []string{"INFO persistence is refused", "INFO replication is refused"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			addr := tt.start(t)
			rdb := newClient(t, addr)
			err := Check(ctxFor(t, 5*time.Second), rdb)
			var unsafe *UnsafeError
			switch {
			case len(tt.want) == 0:
				if err != nil {
					t.Fatalf("Check: %v, want nil", err)
				}
			case !errors.As(err, &unsafe):
				t.Fatalf("Check: %v, want an *UnsafeError", err)
			default:
				if !errors.Is(err, ErrUnsafe) {
					t.Errorf("Check's error %v does not match ErrUnsafe", err)
				}
				if unsafe.Addr != addr {
					t.Errorf("UnsafeError.Addr = %q, want %q", unsafe.Addr, addr)
				}
				if len(unsafe.Reasons) != len(tt.want) {
					t.Fatalf("Check reasons %q, want %d: %q", unsafe.Reasons, len(tt.want), tt.want)
				}
				for i, want := range tt.want {
					if !strings.Contains(unsafe.Reasons[i], want) {
						t.Errorf("reason %d = %q, want it to contain %q", i, unsafe.Reasons[i], want)
					}
				}
				msg := err.Error()
				for _, want := range append([]string{addr, "Config.Unsafe"}, unsafe.Reasons...) {
					if !strings.Contains(msg, want) {
						t.Errorf("Check's error %q does not contain %q", msg, want)
					}
				}
			}

			_, err = NewSource(ctxFor(t, 5*time.Second), rdb, Config{IDs: 1, Owner: "a"})
			var refused *UnsafeError
			switch {
			case len(tt.want) == 0 && err != nil:
				t.Errorf("NewSource: %v", err)
			case len(tt.want) > 0 && !errors.As(err, &refused):
				t.Errorf("NewSource: %v, want an *UnsafeError", err)
			case len(tt.want) > 0 && !slices.Equal(refused.Reasons, unsafe.Reasons):
				t.Errorf("NewSource refused with %q, Check with %q", refused.Reasons, unsafe.Reasons)
			}

			src, err := NewSource(ctxFor(t, 5*time.Second), rdb, Config{IDs: 1, Owner: "a", Unsafe: true})
			if err != nil {
				t.Fatalf("NewSource with Unsafe: %v", err)
			}
			var want []string
			if unsafe != nil {
				want = unsafe.Reasons
			}
			got := src.Unsafe()
			if !slices.Equal(got, want) {
				t.Errorf("Unsafe() = %q, want %q", got, want)
			}
			if len(got) > 0 {
				got[0] = "changed"
				if again := src.Unsafe(); again[0] == "changed" {
					t.Error("Unsafe() returns the Source's own slice")
				}
			}
		})
	}
}

// A server that cannot be asked is an error, not an unsafe server, and
// Config.Unsafe does not start a Source on it.
func TestCheck_Unreachable(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rdb := newClient(t, srv.Addr)
	srv.Kill()
	if err := Check(ctxFor(t, 5*time.Second), rdb); err == nil || errors.Is(err, ErrUnsafe) {
		t.Errorf("Check on a stopped server: %v, want a network error", err)
	}
	for _, unsafe := range []bool{false, true} {
		if _, err := NewSource(ctxFor(t, 5*time.Second), rdb, Config{IDs: 1, Owner: "a", Unsafe: unsafe}); err == nil || errors.Is(err, ErrUnsafe) {
			t.Errorf("NewSource (Unsafe %v) on a stopped server: %v, want a network error", unsafe, err)
		}
	}
}

var infoFieldTests = []struct {
	name string
	info string
	key  string
	want string
}{
	{"crlf lines", "# Persistence\r\nloading:0\r\naof_enabled:1\r\naof_rewrite_in_progress:0\r\n", "aof_enabled", "1"},
	{"lf lines", "# Replication\nrole:master\nconnected_slaves:0\n", "connected_slaves", "0"},
	{"last line without newline", "role:slave\r\nconnected_slaves:2", "connected_slaves", "2"},
	{"first line", "role:master\r\n", "role", "master"},
	{"missing", "# Replication\r\nrole:master\r\n", "connected_slaves", ""},
	{"empty", "", "role", ""},
	{"longer name is not the name", "aof_enabled_x:1\r\naof_enabled:0\r\n", "aof_enabled", "0"},
	{"name inside a line", "x_role:slave\r\nrole:master\r\n", "role", "master"},
	{"name in a value", "slave0:ip=1,role:slave\r\nrole:master\r\n", "role", "master"},
	{"empty value", "role:\r\n", "role", ""},
	{"value with colons", "master_host:::1\r\n", "master_host", "::1"},
	{"first of two", "role:a\r\nrole:b\r\n", "role", "a"},
	{"no colon", "role\r\n", "role", ""},
	{"trailing carriage returns", "role:master\r\r\n", "role", "master"},
}

func TestInfoField(t *testing.T) {
	for _, tt := range infoFieldTests {
		t.Run(tt.name, func(t *testing.T) {
			if got := infoField(tt.info, tt.key); got != tt.want {
				t.Errorf("infoField(%q, %q) = %q, want %q", tt.info, tt.key, got, tt.want)
			}
		})
	}
}

func FuzzInfoField(f *testing.F) {
	for _, tt := range infoFieldTests {
		f.Add(tt.info, tt.key)
	}
	f.Fuzz(func(t *testing.T, info, key string) {
		got := infoField(info, key)
		if strings.ContainsAny(got, "\n") || strings.HasSuffix(got, "\r") {
			t.Fatalf("infoField(%q, %q) = %q, more than the rest of a line", info, key, got)
		}
		if got == "" {
			return
		}
		// The value is the rest of a line that starts with key and ':'.
		for line := range strings.Lines(info) {
			if strings.TrimRight(line, "\r\n") == key+":"+got {
				return
			}
		}
		t.Fatalf("infoField(%q, %q) = %q, which no line %q holds", info, key, got, key+":"+got)
	})
}
