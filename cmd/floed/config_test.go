package main

import (
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/server"
	"github.com/floeid/floe/internal/tlstest"
)

// envLookup is a lookup func over env, as os.LookupEnv over the environment.
func envLookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}

func TestConfig_ParseFlagsCluster(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(c *Config) bool
		wantErr string
	}{
		{
			name: "single node by default",
			check: func(c *Config) bool {
				return !c.clustered() && c.Cluster == "default" && c.LeaseTTL == 10*time.Second && c.FirstClaim == 30*time.Second && c.Owner != ""
			},
		},
		{
			name: "etcd endpoints",
			args: []string{"--etcd", "10.0.0.1:2379,10.0.0.2:2379", "--cluster", "prod", "--lease-ttl", "3s", "--owner", "host-a"},
			check: func(c *Config) bool {
				return slices.Equal(c.Etcd, []string{"10.0.0.1:2379", "10.0.0.2:2379"}) && c.Cluster == "prod" && c.LeaseTTL == 3*time.Second && c.Owner == "host-a"
			},
		},
		{
			name:  "etcd from the environment",
			env:   map[string]string{"FLOE_ETCD": "e1:2379,e2:2379", "FLOE_CLUSTER": "c1", "FLOE_LEASE_TTL": "4s"},
			check: func(c *Config) bool { return len(c.Etcd) == 2 && c.Cluster == "c1" && c.LeaseTTL == 4*time.Second },
		},
		{
			name:  "a flag wins over the environment",
			args:  []string{"--etcd", "e3:2379"},
			env:   map[string]string{"FLOE_ETCD": "e1:2379,e2:2379"},
			check: func(c *Config) bool { return slices.Equal(c.Etcd, []string{"e3:2379"}) },
		},
		{
			name:  "redis unsafe",
			args:  []string{"--redis", "127.0.0.1:6379", "--redis-unsafe"},
			check: func(c *Config) bool { return c.Redis == "127.0.0.1:6379" && c.RedisUnsafe },
		},
		{
			name:  "redis unsafe from the environment",
			env:   map[string]string{"FLOE_REDIS": "r:6379", "FLOE_REDIS_UNSAFE": "true"},
			check: func(c *Config) bool { return c.RedisUnsafe },
		},
		{name: "both coordinators", args: []string{"--etcd", "e:2379", "--redis", "r:6379"}, wantErr: "choose one"},
		{name: "a worker in a cluster", args: []string{"--etcd", "e:2379", "-w", "3"}, wantErr: "worker ID is claimed"},
		{name: "a datacenter in a cluster", args: []string{"--redis", "r:6379", "-d", "1"}, wantErr: "worker ID is claimed"},
		{name: "time of death in a cluster", args: []string{"--etcd", "e:2379", "-t", "1700000000000"}, wantErr: "single node"},
		{name: "require state in a cluster", args: []string{"--etcd", "e:2379", "--require-state"}, wantErr: "--require-state is for a single node"},
		{name: "first start in a cluster", args: []string{"--etcd", "e:2379", "--first-start", "wait"}, wantErr: "--first-start is for a single node"},
		{name: "require state and first start wait", args: []string{"--require-state", "--first-start", "wait"}, wantErr: "choose one"},
		{name: "bad cluster name", args: []string{"--etcd", "e:2379", "--cluster", "a/b"}, wantErr: "-cluster"},
		{name: "short lease", args: []string{"--etcd", "e:2379", "--lease-ttl", "500ms"}, wantErr: "-lease-ttl"},
		{name: "unsafe without redis", args: []string{"--redis-unsafe"}, wantErr: "without --redis"},
		{name: "unsafe with etcd", args: []string{"--etcd", "e:2379", "--redis-unsafe"}, wantErr: "without --redis"},
		{name: "empty endpoint", args: []string{"--etcd", "e:2379,"}, wantErr: "empty endpoint"},
		{name: "cluster without a coordinator", args: []string{"--cluster", "ids"}, wantErr: "--cluster without --etcd, --redis or --kube"},
		{name: "cluster variable without a coordinator", env: map[string]string{"FLOE_CLUSTER": "ids"}, wantErr: "$FLOE_CLUSTER (--cluster) without --etcd, --redis or --kube"},
		{name: "cluster flag over its variable", args: []string{"--cluster=ids"}, env: map[string]string{"FLOE_CLUSTER": "x"}, wantErr: "--cluster without --etcd"},
		{name: "lease ttl without a coordinator", args: []string{"--lease-ttl", "5s"}, wantErr: "--lease-ttl without --etcd, --redis or --kube"},
		{name: "first claim timeout without a coordinator", args: []string{"--first-claim-timeout", "1m"}, wantErr: "--first-claim-timeout without --etcd, --redis or --kube"},
		{name: "owner without a coordinator", env: map[string]string{"FLOE_OWNER": "host-a"}, wantErr: "$FLOE_OWNER (--owner) without --etcd, --redis or --kube"},
		{name: "the CLI's redis password without redis", env: map[string]string{"FLOE_REDIS_PASSWORD": "pw"}, check: func(c *Config) bool {
			return c.RedisPassword == "" && !c.clustered() && slices.Equal(c.ignoredEnv, []string{"FLOE_REDIS_PASSWORD"})
		}},
		{name: "the redis password flag without redis", args: []string{"--redis-password", "pw"}, env: map[string]string{"FLOE_REDIS_PASSWORD": "pw"}, wantErr: "--redis-password without --redis"},
		{name: "the CLI's redis password with etcd", args: []string{"--etcd", "e:2379"}, env: map[string]string{"FLOE_REDIS_PASSWORD": "pw"}, check: func(c *Config) bool { return c.RedisPassword == "" }},
		{name: "kube and etcd", args: []string{"--kube", "--etcd", "e:2379"}, wantErr: "--etcd and --kube: choose one coordinator"},
		{name: "kube from the environment and redis", args: []string{"--redis", "r:6379"}, env: map[string]string{"FLOE_KUBE": "true"}, wantErr: "--redis and --kube: choose one coordinator"},
		{name: "kube variable not a boolean", env: map[string]string{"FLOE_KUBE": "yes please"}, wantErr: "FLOE_KUBE"},
		{name: "kubeconfig without kube", args: []string{"--kubeconfig", "/etc/kube.conf"}, wantErr: "--kubeconfig without --kube"},
		{name: "kube namespace variable without kube", env: map[string]string{"FLOE_KUBE_NAMESPACE": "ids"}, wantErr: "--kube-namespace without --kube"},
		{name: "kube cluster name with capitals", args: []string{"--kube", "--cluster", "Prod"}, wantErr: `--cluster "Prod" with --kube: the cluster's name is part of its Lease objects' names, so it must be 1 to 40 bytes of [a-z0-9-]`},
		{name: "kube cluster name with an underscore", args: []string{"--kube", "--cluster", "prod_1"}, wantErr: `--cluster "prod_1" with --kube`},
		{name: "kube worker", args: []string{"--kube", "-w", "3"}, wantErr: "in a cluster (--etcd, --redis or --kube) the worker ID is claimed"},
		{name: "kube with its flags", args: []string{"--kube", "--kubeconfig", "/etc/kube.conf", "--kube-namespace", "ids", "--cluster", "prod-1"}, check: func(c *Config) bool {
			return c.Kube && c.clustered() && c.Kubeconfig == "/etc/kube.conf" && c.KubeNamespace == "ids" && c.Cluster == "prod-1"
		}},
		{name: "kube from the environment", env: map[string]string{"FLOE_KUBE": "true", "FLOE_KUBECONFIG": "/etc/kube.conf", "FLOE_KUBE_NAMESPACE": "ids"}, check: func(c *Config) bool {
			return c.Kube && c.Kubeconfig == "/etc/kube.conf" && c.KubeNamespace == "ids"
		}},
		{name: "cluster with redis from the environment", args: []string{"--cluster", "ids"}, env: map[string]string{"FLOE_REDIS": "r:6379"}, check: func(c *Config) bool { return c.Cluster == "ids" && c.Redis == "r:6379" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			err := c.ParseFlags(tt.args, envLookup(tt.env), io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseFlags(%q) = %v, want an error with %q", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseFlags(%q): %v", tt.args, err)
			}
			if !tt.check(&c) {
				t.Fatalf("ParseFlags(%q) gave %+v", tt.args, c)
			}
		})
	}
}

