package main

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

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
				return !c.clustered() && c.Cluster == "default" && c.LeaseTTL == 10*time.Second && c.Owner != ""
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
		{name: "bad cluster name", args: []string{"--etcd", "e:2379", "--cluster", "a/b"}, wantErr: "--cluster"},
		{name: "short lease", args: []string{"--etcd", "e:2379", "--lease-ttl", "500ms"}, wantErr: "--lease-ttl"},
		{name: "unsafe without redis", args: []string{"--redis-unsafe"}, wantErr: "without --redis"},
		{name: "unsafe with etcd", args: []string{"--etcd", "e:2379", "--redis-unsafe"}, wantErr: "without --redis"},
		{name: "empty endpoint", args: []string{"--etcd", "e:2379,"}, wantErr: "empty endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			err := c.ParseFlags(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
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
