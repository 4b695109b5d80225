//go:build unix

package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/internal/tcptest"
	"github.com/floeid/floe/internal/tlstest"
)

// redisACL is a Redis ACL user limited to floed's keys and commands, as
// the README suggests; its password is "s3cret".
var redisACL = []string{
	"--user", "floe", "on", ">s3cret", "~floe/*", "resetchannels", "&floe/*", "-@all", "+@connection",
	"+info", "+config|get", "+eval", "+evalsha", "+get", "+set", "+del", "+exists", "+incr",
	"+pexpire", "+hget", "+hset", "+hdel", "+hgetall", "+publish", "+subscribe",
}

// secureRedis starts a Redis server that speaks TLS only, wants a client
// certificate signed by ca, has no default user and the user of redisACL,
// and passes floed's safety check.
func secureRedis(t *testing.T, ca *tlstest.CA) *redistest.Server {
	t.Helper()
	server := ca.Issue(t, "redis")
	harness := ca.Issue(t, "harness")
	args := append([]string{"--appendonly", "yes", "--appendfsync", "always", "--user", "default", "off"}, redisACL...)
	return redistest.StartTLS(t, redistest.TLS{
		CertFile: server.CertFile, KeyFile: server.KeyFile, CAFile: ca.CertFile,
		Client: ca.ClientConfig(harness),
	}, args...)
}

// connectLog parses args as floed does and connects to the coordinator
// they name; it returns the log and the connection's error.
func connectLog(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var c Config
	if err := c.ParseFlags(args, func(string) (string, bool) { return "", false }, &strings.Builder{}); err != nil {
		t.Fatalf("ParseFlags(%q): %v", args, err)
	}
	var log strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	co, err := c.connect(ctx, slog.New(slog.NewTextHandler(&log, nil)), floe.MonotonicClock)
	if err == nil {
		co.close()
	}
	return log.String(), err
}

// Against a Redis server with TLS, client certificates and an ACL user,
// floed connects with the right CA, certificate and password, and
// otherwise fails at once with the address and the cause.
func TestConfig_ConnectRedisSecure(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	other := tlstest.NewCA(t, "other")
	srv := secureRedis(t, ca)
	client := ca.Issue(t, "floed")
	stranger := other.Issue(t, "floed")
	pwFile := writeFile(t, t.TempDir(), "pw", "s3cret\n")
	plain := redistest.Start(t)
	free := floetest.FreeAddrs(t, 1)[0]

	tlsArgs := func(caFile string, pair tlstest.Pair) []string {
		return []string{"--redis", srv.Addr, "--redis-ca", caFile, "--redis-cert", pair.CertFile, "--redis-key", pair.KeyFile}
	}
	tests := []struct {
		name    string
		args    []string
		wantErr []string // nil: connects; else each is in the error
	}{
		{
			name: "right ca certificate and password",
			args: append(tlsArgs(ca.CertFile, client), "--redis-user", "floe", "--redis-password-file", pwFile),
		},
		{
			name:    "unknown ca",
			args:    append(tlsArgs(other.CertFile, client), "--redis-user", "floe", "--redis-password-file", pwFile),
			wantErr: []string{"redis " + srv.Addr, "TLS handshake", "not trusted", "unknown authority", "--redis-ca"},
		},
		{
			name:    "client certificate of another ca",
			args:    append(tlsArgs(ca.CertFile, stranger), "--redis-user", "floe", "--redis-password-file", pwFile),
			wantErr: []string{"redis " + srv.Addr, "refused", "remote error", "--redis-cert"},
		},
		{
			name:    "no client certificate",
			args:    []string{"--redis", srv.Addr, "--redis-ca", ca.CertFile, "--redis-user", "floe", "--redis-password", "s3cret"},
			wantErr: []string{"redis " + srv.Addr, "refused", "remote error", "--redis-cert"},
		},
		{
			name:    "wrong password",
			args:    append(tlsArgs(ca.CertFile, client), "--redis-user", "floe", "--redis-password", "wrong"),
			wantErr: []string{"redis " + srv.Addr, `authentication as user "floe" failed`, "WRONGPASS"},
		},
		{
			name:    "no password",
			args:    tlsArgs(ca.CertFile, client),
			wantErr: []string{"redis " + srv.Addr, "wants a password", "NOAUTH"},
		},
		{
			name:    "tls off against the tls port",
			args:    []string{"--redis", srv.Addr, "--redis-user", "floe", "--redis-password", "s3cret"},
			wantErr: []string{"redis " + srv.Addr, "closed the connection", "TLS port", "--redis-tls"},
		},
		{
			name:    "tls on against a plain port",
			args:    []string{"--redis", plain.Addr, "--redis-ca", ca.CertFile},
			wantErr: []string{"redis " + plain.Addr, "TLS handshake", "plain, non-TLS port", "drop --redis-tls, --redis-ca"},
		},
		{
			name:    "nothing listening",
			args:    []string{"--redis", free, "--redis-tls"},
			wantErr: []string{"redis " + free, "cannot connect", "connection refused"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, err := connectLog(t, tt.args...)
			if !strings.Contains(log, `level=INFO msg="connecting to the coordinator" coordinator=redis endpoints=`) {
				t.Errorf("no log of the connection attempt:\n%s", log)
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("connect = nil, want an error with %q", tt.wantErr)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("connect = %v\nwant an error with %q", err, want)
				}
			}
		})
	}
}

