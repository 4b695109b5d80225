package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floeid/floe/internal/tlstest"
)

// writeFile writes content to a new file in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestConfig_ParseFlagsCoordSecurity(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	pair := ca.Issue(t, "floed")
	dir := t.TempDir()
	pwFile := writeFile(t, dir, "pw", "s3cret\n")
	crlfFile := writeFile(t, dir, "pw-crlf", "s3cret\r\n")
	emptyFile := writeFile(t, dir, "empty", "\n")
	notPEM, missing := tlstest.BadFiles(t)

	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(c *Config) bool
		wantErr []string // each must be in the error
	}{
		{
			name:  "no tls and no user by default",
			args:  []string{"--etcd", "e:2379"},
			check: func(c *Config) bool { return c.etcdTLS == nil && c.redisTLS == nil && c.EtcdUser == "" },
		},
		{
			name: "etcd tls and password from flags",
			args: []string{"--etcd", "e:2379", "--etcd-ca", ca.CertFile, "--etcd-cert", pair.CertFile, "--etcd-key", pair.KeyFile,
				"--etcd-user", "floe", "--etcd-password", "pw"},
			check: func(c *Config) bool {
				return c.etcdTLS != nil && c.etcdTLS.RootCAs != nil && len(c.etcdTLS.Certificates) == 1 &&
					c.EtcdUser == "floe" && c.EtcdPassword == "pw"
			},
		},
		{
			name: "etcd tls and password file from the environment",
			env: map[string]string{"FLOE_ETCD": "e:2379", "FLOE_ETCD_CA": ca.CertFile, "FLOE_ETCD_CERT": pair.CertFile,
				"FLOE_ETCD_KEY": pair.KeyFile, "FLOE_ETCD_USER": "floe", "FLOE_ETCD_PASSWORD_FILE": pwFile},
			check: func(c *Config) bool {
				return len(c.etcdTLS.Certificates) == 1 && c.EtcdUser == "floe" && c.EtcdPassword == "s3cret"
			},
		},
		{
			name:  "a password file's crlf is dropped",
			args:  []string{"--etcd", "e:2379", "--etcd-user", "floe", "--etcd-password-file", crlfFile},
			check: func(c *Config) bool { return c.EtcdPassword == "s3cret" && c.etcdTLS == nil },
		},
		{
			name:  "etcd ca alone",
			args:  []string{"--etcd", "e:2379", "--etcd-ca", ca.CertFile},
			check: func(c *Config) bool { return c.etcdTLS != nil && len(c.etcdTLS.Certificates) == 0 },
		},
		{
			name:  "redis tls with the system roots",
			args:  []string{"--redis", "r:6379", "--redis-tls"},
			check: func(c *Config) bool { return c.redisTLS != nil && c.redisTLS.RootCAs == nil },
		},
		{
			name:  "redis tls from the environment",
			env:   map[string]string{"FLOE_REDIS": "r:6379", "FLOE_REDIS_TLS": "true"},
			check: func(c *Config) bool { return c.redisTLS != nil },
		},
		{
			name:  "redis ca implies tls",
			args:  []string{"--redis", "r:6379", "--redis-ca", ca.CertFile},
			check: func(c *Config) bool { return c.redisTLS != nil && c.redisTLS.RootCAs != nil },
		},
		{
			name: "redis acl user with a password file",
			args: []string{"--redis", "r:6379", "--redis-cert", pair.CertFile, "--redis-key", pair.KeyFile,
				"--redis-user", "floe", "--redis-password-file", pwFile},
			check: func(c *Config) bool {
				return len(c.redisTLS.Certificates) == 1 && c.RedisUser == "floe" && c.RedisPassword == "s3cret"
			},
		},
		{
			name:  "redis password of the default user",
			env:   map[string]string{"FLOE_REDIS": "r:6379", "FLOE_REDIS_PASSWORD": "pw"},
			check: func(c *Config) bool { return c.RedisUser == "" && c.RedisPassword == "pw" && c.redisTLS == nil },
		},
		{name: "etcd ca without etcd", args: []string{"--etcd-ca", ca.CertFile}, wantErr: []string{"--etcd-ca without --etcd"}},
		{name: "etcd user with redis", args: []string{"--redis", "r:6379", "--etcd-user", "u"}, wantErr: []string{"--etcd-user without --etcd"}},
		{name: "etcd password file from the environment without etcd", env: map[string]string{"FLOE_ETCD_PASSWORD_FILE": pwFile}, wantErr: []string{"--etcd-password-file without --etcd"}},
		{name: "redis tls without redis", args: []string{"--redis-tls"}, wantErr: []string{"--redis-tls without --redis"}},
		{name: "redis key with etcd", args: []string{"--etcd", "e:2379", "--redis-key", pair.KeyFile}, wantErr: []string{"--redis-key without --redis"}},
		{name: "etcd cert without key", args: []string{"--etcd", "e:2379", "--etcd-cert", pair.CertFile}, wantErr: []string{"--etcd-cert without --etcd-key"}},
		{name: "etcd key without cert", args: []string{"--etcd", "e:2379", "--etcd-key", pair.KeyFile}, wantErr: []string{"--etcd-key without --etcd-cert"}},
		{name: "redis cert without key", args: []string{"--redis", "r:6379", "--redis-cert", pair.CertFile}, wantErr: []string{"--redis-cert without --redis-key"}},
		{name: "redis key without cert", args: []string{"--redis", "r:6379", "--redis-key", pair.KeyFile}, wantErr: []string{"--redis-key without --redis-cert"}},
		{name: "unreadable etcd ca", args: []string{"--etcd", "e:2379", "--etcd-ca", missing}, wantErr: []string{"--etcd-ca", missing, "no such file"}},
		{name: "etcd ca without pem", args: []string{"--etcd", "e:2379", "--etcd-ca", notPEM}, wantErr: []string{"--etcd-ca", notPEM, "no PEM certificate"}},
		{name: "unreadable redis ca", args: []string{"--redis", "r:6379", "--redis-ca", missing}, wantErr: []string{"--redis-ca", "no such file"}},
		{name: "unreadable etcd cert", args: []string{"--etcd", "e:2379", "--etcd-cert", missing, "--etcd-key", pair.KeyFile}, wantErr: []string{"--etcd-cert", missing}},
		{name: "unreadable redis key", args: []string{"--redis", "r:6379", "--redis-cert", pair.CertFile, "--redis-key", missing}, wantErr: []string{"--redis-key", missing}},
		{name: "a key that is not the cert's", args: []string{"--etcd", "e:2379", "--etcd-cert", pair.CertFile, "--etcd-key", ca.Issue(t, "other").KeyFile}, wantErr: []string{"--etcd-cert", "--etcd-key", "does not match"}},
		{name: "unreadable etcd password file", args: []string{"--etcd", "e:2379", "--etcd-user", "u", "--etcd-password-file", missing}, wantErr: []string{"--etcd-password-file", missing}},
		{name: "unreadable redis password file", env: map[string]string{"FLOE_REDIS": "r:6379", "FLOE_REDIS_PASSWORD_FILE": missing}, wantErr: []string{"--redis-password-file", missing}},
		{name: "empty password file", args: []string{"--redis", "r:6379", "--redis-password-file", emptyFile}, wantErr: []string{"--redis-password-file", "empty"}},
		{name: "etcd password both ways", args: []string{"--etcd", "e:2379", "--etcd-user", "u", "--etcd-password", "pw", "--etcd-password-file", pwFile}, wantErr: []string{"--etcd-password and --etcd-password-file"}},
		{name: "redis password both ways", args: []string{"--redis", "r:6379", "--redis-password-file", pwFile}, env: map[string]string{"FLOE_REDIS_PASSWORD": "pw"}, wantErr: []string{"--redis-password and --redis-password-file"}},
		{name: "etcd user without password", args: []string{"--etcd", "e:2379", "--etcd-user", "u"}, wantErr: []string{"--etcd-user", "without --etcd-password"}},
		{name: "etcd password without user", args: []string{"--etcd", "e:2379", "--etcd-password", "pw"}, wantErr: []string{"without --etcd-user"}},
		{name: "redis user without password", args: []string{"--redis", "r:6379", "--redis-user", "u"}, wantErr: []string{"--redis-user", "without --redis-password"}},
		{name: "etcd tls with an http endpoint", args: []string{"--etcd", "https://e1:2379,http://e2:2379", "--etcd-ca", ca.CertFile}, wantErr: []string{"http://e2:2379", "https://"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			err := c.ParseFlags(tt.args, func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }, &strings.Builder{})
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("ParseFlags(%q, %v) = nil, want an error with %q", tt.args, tt.env, tt.wantErr)
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("ParseFlags(%q, %v) = %v, want an error with %q", tt.args, tt.env, err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseFlags(%q, %v): %v", tt.args, tt.env, err)
			}
			if !tt.check(&c) {
				t.Fatalf("ParseFlags(%q, %v) gave %+v", tt.args, tt.env, c)
			}
		})
	}
}

// -h describes every flag with its variable and never shows a password
// that the environment set.
func TestConfig_ParseFlagsCoordSecurityUsage(t *testing.T) {
	env := map[string]string{"FLOE_ETCD_PASSWORD": "etcd-secret-pw", "FLOE_REDIS_PASSWORD": "redis-secret-pw"}
	var out strings.Builder
	var c Config
	c.ParseFlags([]string{"-h"}, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, &out)
	got := out.String()
	for _, name := range []string{"etcd-ca", "etcd-cert", "etcd-key", "etcd-user", "etcd-password", "etcd-password-file",
		"redis-tls", "redis-ca", "redis-cert", "redis-key", "redis-user", "redis-password", "redis-password-file"} {
		if !strings.Contains(got, "-"+name+" ") && !strings.Contains(got, "-"+name+"\n") {
			t.Errorf("-h does not list -%s", name)
		}
		if v := "$FLOE_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_")) + ")"; !strings.Contains(got, v) {
			t.Errorf("-h does not name %s", v)
		}
	}
	for _, pw := range env {
		if strings.Contains(got, pw) {
			t.Errorf("-h shows the password %q from the environment", pw)
		}
	}
}