// setting returns c's field named name, for comparing with want.
func setting(c *Config, name string) any {
	return reflect.ValueOf(c).Elem().FieldByName(name).Interface()
}

// sameSetting reports whether got and want are equal; times are equal when
// they are the same instant.
func sameSetting(got, want any) bool {
	if g, ok := got.(time.Time); ok {
		w, ok := want.(time.Time)
		return ok && g.Equal(w)
	}
	return reflect.DeepEqual(got, want)
}

// anyValue are the variables every string is good for (an empty owner
// means the host's name; an empty admin token, the admin API closed).
// Passwords likewise: an empty one is refused when it is used, by
// loadCoordSecurity.
var anyValue = []string{"FLOE_OWNER", "FLOE_ADMIN_TOKEN", "FLOE_ETCD_PASSWORD", "FLOE_REDIS_PASSWORD"}

// TestConfig_ParseFlagsEnv gives every variable good and bad values, each
// once as the variable and once as its flag: both must agree.
func TestConfig_ParseFlagsEnv(t *testing.T) {
	ca := tlstest.NewCA(t, "env")
	pair := ca.Issue(t, "floed")
	pwFile := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(pwFile, []byte("pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// vars returns the variables of name, value pairs.
	vars := func(kv ...string) map[string]string {
		m := make(map[string]string)
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	etcdWith := func(kv ...string) map[string]string {
		return vars(append([]string{"FLOE_ETCD", "127.0.0.1:2379"}, kv...)...)
	}
	redisWith := func(kv ...string) map[string]string {
		return vars(append([]string{"FLOE_REDIS", "127.0.0.1:6379"}, kv...)...)
	}
	etcd, redis := etcdWith(), redisWith()
	kube := vars("FLOE_KUBE", "true")
	tests := []struct {
		name    string
		env     string
		value   string
		with    map[string]string // other variables the value needs
		field   string            // the Config field it sets
		want    any
		wantErr string
	}{
		{name: "listen address", env: "FLOE_LISTEN", value: "127.0.0.1:4000", field: "Listen", want: "127.0.0.1:4000"},
		{name: "listen port only", env: "FLOE_LISTEN", value: ":4000", field: "Listen", want: ":4000"},
		{name: "listen empty turns it off", env: "FLOE_LISTEN", value: "", field: "Listen", want: ""},
		{name: "listen without a port", env: "FLOE_LISTEN", value: "127.0.0.1", wantErr: "want host:port"},
		{name: "listen port out of range", env: "FLOE_LISTEN", value: ":99999", wantErr: "want host:port"},
		{name: "http address", env: "FLOE_HTTP", value: "[::1]:8080", field: "HTTP", want: "[::1]:8080"},
		{name: "http empty turns it off", env: "FLOE_HTTP", value: "", field: "HTTP", want: ""},
		{name: "http not an address", env: "FLOE_HTTP", value: "localhost", wantErr: "want host:port"},
		{name: "grpc address", env: "FLOE_GRPC", value: "127.0.0.1:4446", field: "GRPC", want: "127.0.0.1:4446"},
		{name: "grpc empty turns it off", env: "FLOE_GRPC", value: "", field: "GRPC", want: ""},
		{name: "grpc not an address", env: "FLOE_GRPC", value: "4446", wantErr: "want host:port"},
		{name: "state directory", env: "FLOE_STATE", value: "/var/lib/floed", field: "StateDir", want: "/var/lib/floed"},
		{name: "state empty", env: "FLOE_STATE", value: "", wantErr: "want a directory"},
		{name: "worker", env: "FLOE_WORKER", value: "7", field: "Worker", want: uint64(7)},
		{name: "worker zero", env: "FLOE_WORKER", value: "0", field: "Worker", want: uint64(0)},
		{name: "worker not a number", env: "FLOE_WORKER", value: "abc", wantErr: "want an unsigned decimal integer"},
		{name: "worker with a suffix", env: "FLOE_WORKER", value: "3x", wantErr: "want an unsigned decimal integer"},
		{name: "worker negative", env: "FLOE_WORKER", value: "-1", wantErr: "want an unsigned decimal integer"},
		{name: "worker with a space", env: "FLOE_WORKER", value: " 3", wantErr: "want an unsigned decimal integer"},
		{name: "worker with a plus", env: "FLOE_WORKER", value: "+3", wantErr: "want an unsigned decimal integer"},
		{name: "worker with a leading zero", env: "FLOE_WORKER", value: "010", wantErr: "no leading zero"},
		{name: "worker in hexadecimal", env: "FLOE_WORKER", value: "0x1f", wantErr: "want an unsigned decimal integer"},
		{name: "worker empty", env: "FLOE_WORKER", value: "", wantErr: "want an unsigned decimal integer"},
		{name: "worker above 64 bits", env: "FLOE_WORKER", value: "18446744073709551616", wantErr: "out of range"},
		{name: "datacenter", env: "FLOE_DATACENTER", value: "31", field: "Datacenter", want: uint64(31)},
		{name: "datacenter not a number", env: "FLOE_DATACENTER", value: "zz", wantErr: "want an unsigned decimal integer"},
		{name: "datacenter empty", env: "FLOE_DATACENTER", value: "", wantErr: "want an unsigned decimal integer"},
		{name: "layout", env: "FLOE_LAYOUT", value: "snowcast-1024", field: "Layout", want: "snowcast-1024"},
		{name: "layout unknown", env: "FLOE_LAYOUT", value: "bogus", wantErr: "unknown layout"},
		{name: "layout empty", env: "FLOE_LAYOUT", value: "", wantErr: "want twitter, icicle"},
		{name: "layout icicle 2.x", env: "FLOE_LAYOUT", value: "icicle2", field: "Layout", want: "icicle2"},
		{name: "layout redisgen", env: "FLOE_LAYOUT", value: "redisgen", field: "Layout", want: "redisgen"},
		{name: "layout written out", env: "FLOE_LAYOUT", value: "41t/10w/12s 1ms since 1455788600316", field: "Layout", want: "41t/10w/12s 1ms since 1455788600316"},
		{name: "layout written out malformed", env: "FLOE_LAYOUT", value: "41t/10w/12s 1ms since", wantErr: "no epoch"},
		{name: "layout written out too wide", env: "FLOE_LAYOUT", value: "41t/10w/13s 1ms since 2016-02-18", wantErr: "layout uses too many bits"},
		{name: "time of death in milliseconds", env: "FLOE_TIME_OF_DEATH", value: "1700000000000", field: "TimeOfDeath", want: time.UnixMilli(1700000000000)},
		{name: "time of death in rfc 3339", env: "FLOE_TIME_OF_DEATH", value: "2023-11-14T22:13:20Z", field: "TimeOfDeath", want: time.UnixMilli(1700000000000)},
		{name: "time of death malformed", env: "FLOE_TIME_OF_DEATH", value: "yesterday", wantErr: "want Unix milliseconds or an RFC 3339 time"},
		{name: "time of death empty", env: "FLOE_TIME_OF_DEATH", value: "", wantErr: "want Unix milliseconds"},
		{name: "clock policy", env: "FLOE_CLOCK_POLICY", value: "borrow", field: "Policy", want: floe.Borrow},
		{name: "clock policy fail", env: "FLOE_CLOCK_POLICY", value: "fail", field: "Policy", want: floe.Fail},
		{name: "clock policy unknown", env: "FLOE_CLOCK_POLICY", value: "later", wantErr: "want wait, fail or borrow"},
		{name: "clock policy ticktock", env: "FLOE_CLOCK_POLICY", value: "ticktock", wantErr: "want wait, fail or borrow"},
		{name: "clock policy empty", env: "FLOE_CLOCK_POLICY", value: "", wantErr: "want wait, fail or borrow"},
		{name: "max ahead", env: "FLOE_MAX_AHEAD", value: "3s", field: "MaxAhead", want: 3 * time.Second},
		{name: "max ahead zero", env: "FLOE_MAX_AHEAD", value: "0s", wantErr: "want a duration above zero"},
		{name: "max ahead without a unit", env: "FLOE_MAX_AHEAD", value: "3", wantErr: "want a duration such as 5s"},
		{name: "max wait", env: "FLOE_MAX_WAIT", value: "250ms", field: "MaxWait", want: 250 * time.Millisecond},
		{name: "max wait malformed", env: "FLOE_MAX_WAIT", value: "abc", wantErr: "want a duration such as 5s"},
		{name: "max wait negative", env: "FLOE_MAX_WAIT", value: "-1s", wantErr: "want a duration above zero"},
		{name: "max wait empty", env: "FLOE_MAX_WAIT", value: "", wantErr: "want a duration such as 5s"},
		{name: "reserve window", env: "FLOE_RESERVE_WINDOW", value: "10ms", field: "Window", want: 10 * time.Millisecond},
		{name: "reserve window zero", env: "FLOE_RESERVE_WINDOW", value: "0", wantErr: "want a duration of at least 10ms"},
		{name: "reserve window too short", env: "FLOE_RESERVE_WINDOW", value: "9ms", wantErr: "want a duration of at least 10ms"},
		{name: "sequences", env: "FLOE_SEQUENCES", value: "a=id64:snowcast-1024,b=id80,c=id96,d=id128", field: "Sequences", want: []string{"a=id64:snowcast-1024", "b=id80", "c=id96", "d=id128"}},
		{name: "sequences with a bad item", env: "FLOE_SEQUENCES", value: "a=id64,b", wantErr: "want name=format[:layout]"},
		{name: "sequences with an unknown format", env: "FLOE_SEQUENCES", value: "a=id65", wantErr: "want id64, id80, id96 or id128"},
		{name: "sequences with a layout on id80", env: "FLOE_SEQUENCES", value: "a=id80:twitter", wantErr: "only id64 takes a layout"},
		{name: "sequences with a layout on id128", env: "FLOE_SEQUENCES", value: "a=id128:twitter", wantErr: "only id64 takes a layout"},
		{name: "sequences with an unknown layout", env: "FLOE_SEQUENCES", value: "a=id64:bogus", wantErr: "unknown layout"},
		{name: "sequences with a layout written out", env: "FLOE_SEQUENCES", value: "a=id64:42t/5d/5w/12s 1ms since 2015-01-01T00:00:00Z unsigned,b=id64:icicle2", field: "Sequences", want: []string{"a=id64:42t/5d/5w/12s 1ms since 2015-01-01T00:00:00Z unsigned", "b=id64:icicle2"}},
		{name: "sequences with a malformed layout", env: "FLOE_SEQUENCES", value: "a=id64:42t/5d/5w/12s 1ms", wantErr: "malformed layout"},
		{name: "sequences empty", env: "FLOE_SEQUENCES", value: "", wantErr: "want name=format[:layout]"},
		{name: "tokens", env: "FLOE_TOKENS", value: "a=t1,b=t2", with: map[string]string{"FLOE_SEQUENCES": "a=id64,b=id80"}, field: "Tokens", want: []string{"a=t1", "b=t2"}},
		{name: "tokens with a bad item", env: "FLOE_TOKENS", value: "a=t1,t2", wantErr: "want seq=token"},
		{name: "tokens with an empty token", env: "FLOE_TOKENS", value: "a=", wantErr: "want a token of 1 to 255 bytes"},
		{name: "tokens with a long token", env: "FLOE_TOKENS", value: "a=" + strings.Repeat("x", 256), wantErr: "want a token of 1 to 255 bytes"},
		{name: "tokens empty", env: "FLOE_TOKENS", value: "", wantErr: "want seq=token"},
		{name: "floe token", env: "FLOE_TOKEN", value: "s3cret", field: "Token", want: "s3cret"},
		{name: "floe token empty", env: "FLOE_TOKEN", value: "", wantErr: "want a token of 1 to 255 bytes"},
		{name: "floe token too long", env: "FLOE_TOKEN", value: strings.Repeat("x", 256), wantErr: "want a token of 1 to 255 bytes"},
		{name: "noeq token", env: "NOEQ_TOKEN", value: "s3cret", field: "Token", want: "s3cret"},
		{name: "noeq token empty means none, as in noeqd", env: "NOEQ_TOKEN", value: "", field: "Token", want: ""},
		{name: "noeq token too long", env: "NOEQ_TOKEN", value: strings.Repeat("x", 256), wantErr: "want a token of 1 to 255 bytes"},
		{name: "max conns", env: "FLOE_MAX_CONNS", value: "100", field: "MaxConns", want: 100},
		{name: "max conns zero", env: "FLOE_MAX_CONNS", value: "0", wantErr: "want at least 1"},
		{name: "max conns negative", env: "FLOE_MAX_CONNS", value: "-5", wantErr: "want an unsigned decimal integer"},
		{name: "max conns not a number", env: "FLOE_MAX_CONNS", value: "many", wantErr: "want an unsigned decimal integer"},
		{name: "max conns above int", env: "FLOE_MAX_CONNS", value: "9223372036854775808", wantErr: "want at most"},
		{name: "auth timeout", env: "FLOE_AUTH_TIMEOUT", value: "1s", field: "AuthTimeout", want: time.Second},
		{name: "auth timeout zero", env: "FLOE_AUTH_TIMEOUT", value: "0s", wantErr: "want a duration above zero"},
		{name: "auth timeout negative", env: "FLOE_AUTH_TIMEOUT", value: "-1s", wantErr: "want a duration above zero"},
		{name: "idle timeout", env: "FLOE_IDLE_TIMEOUT", value: "1m", field: "IdleTimeout", want: time.Minute},
		{name: "idle timeout negative", env: "FLOE_IDLE_TIMEOUT", value: "-1m", wantErr: "want a duration above zero"},
		{name: "idle timeout malformed", env: "FLOE_IDLE_TIMEOUT", value: "1 m", wantErr: "want a duration such as 5s"},
		{name: "max http ids", env: "FLOE_MAX_HTTP_IDS", value: "5", field: "MaxHTTPIDs", want: 5},
		{name: "max http ids zero", env: "FLOE_MAX_HTTP_IDS", value: "0", wantErr: "want at least 1"},
		{name: "max http ids malformed", env: "FLOE_MAX_HTTP_IDS", value: "1e3", wantErr: "want an unsigned decimal integer"},
		{name: "shutdown timeout", env: "FLOE_SHUTDOWN_TIMEOUT", value: "30s", field: "Shutdown", want: 30 * time.Second},
		{name: "shutdown timeout zero", env: "FLOE_SHUTDOWN_TIMEOUT", value: "0s", wantErr: "want a duration above zero"},
		{name: "log format", env: "FLOE_LOG_FORMAT", value: "json", field: "LogFormat", want: "json"},
		{name: "log format unknown", env: "FLOE_LOG_FORMAT", value: "xml", wantErr: "want text or json"},
		{name: "log format in capitals", env: "FLOE_LOG_FORMAT", value: "JSON", wantErr: "want text or json"},
		{name: "log level", env: "FLOE_LOG_LEVEL", value: "debug", field: "LogLevel", want: slog.LevelDebug},
		{name: "log level in capitals", env: "FLOE_LOG_LEVEL", value: "WARN", field: "LogLevel", want: slog.LevelWarn},
		{name: "log level unknown", env: "FLOE_LOG_LEVEL", value: "loud", wantErr: "want debug, info, warn or error"},
		{name: "log level empty", env: "FLOE_LOG_LEVEL", value: "", wantErr: "want debug, info, warn or error"},
		{name: "clock offset", env: "FLOE_CLOCK_OFFSET", value: "-1h", field: "ClockOffset", want: -time.Hour},
		{name: "clock offset malformed", env: "FLOE_CLOCK_OFFSET", value: "-1", wantErr: "want a duration such as 5s"},
		{name: "etcd", env: "FLOE_ETCD", value: "e1:2379,e2:2379", field: "Etcd", want: []string{"e1:2379", "e2:2379"}},
		{name: "etcd with an empty endpoint", env: "FLOE_ETCD", value: "e1:2379,", wantErr: "empty endpoint"},
		{name: "etcd empty", env: "FLOE_ETCD", value: "", wantErr: "empty endpoint"},
		{name: "redis", env: "FLOE_REDIS", value: "r:6379", field: "Redis", want: "r:6379"},
		{name: "redis without a port", env: "FLOE_REDIS", value: "r", wantErr: "want host:port"},
		{name: "redis empty", env: "FLOE_REDIS", value: "", wantErr: "want host:port"},
		{name: "cluster", env: "FLOE_CLUSTER", value: "prod-1", with: etcd, field: "Cluster", want: "prod-1"},
		{name: "cluster with a slash", env: "FLOE_CLUSTER", value: "a/b", wantErr: "want 1 to 64 bytes"},
		{name: "cluster dot dot", env: "FLOE_CLUSTER", value: "..", wantErr: "want 1 to 64 bytes"},
		{name: "cluster empty", env: "FLOE_CLUSTER", value: "", wantErr: "want 1 to 64 bytes"},
		{name: "lease ttl", env: "FLOE_LEASE_TTL", value: "1s", with: etcd, field: "LeaseTTL", want: time.Second},
		{name: "lease ttl too short", env: "FLOE_LEASE_TTL", value: "999ms", wantErr: "want a duration of at least 1s"},
		{name: "lease ttl malformed", env: "FLOE_LEASE_TTL", value: "10", wantErr: "want a duration such as 5s"},
		{name: "first claim timeout", env: "FLOE_FIRST_CLAIM_TIMEOUT", value: "2m", with: etcd, field: "FirstClaim", want: 2 * time.Minute},
		{name: "first claim timeout zero", env: "FLOE_FIRST_CLAIM_TIMEOUT", value: "0s", with: etcd, wantErr: "want a duration above zero"},
		{name: "owner", env: "FLOE_OWNER", value: "host-a", with: etcd, field: "Owner", want: "host-a"},
		{name: "owner empty", env: "FLOE_OWNER", value: "", with: etcd, field: "Owner", want: ""},
		{name: "redis unsafe", env: "FLOE_REDIS_UNSAFE", value: "true", with: map[string]string{"FLOE_REDIS": "r:6379"}, field: "RedisUnsafe", want: true},
		{name: "redis unsafe as 1", env: "FLOE_REDIS_UNSAFE", value: "1", with: map[string]string{"FLOE_REDIS": "r:6379"}, field: "RedisUnsafe", want: true},
		{name: "redis unsafe false", env: "FLOE_REDIS_UNSAFE", value: "false", field: "RedisUnsafe", want: false},
		{name: "redis unsafe maybe", env: "FLOE_REDIS_UNSAFE", value: "maybe", wantErr: "want true or false"},
		{name: "require state", env: "FLOE_REQUIRE_STATE", value: "true", field: "RequireState", want: true},
		{name: "require state false", env: "FLOE_REQUIRE_STATE", value: "0", field: "RequireState", want: false},
		{name: "require state yes", env: "FLOE_REQUIRE_STATE", value: "yes", wantErr: "want true or false"},
		{name: "first start wait", env: "FLOE_FIRST_START", value: "wait", field: "FirstStart", want: "wait"},
		{name: "first start refuse", env: "FLOE_FIRST_START", value: "refuse", field: "FirstStart", want: "refuse"},
		{name: "require state is first start refuse", env: "FLOE_REQUIRE_STATE", value: "true", field: "FirstStart", want: "refuse"},
		{name: "first start unknown", env: "FLOE_FIRST_START", value: "later", wantErr: "want warn or refuse or wait"},
		{name: "first start empty", env: "FLOE_FIRST_START", value: "", wantErr: "want warn or refuse or wait"},
		{name: "redis unsafe empty", env: "FLOE_REDIS_UNSAFE", value: "", wantErr: "want true or false"},
		{name: "admin token", env: "FLOE_ADMIN_TOKEN", value: "adm1n", field: "AdminToken", want: "adm1n"},
		{name: "admin token empty", env: "FLOE_ADMIN_TOKEN", value: "", field: "AdminToken", want: ""},
		{name: "admin loopback", env: "FLOE_ADMIN_LOOPBACK", value: "true", field: "AdminLoopback", want: true},
		{name: "admin loopback false", env: "FLOE_ADMIN_LOOPBACK", value: "0", field: "AdminLoopback", want: false},
		{name: "admin loopback maybe", env: "FLOE_ADMIN_LOOPBACK", value: "maybe", wantErr: "want true or false"},
		{name: "etcd ca", env: "FLOE_ETCD_CA", value: ca.CertFile, with: etcd, field: "EtcdCA", want: ca.CertFile},
		{name: "etcd ca empty", env: "FLOE_ETCD_CA", value: "", with: etcd, wantErr: "want a file name"},
		{name: "etcd cert", env: "FLOE_ETCD_CERT", value: pair.CertFile, with: etcdWith("FLOE_ETCD_KEY", pair.KeyFile), field: "EtcdCert", want: pair.CertFile},
		{name: "etcd cert empty", env: "FLOE_ETCD_CERT", value: "", with: etcd, wantErr: "want a file name"},
		{name: "etcd key", env: "FLOE_ETCD_KEY", value: pair.KeyFile, with: etcdWith("FLOE_ETCD_CERT", pair.CertFile), field: "EtcdKey", want: pair.KeyFile},
		{name: "etcd key empty", env: "FLOE_ETCD_KEY", value: "", with: etcd, wantErr: "want a file name"},
		{name: "etcd user", env: "FLOE_ETCD_USER", value: "floe", with: etcdWith("FLOE_ETCD_PASSWORD", "pw"), field: "EtcdUser", want: "floe"},
		{name: "etcd user empty", env: "FLOE_ETCD_USER", value: "", with: etcd, wantErr: "want a user name"},
		{name: "etcd password", env: "FLOE_ETCD_PASSWORD", value: "pw", with: etcdWith("FLOE_ETCD_USER", "floe"), field: "EtcdPassword", want: "pw"},
		{name: "etcd password file", env: "FLOE_ETCD_PASSWORD_FILE", value: pwFile, with: etcdWith("FLOE_ETCD_USER", "floe"), field: "EtcdPassword", want: "pw"},
		{name: "etcd password file empty", env: "FLOE_ETCD_PASSWORD_FILE", value: "", with: etcd, wantErr: "want a file name"},
		{name: "redis tls", env: "FLOE_REDIS_TLS", value: "true", with: redis, field: "RedisTLS", want: true},
		{name: "redis tls maybe", env: "FLOE_REDIS_TLS", value: "maybe", with: redis, wantErr: "want true or false"},
		{name: "redis ca", env: "FLOE_REDIS_CA", value: ca.CertFile, with: redis, field: "RedisCA", want: ca.CertFile},
		{name: "redis ca empty", env: "FLOE_REDIS_CA", value: "", with: redis, wantErr: "want a file name"},
		{name: "redis cert", env: "FLOE_REDIS_CERT", value: pair.CertFile, with: redisWith("FLOE_REDIS_KEY", pair.KeyFile), field: "RedisCert", want: pair.CertFile},
		{name: "redis cert empty", env: "FLOE_REDIS_CERT", value: "", with: redis, wantErr: "want a file name"},
		{name: "redis key", env: "FLOE_REDIS_KEY", value: pair.KeyFile, with: redisWith("FLOE_REDIS_CERT", pair.CertFile), field: "RedisKey", want: pair.KeyFile},
		{name: "redis key empty", env: "FLOE_REDIS_KEY", value: "", with: redis, wantErr: "want a file name"},
		{name: "redis user", env: "FLOE_REDIS_USER", value: "floe", with: redisWith("FLOE_REDIS_PASSWORD", "pw"), field: "RedisUser", want: "floe"},
		{name: "redis user empty", env: "FLOE_REDIS_USER", value: "", with: redis, wantErr: "want a user name"},
		{name: "redis password", env: "FLOE_REDIS_PASSWORD", value: "pw", with: redis, field: "RedisPassword", want: "pw"},
		{name: "redis password file", env: "FLOE_REDIS_PASSWORD_FILE", value: pwFile, with: redis, field: "RedisPassword", want: "pw"},
		{name: "redis password file empty", env: "FLOE_REDIS_PASSWORD_FILE", value: "", with: redis, wantErr: "want a file name"},
		{name: "kube", env: "FLOE_KUBE", value: "true", field: "Kube", want: true},
		{name: "kube false", env: "FLOE_KUBE", value: "false", field: "Kube", want: false},
		{name: "kube maybe", env: "FLOE_KUBE", value: "maybe", wantErr: "want true or false"},
		{name: "kubeconfig", env: "FLOE_KUBECONFIG", value: "/etc/kube.conf", with: kube, field: "Kubeconfig", want: "/etc/kube.conf"},
		{name: "kubeconfig empty", env: "FLOE_KUBECONFIG", value: "", with: kube, wantErr: "want a file name"},
		{name: "kube namespace", env: "FLOE_KUBE_NAMESPACE", value: "ids", with: kube, field: "KubeNamespace", want: "ids"},
		{name: "kube namespace empty", env: "FLOE_KUBE_NAMESPACE", value: "", with: kube, wantErr: "want a namespace name"},
		{name: "tls cert", env: "FLOE_TLS_CERT", value: pair.CertFile, with: map[string]string{"FLOE_TLS_KEY": pair.KeyFile}, field: "TLSCert", want: pair.CertFile},
		{name: "tls cert empty", env: "FLOE_TLS_CERT", value: "", wantErr: "want a file name"},
		{name: "tls key", env: "FLOE_TLS_KEY", value: pair.KeyFile, with: map[string]string{"FLOE_TLS_CERT": pair.CertFile}, field: "TLSKey", want: pair.KeyFile},
		{name: "tls key empty", env: "FLOE_TLS_KEY", value: "", wantErr: "want a file name"},
		{name: "tls client ca", env: "FLOE_TLS_CLIENT_CA", value: ca.CertFile, with: map[string]string{"FLOE_TLS_CERT": pair.CertFile, "FLOE_TLS_KEY": pair.KeyFile}, field: "TLSClientCA", want: ca.CertFile},
		{name: "tls client ca empty", env: "FLOE_TLS_CLIENT_CA", value: "", wantErr: "want a file name"},
		{name: "tls reload interval", env: "FLOE_TLS_RELOAD_INTERVAL", value: "1s", field: "TLSReload", want: time.Second},
		{name: "tls reload interval zero", env: "FLOE_TLS_RELOAD_INTERVAL", value: "0s", wantErr: "want a duration above zero"},
	}
	flags := make(map[string]string) // variable -> flag
	for _, v := range envVars {
		flags[v.name] = v.flag
	}
	fs := new(Config).flagSet(envLookup(nil), io.Discard)
	good, bad := make(map[string]bool), make(map[string]bool)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.wantErr != "" {
				bad[tt.env] = true
			} else {
				good[tt.env] = true
			}
			env := map[string]string{tt.env: tt.value}
			for k, v := range tt.with {
				env[k] = v
			}
			var c Config
			err := c.ParseFlags(nil, envLookup(env), io.Discard)
			if tt.wantErr != "" {
				secret := tt.env == "FLOE_TOKENS" || tt.env == "FLOE_TOKEN" || tt.env == "NOEQ_TOKEN"
				switch {
				case err == nil:
					t.Fatalf("$%s=%q: no error, want one with %q", tt.env, tt.value, tt.wantErr)
				case !strings.Contains(err.Error(), "$"+tt.env) || !strings.Contains(err.Error(), tt.wantErr):
					t.Errorf("$%s=%q: error %q, want one with $%s and %q", tt.env, tt.value, err, tt.env, tt.wantErr)
				case !secret && !strings.Contains(err.Error(), strconv.Quote(tt.value)):
					t.Errorf("$%s=%q: error %q does not quote the value", tt.env, tt.value, err)
				case secret && tt.value != "" && strings.Contains(err.Error(), tt.value):
					t.Errorf("$%s=%q: error %q repeats a token", tt.env, tt.value, err)
				}
			} else if err != nil {
				t.Fatalf("$%s=%q: %v", tt.env, tt.value, err)
			} else if got := setting(&c, tt.field); !sameSetting(got, tt.want) {
				t.Errorf("$%s=%q gave %#v, want %#v", tt.env, tt.value, got, tt.want)
			}

			// The same value as the flag.
			name, ok := flags[tt.env]
			if !ok {
				return
			}
			args := []string{"--" + name + "=" + tt.value}
			if _, list := fs.Lookup(name).Value.(*listFlag); list {
				args = nil
				for item := range strings.SplitSeq(tt.value, ",") {
					args = append(args, "--"+name+"="+item)
				}
			}
			delete(env, tt.env)
			var fc Config
			err = fc.ParseFlags(args, envLookup(env), io.Discard)
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), "-"+name) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("ParseFlags(%q) = %v, want an error with -%s and %q", args, err, name, tt.wantErr)
				}
			case err != nil:
				t.Errorf("ParseFlags(%q): %v", args, err)
			default:
				if got := setting(&fc, tt.field); !sameSetting(got, tt.want) {
					t.Errorf("ParseFlags(%q) gave %#v, want %#v", args, got, tt.want)
				}
			}
		})
	}

	all := []string{"FLOE_TOKEN", "NOEQ_TOKEN"}
	for _, v := range envVars {
		all = append(all, v.name)
	}
	for _, name := range all {
		if !good[name] {
			t.Errorf("no good value of $%s is tested", name)
		}
		if !bad[name] && !slices.Contains(anyValue, name) {
			t.Errorf("no bad value of $%s is tested", name)
		}
	}
}

