//go:build unix

package scenario_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/tlstest"
)

// secureEtcd starts a one-member etcd with TLS and client certificates
// signed by ca, and authentication on: root, and the user floe (password
// "s3cret") with readwrite on the prefix /floe/ only.
func secureEtcd(t *testing.T, ca *tlstest.CA) *etcdtest.Cluster {
	t.Helper()
	server := ca.Issue(t, "etcd")
	root := ca.Issue(t, "root")
	c := etcdtest.StartSecure(t, 1, etcdtest.Security{
		CertFile: server.CertFile, KeyFile: server.KeyFile, CAFile: ca.CertFile,
		Client: ca.ClientConfig(root), RootPassword: "rootpw",
	})
	cli := c.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	steps := []struct {
		what string
		do   func() error
	}{
		{"add role floe", func() error { _, err := cli.RoleAdd(ctx, "floe"); return err }},
		{"grant /floe/", func() error {
			_, err := cli.RoleGrantPermission(ctx, "floe", "/floe/", clientv3.GetPrefixRangeEnd("/floe/"), clientv3.PermissionType(clientv3.PermReadWrite))
			return err
		}},
		{"add user floe", func() error { _, err := cli.UserAdd(ctx, "floe", "s3cret"); return err }},
		{"grant role floe", func() error { _, err := cli.UserGrantRole(ctx, "floe", "floe"); return err }},
		{"add user nobody", func() error { _, err := cli.UserAdd(ctx, "nobody", "s3cret"); return err }},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("etcd: %s: %v", s.what, err)
		}
	}
	return c
}

// floed reaches an etcd that wants TLS client certificates and a user
// with the right CA, certificate and password, and serves; otherwise it
// stops with the address and the cause.
func TestScenario_EtcdTLS(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	other := tlstest.NewCA(t, "other")
	etcd := secureEtcd(t, ca)
	ep := etcd.Endpoints()[0]
	client := ca.Issue(t, "floed")
	stranger := other.Issue(t, "floed")
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	free := floetest.FreeAddrs(t, 1)[0] // nothing listens there

	node := func(ep, caFile string, pair tlstest.Pair, extra ...string) []string {
		args := etcdNode([]string{ep}, "tls", "a")
		if caFile != "" {
			args = append(args, "--etcd-ca", caFile)
		}
		if pair.CertFile != "" {
			args = append(args, "--etcd-cert", pair.CertFile, "--etcd-key", pair.KeyFile)
		}
		return append(args, extra...)
	}
	asFloe := []string{"--etcd-user", "floe", "--etcd-password-file", pwFile}

	t.Run("right ca certificate and password", func(t *testing.T) {
		p := floedproc.Start(t, bin, "a", node(ep, ca.CertFile, client, asFloe...)...)
		mustReady(t, p, 10*time.Second)
		c, err := floedproc.Dial(p.Bin, "", 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if ids, err := c.Fetch(3); err != nil || len(ids) != 3 {
			t.Fatalf("Fetch(3) = %v, %v", ids, err)
		}
		if log := p.Stderr(); !strings.Contains(log, `msg="connecting to the coordinator" coordinator=etcd endpoints=[`+ep+`] tls=true user=floe`) {
			t.Errorf("no log of the connection attempt:\n%s", log)
		}
	})

	tests := []struct {
		name string
		args []string
		want []string // each in stderr
	}{
		{
			name: "unknown ca",
			args: node(ep, other.CertFile, client, asFloe...),
			want: []string{"etcd " + ep, "TLS handshake", "not trusted", "unknown authority", "--etcd-ca"},
		},
		{
			name: "client certificate of another ca",
			args: node(ep, ca.CertFile, stranger, asFloe...),
			want: []string{"etcd " + ep, "refused", "remote error: tls:", "--etcd-cert"},
		},
		{
			name: "no client certificate",
			args: node(ep, ca.CertFile, tlstest.Pair{}, asFloe...),
			want: []string{"etcd " + ep, "refused", "remote error", "--etcd-cert"},
		},
		{
			name: "wrong password",
			args: node(ep, ca.CertFile, client, "--etcd-user", "floe", "--etcd-password", "wrong"),
			want: []string{"etcd " + ep, `authentication as user "floe" failed`, "authentication failed, invalid user ID or password"},
		},
		{
			name: "no user",
			args: node(ep, ca.CertFile, client),
			want: []string{"etcd " + ep, "without a user", "permission denied", "authentication on", "--etcd-user"},
		},
		{
			name: "a user without the prefix",
			args: node(ep, ca.CertFile, client, "--etcd-user", "nobody", "--etcd-password", "s3cret"),
			want: []string{"etcd " + ep, `user "nobody" may not read /floe/v1/tls/`, "permission denied"},
		},
		{
			name: "tls off against the tls port",
			args: node(ep, "", tlstest.Pair{}, asFloe...),
			want: []string{"etcd " + ep, "closed the connection", "TLS port", "--etcd-ca"},
		},
		{
			name: "nothing listening",
			args: node(free, ca.CertFile, client, asFloe...),
			want: []string{"etcd " + free, "cannot connect: connection refused"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stderr, err := floedproc.StartErr(t, bin, tt.args...)
			if err == nil {
				t.Fatalf("floed exited 0, want a refusal:\n%s", stderr)
			}
			// floed's log line quotes the error: read it unquoted.
			plain := strings.ReplaceAll(stderr, `\"`, `"`)
			for _, want := range tt.want {
				if !strings.Contains(plain, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		})
	}
}

// A node starts while one etcd member of three is down: the others
// suffice, and the log names the one out of reach.
func TestScenario_EtcdMemberDownAtStart(t *testing.T) {
	ec := etcdtest.Start(t, 3)
	down := ec.Members()[0]
	down.Stop()
	ec.WaitLeader(t)
	p := floedproc.Start(t, bin, "a", etcdNode(ec.Endpoints(), "memberdown", "a")...)
	mustReady(t, p, 10*time.Second)
	if want := "etcd " + down.ClientAddr + ": cannot connect: connection refused"; !strings.Contains(p.Stderr(), want) {
		t.Errorf("the log does not name the member out of reach (%q):\n%s", want, p.Stderr())
	}
}