// floed started on an address where nothing listens logs the attempt and
// stops with the address and the cause, not a deadline.
func TestE2E_ConnectNothingListening(t *testing.T) {
	free := floetest.FreeAddrs(t, 1)[0]
	tests := []struct {
		name    string
		args    []string
		wantLog string
		wantErr string
	}{
		{
			name:    "etcd",
			args:    []string{"--etcd", free},
			wantLog: `msg="connecting to the coordinator" coordinator=etcd endpoints=[` + free + `] tls=false`,
			wantErr: `msg="floed stopped" err="etcd ` + free + `: cannot connect: connection refused"`,
		},
		{
			name:    "two etcd endpoints",
			args:    []string{"--etcd", free + "," + free},
			wantLog: `coordinator=etcd endpoints="[` + free + " " + free + `]"`,
			wantErr: "etcd " + free + ": cannot connect: connection refused",
		},
		{
			name:    "etcd over tls as a user",
			args:    []string{"--etcd", "https://" + free, "--etcd-user", "floe", "--etcd-password", "pw"},
			wantLog: `tls=true user=floe`,
			wantErr: `msg="floed stopped" err="etcd ` + free + `: cannot connect: connection refused"`,
		},
		{
			name:    "redis",
			args:    []string{"--redis", free},
			wantLog: `msg="connecting to the coordinator" coordinator=redis endpoints=` + free + ` tls=false`,
			wantErr: `msg="floed stopped" err="redis ` + free + `: cannot connect: connection refused"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stderr, code := runFloed(t, tt.args...)
			if code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			if !strings.Contains(stderr, tt.wantLog) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantLog, stderr)
			}
			if !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantErr, stderr)
			}
		})
	}
}

// runFloed runs floed with args, expecting it to stop by itself, and
// returns its stderr and exit code.
func runFloed(t *testing.T, args ...string) (string, int) {
	t.Helper()
	stderr, err := runToExit(t, nil, append([]string{"--state", t.TempDir()}, args...), stopDeadline)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stderr, 0
	case errors.As(err, &exit):
		return stderr, exit.ExitCode()
	}
	t.Fatalf("floed %q: %v", args, err)
	return stderr, -1
}

// A floed on Redis with TLS, a client certificate and an ACL user serves
// IDs.
func TestE2E_RedisTLS(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	srv := secureRedis(t, ca)
	client := ca.Issue(t, "floed")
	pwFile := writeFile(t, t.TempDir(), "pw", "s3cret\n")
	f := startFloedEnv(t, []string{
		"FLOE_REDIS=" + srv.Addr, "FLOE_REDIS_CA=" + ca.CertFile, "FLOE_REDIS_CERT=" + client.CertFile,
		"FLOE_REDIS_KEY=" + client.KeyFile, "FLOE_REDIS_USER=floe", "FLOE_REDIS_PASSWORD_FILE=" + pwFile,
	})
	if !waitFor(20*time.Second, func() bool { code, _, err := f.get("/readyz"); return err == nil && code == http.StatusOK }) {
		t.Fatalf("floed not ready on the TLS Redis:\n%s", f.stderr.String())
	}
	code, body := f.mustGet("/v1/ids?n=3")
	if code != http.StatusOK || len(strings.Fields(body)) == 0 {
		t.Fatalf("GET /v1/ids?n=3 = %d %q", code, body)
	}
	if log := f.stderr.String(); !strings.Contains(log, "tls=true user=floe") {
		t.Errorf("no log of the connection with tls=true user=floe:\n%s", log)
	}
}

// floed started on a coordinator address that takes the connection and
// never answers, or answers in another protocol, stops within the probe's
// bound with the address and the cause, not at its setup's deadline.
func TestE2E_ConnectNoAnswer(t *testing.T) {
	silent := tcptest.Silent(t)
	other := redistest.Start(t)
	tests := []struct {
		name    string
		args    []string
		wantErr []string
	}{
		{
			name:    "silent etcd",
			args:    []string{"--etcd", silent},
			wantErr: []string{`msg="floed stopped" err="etcd ` + silent + `: no reply within 5s: the server took the connection and did not answer`},
		},
		{
			name:    "silent redis",
			args:    []string{"--redis", silent},
			wantErr: []string{`msg="floed stopped" err="redis ` + silent + `: no reply within 5s: the server took the connection and did not answer`},
		},
		{
			name:    "etcd at a redis port",
			args:    []string{"--etcd", other.Addr},
			wantErr: []string{`msg="floed stopped" err="etcd ` + other.Addr + `: the server answered`, "which is not etcd"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			stderr, code := runFloed(t, tt.args...)
			if code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if took := time.Since(start); took > clusterSetupTimeout-5*time.Second {
				t.Errorf("floed took %v to stop, want well within its setup's %v", took, clusterSetupTimeout)
			}
		})
	}
}