func TestConfig_ParseFlagsPrecedence(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		field   string // the Config field it sets
		want    any
		wantErr string
	}{
		{name: "unset variables leave the default", field: "Worker", want: uint64(0)},
		{name: "a flag wins over its variable", args: []string{"-w", "5"}, env: map[string]string{"FLOE_WORKER": "3"}, field: "Worker", want: uint64(5)},
		{name: "the long flag wins too", args: []string{"--worker=5"}, env: map[string]string{"FLOE_WORKER": "3"}, field: "Worker", want: uint64(5)},
		{
			name: "a malformed variable is an error even with its flag",
			args: []string{"-w", "5"}, env: map[string]string{"FLOE_WORKER": "abc"},
			wantErr: `$FLOE_WORKER="abc" (--worker): want an unsigned decimal integer`,
		},
		{
			name: "a flag replaces the variable's list",
			args: []string{"--seq", "c=id96", "--seq", "d=id80"}, env: map[string]string{"FLOE_SEQUENCES": "a=id64,b=id80"},
			field: "Sequences", want: []string{"c=id96", "d=id80"},
		},
		{name: "repeated flags add up", args: []string{"--seq", "a=id80", "--seq", "b=id96", "--token", "a=1", "--token", "b=2"}, field: "Tokens", want: []string{"a=1", "b=2"}},
		{name: "floe token wins over noeq token", env: map[string]string{"FLOE_TOKEN": "f", "NOEQ_TOKEN": "n"}, field: "Token", want: "f"},
		{name: "an empty noeq token beside floe token", env: map[string]string{"FLOE_TOKEN": "f", "NOEQ_TOKEN": ""}, field: "Token", want: "f"},
		{name: "noeq token alone", env: map[string]string{"NOEQ_TOKEN": "n"}, field: "Token", want: "n"},
		{name: "an empty noeq token alone is no token", env: map[string]string{"NOEQ_TOKEN": ""}, field: "Token", want: ""},
		{name: "an empty floe token does not hide noeq token", env: map[string]string{"FLOE_TOKEN": "", "NOEQ_TOKEN": "n"}, field: "Token", want: "n"},
		{name: "an empty floe token beside an empty noeq token", env: map[string]string{"FLOE_TOKEN": "", "NOEQ_TOKEN": ""}, wantErr: "$FLOE_TOKEN: want a token of 1 to 255 bytes, not 0: unset it"},
		{name: "a malformed noeq token is an error beside floe token", env: map[string]string{"FLOE_TOKEN": "f", "NOEQ_TOKEN": strings.Repeat("x", 256)}, wantErr: "$NOEQ_TOKEN"},
		{name: "a token variable is not repeated in its error", env: map[string]string{"FLOE_TOKENS": "a=s3cret,b"}, wantErr: "$FLOE_TOKENS (--token): item 2: want seq=token"},
		{name: "a variable takes the flag's list syntax", env: map[string]string{"FLOE_ETCD": "e1:2379,e2:2379"}, args: []string{"--cluster", "x"}, field: "Etcd", want: []string{"e1:2379", "e2:2379"}},
		{name: "policy defaults to wait", field: "Policy", want: floe.Wait},
		{name: "log level defaults to info", field: "LogLevel", want: slog.LevelInfo},
		{name: "state from systemd", env: map[string]string{"STATE_DIRECTORY": "/var/lib/floed:/other"}, field: "StateDir", want: "/var/lib/floed"},
		{name: "state from xdg", env: map[string]string{"XDG_STATE_HOME": "/home/u/.state"}, field: "StateDir", want: "/home/u/.state/floed"},
		{name: "state flag wins over systemd", args: []string{"--state", "/s"}, env: map[string]string{"STATE_DIRECTORY": "/var/lib/floed"}, field: "StateDir", want: "/s"},
		{name: "an unexpected argument", args: []string{"-w", "1", "2"}, wantErr: "unexpected arguments"},
		{name: "a malformed flag", args: []string{"--max-wait", "-1s"}, wantErr: `invalid value "-1s" for flag -max-wait: want a duration above zero`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			err := c.ParseFlags(tt.args, envLookup(tt.env), io.Discard)
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseFlags(%q) with %v = %v, want an error with %q", tt.args, tt.env, err, tt.wantErr)
				}
			case err != nil:
				t.Fatalf("ParseFlags(%q) with %v: %v", tt.args, tt.env, err)
			default:
				if got := setting(&c, tt.field); !sameSetting(got, tt.want) {
					t.Errorf("ParseFlags(%q) with %v gave %#v, want %#v", tt.args, tt.env, got, tt.want)
				}
			}
		})
	}
}

