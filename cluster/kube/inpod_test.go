//go:build unix

package kube_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/floeid/floe/internal/skiptest"
)

// serviceAccountPath is where Kubernetes mounts a pod's service account:
// its token, the cluster's CA and the pod's namespace, which client-go's
// in-cluster configuration reads.
const serviceAccountPath = "/var/run/secrets/kubernetes.io/serviceaccount"

// podScript runs a command in a mount namespace of its own as a container
// would see its service account: a tmpfs over /var/run/secrets (over
// /var/run when the host has no secrets there), and the directory $1
// bind-mounted read-only at serviceAccountPath, as the kubelet mounts its
// projected volume. The rest of the arguments are the command, which
// replaces the shell: signals reach it as they would reach PID 1 of a
// container. Nothing of this is seen outside the namespace.
const podScript = `set -eu
sa=` + serviceAccountPath + `
dir=$1
shift
base=/var/run/secrets
[ -d "$base" ] || base=/var/run
mount -t tmpfs -o mode=0755,size=1m floe-pod "$base"
mkdir -p "$sa"
mount --bind "$dir" "$sa"
mount -o remount,bind,ro "$sa"
exec "$@"
`

// mountNamespaces is what the pods need of the machine: unshare(1), and
// the right to make mount namespaces and mount in them (root).
var mountNamespaces = &skiptest.Program{Helper: "cluster/kube", Need: "mount namespaces (unshare --mount, as root)", Install: "util-linux, and run the tests as root"}

var (
	unshareOnce sync.Once
	unshareErr  error
)

// needMountNamespace ends t unless podScript can run here: it skips, or
// fails under CI, which runs the tests as root.
func needMountNamespace(t *testing.T) {
	t.Helper()
	unshareOnce.Do(func() {
		dir, err := os.MkdirTemp("", "floe-unshare-")
		if err != nil {
			unshareErr = err
			return
		}
		defer os.RemoveAll(dir)
		out, err := exec.Command("unshare", "--mount", "--propagation", "private", "mount", "-t", "tmpfs", "floe-check", dir).CombinedOutput()
		if err != nil {
			unshareErr = fmt.Errorf("unshare --mount --propagation private mount -t tmpfs: %v: %s", err, strings.TrimSpace(string(out)))
		}
	})
	if unshareErr != nil {
		msg := fmt.Sprintf("the pods run in mount namespaces of their own, with their service account at %s: %v", serviceAccountPath, unshareErr)
		mountNamespaces.Missing(t, unshareErr, msg+" (CI runs the tests as root)", msg+": not permitted here, run as root")
	}
}

// serviceAccount is the content of a pod's service-account volume.
type serviceAccount struct {
	token     string
	ca        []byte // the API server's CA, PEM
	namespace string
}

// write writes sa's files into a new directory of t, as the kubelet
// projects them (mode 0644), and returns the directory.
func (sa serviceAccount) write(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range map[string][]byte{"token": []byte(sa.token), "ca.crt": sa.ca, "namespace": []byte(sa.namespace)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// inPod returns an executable that runs bin, with its arguments, in a
// mount namespace of its own, the directory saDir mounted at
// serviceAccountPath (podScript). Started by floedproc, it is floed's own
// process after two execs: SIGTERM and SIGKILL reach floed.
func inPod(t *testing.T, bin, saDir string) string {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "pod.sh")
	if err := os.WriteFile(script, []byte(podScript), 0o644); err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(dir, "floed-in-pod")
	body := fmt.Sprintf("#!/bin/sh\nexec unshare --mount --propagation private /bin/sh %s %s %s \"$@\"\n",
		shellQuote(script), shellQuote(saDir), shellQuote(bin))
	if err := os.WriteFile(wrapper, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return wrapper
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// The pod's view: the command run by podScript reads the service account
// at serviceAccountPath, read-only; the host's view is unchanged.
func TestInPod(t *testing.T) {
	needMountNamespace(t)
	sa := serviceAccount{token: "tok", ca: []byte("ca"), namespace: "ns-1"}
	wrapper := inPod(t, "/bin/sh", sa.write(t))
	out, err := exec.Command(wrapper, "-c", `cd `+serviceAccountPath+` && for f in token ca.crt namespace; do printf '%s=%s\n' $f "$(cat $f)"; done; touch x 2>/dev/null && echo writable || echo read-only`).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", wrapper, err, out)
	}
	if got, want := string(out), "token=tok\nca.crt=ca\nnamespace=ns-1\nread-only\n"; got != want {
		t.Errorf("in the pod:\n%s\nwant:\n%s", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(serviceAccountPath, "token")); err == nil && string(b) == sa.token {
		t.Errorf("the pod's service account is seen outside its mount namespace, at %s", serviceAccountPath)
	}
}