// TestConfig_EnvVars checks the table of variables against the flags:
// each entry names a flag, and every flag but --version and the one-letter
// aliases has a variable, which its usage names.
func TestConfig_EnvVars(t *testing.T) {
	fs := new(Config).flagSet(envLookup(nil), io.Discard)
	byFlag := make(map[string]string)
	seen := make(map[string]bool)
	for _, v := range envVars {
		f := fs.Lookup(v.flag)
		switch {
		case f == nil:
			t.Errorf("$%s: no flag --%s", v.name, v.flag)
			continue
		case byFlag[v.flag] != "":
			t.Errorf("--%s has two variables, $%s and $%s", v.flag, byFlag[v.flag], v.name)
		case seen[v.name]:
			t.Errorf("$%s names two flags", v.name)
		case !strings.HasPrefix(v.name, "FLOE_"):
			t.Errorf("$%s: want a FLOE_ prefix", v.name)
		case !strings.Contains(f.Usage, "($"+v.name):
			t.Errorf("--%s usage %q does not name $%s", v.flag, f.Usage, v.name)
		}
		byFlag[v.flag], seen[v.name] = v.name, true
	}
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "version" || strings.HasPrefix(f.Usage, "same as --") {
			return
		}
		if byFlag[f.Name] == "" {
			t.Errorf("--%s has no variable in envVars", f.Name)
		}
	})
}

// TestConfig_SequenceNodes: the fixed node of each format's --seq comes
// from --datacenter and --worker.
func TestConfig_SequenceNodes(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    server.SequenceConfig
		wantErr string
	}{
		{"id80", []string{"-d", "1", "-w", "2", "--seq", "s=id80"}, server.SequenceConfig{Name: "s", Format: server.Format80, Node: 258}, ""},
		{"id96", []string{"-d", "1", "-w", "2", "--seq", "s=id96"}, server.SequenceConfig{Name: "s", Format: server.Format96, Node: 65539}, ""},
		{"id128", []string{"-d", "1", "-w", "2", "--seq", "s=id128"}, server.SequenceConfig{Name: "s", Format: server.Format128, Node: 258}, ""},
		{"id128 worker 0", []string{"--seq", "s=id128"}, server.SequenceConfig{Name: "s", Format: server.Format128}, ""},
		{"id128 worker above 255", []string{"-w", "300", "--seq", "s=id128"}, server.SequenceConfig{}, "id128 workers are datacenter<<8|worker, each 0..255"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			err := c.ParseFlags(tt.args, envLookup(nil), io.Discard)
			var seqs []server.SequenceConfig
			if err == nil {
				seqs, err = c.sequences()
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("sequences() = %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(seqs) != 2 {
				t.Fatalf("%d sequences, want 2", len(seqs))
			}
			if got := seqs[1]; got.Name != tt.want.Name || got.Format != tt.want.Format || got.Node != tt.want.Node {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestConfig_SequenceLayouts(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want map[string]id64.Layout
	}{
		{"presets", []string{"--layout", "redisgen", "--seq", "a=id64:icicle2", "--seq", "b=id64"},
			map[string]id64.Layout{"default": id64.Redisgen, "a": id64.Icicle2, "b": id64.Twitter}},
		{"written out", []string{"--layout", "41t/10w/12s 1ms since 1455788600316", "--seq", "a=id64:42t/5d/5w/12s 1ms since 2015-01-01 unsigned"},
			map[string]id64.Layout{"default": id64.Icicle2, "a": id64.Discord}},
		{"as String writes them", []string{"--layout", id64.Instagram.String(), "--seq", "a=id64:" + id64.Icicle.String()},
			map[string]id64.Layout{"default": id64.Instagram, "a": id64.Icicle}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			if err := c.ParseFlags(tt.args, envLookup(nil), io.Discard); err != nil {
				t.Fatal(err)
			}
			seqs, err := c.sequences()
			if err != nil {
				t.Fatal(err)
			}
			if len(seqs) != len(tt.want) {
				t.Fatalf("%d sequences, want %d", len(seqs), len(tt.want))
			}
			for _, sc := range seqs {
				if want, ok := tt.want[sc.Name]; !ok || sc.Layout != want {
					t.Errorf("sequence %s: layout %v, want %v", sc.Name, sc.Layout, want)
				}
			}
		})
	}
}

func TestConfig_ParseFlagsOutput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string // in the output; none: no output
	}{
		{"help", []string{"-h"}, []string{"usage: floed [flags]", "--worker", "FLOE_TOKEN", "NOEQ_TOKEN"}},
		{"malformed flag", []string{"--worker", "abc"}, nil},
		{"unknown flag", []string{"--bogus"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			var c Config
			err := c.ParseFlags(tc.args, envLookup(nil), &out)
			if err == nil {
				t.Fatalf("ParseFlags(%q) = nil, want an error", tc.args)
			}
			if tc.want == nil && out.Len() > 0 {
				t.Errorf("ParseFlags(%q) printed %q; want nothing, the caller prints the error", tc.args, out.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

// TestConfig_Tokens: --token may name a sequence outside --seq in a
// cluster, whose catalog may define it (the admin API attaches it at
// runtime); on a single node that is an error naming the sequence.
func TestConfig_Tokens(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		wantSeqs    map[string][]string // the tokens of each sequence served from the flags
		wantCatalog map[string][]string
		wantErr     string
	}{
		{name: "single node, a served sequence", args: []string{"--seq", "a=id80", "--token", "a=x"},
			wantSeqs: map[string][]string{"default": nil, "a": {"x"}}},
		{name: "single node, no such sequence", args: []string{"--token", "orders=x"},
			wantErr: `--token: unknown sequence "orders" (not in --seq; only a cluster node, --etcd, --redis or --kube, may name one its catalog defines)`},
		{name: "cluster, a catalog's sequence", args: []string{"--redis", "r:6379", "--seq", "a=id80", "--token", "a=x", "--token", "orders=y", "--token", "orders=z", "--token", "default=w"},
			wantSeqs:    map[string][]string{"default": {"w"}, "a": {"x"}},
			wantCatalog: map[string][]string{"orders": {"y", "z"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The flags' check may run in ParseFlags or in sequences.
			var c Config
			var seqs []server.SequenceConfig
			err := c.ParseFlags(tt.args, envLookup(nil), io.Discard)
			if err == nil {
				seqs, err = c.sequences()
			}
			if tt.wantErr != "" {
				if err == nil || !strings.HasSuffix(err.Error(), tt.wantErr) {
					t.Fatalf("ParseFlags and sequences() = %v, want the error %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := make(map[string][]string)
			for _, sc := range seqs {
				got[sc.Name] = sc.Tokens
			}
			if !reflect.DeepEqual(got, tt.wantSeqs) {
				t.Errorf("sequences' tokens %v, want %v", got, tt.wantSeqs)
			}
			if got := c.catalogTokens(); !reflect.DeepEqual(got, tt.wantCatalog) {
				t.Errorf("catalogTokens() = %v, want %v", got, tt.wantCatalog)
			}
		})
	}
}
