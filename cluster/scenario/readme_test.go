//go:build unix

package scenario_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
)

// TestScenario_READMECluster runs the commands of the README's cluster
// example as written, in order: its export of the admin token (with a
// value of the test's), floed on every node (two here, on a real
// etcd in place of the README's), then each floe command against the first
// node, each of which must succeed. Between them it checks what the
// comments say: the created sequence is served by no node, then by the
// attached one.
func TestScenario_READMECluster(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	lines := readmeBlock(t, filepath.Join(root, "README.md"), "## Clusters: worker IDs from etcd or Redis")
	floe := buildFloe(t, root)
	ec := etcdtest.Start(t, 1)

	var nodes []*floedproc.Proc
	var floeCmds [][]string
	var env []string // the README's exports, with the test's values
	for _, line := range lines {
		for cmd := range strings.SplitSeq(line, ";") {
			args := strings.Fields(cmd)
			switch {
			case len(args) == 0:
			case args[0] == "export" && len(args) > 1 && strings.HasPrefix(args[1], "FLOE_ADMIN_TOKEN="):
				// The README makes a random token; any one will do.
				env = append(env, "FLOE_ADMIN_TOKEN=readme-admin-token")
			case args[0] == "floed":
				if len(floeCmds) > 0 {
					t.Fatalf("README: floed after a floe command: %q", line)
				}
				for _, owner := range []string{"a", "b"} {
					nodes = append(nodes, floedproc.StartEnv(t, bin, owner, env, floedArgs(t, args[1:], ec.Endpoints(), owner)...))
				}
			case args[0] == "floe":
				floeCmds = append(floeCmds, args[1:])
			default:
				t.Fatalf("README: a command neither floed nor floe: %q", cmd)
			}
		}
	}
	if len(nodes) == 0 || len(floeCmds) == 0 {
		t.Fatalf("README: no floed or no floe command in %q", lines)
	}
	for _, p := range nodes {
		mustReady(t, p, 10*time.Second)
	}
	a := nodes[0]
	for _, args := range floeCmds {
		cmd := exec.Command(floe, args...)
		cmd.Env = append(append(os.Environ(), "FLOE_ADMIN_ADDR=http://"+a.HTTP, "FLOE_ADMIN_TOKEN="), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("floe %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("floe %s\n%s", strings.Join(args, " "), out)
		switch strings.Join(args, " ") {
		case "seq create -layout snowcast-1024 orders":
			for _, p := range nodes {
				if s := adminSeq(t, p, "orders"); s.Attached {
					t.Errorf("%s serves orders after seq create, before any attach: %+v", p.Name, s)
				}
			}
		case "node attach orders":
			if !floedproc.WaitFor(10*time.Second, func() bool { return adminSeq(t, a, "orders").Ready }) {
				t.Fatalf("orders not ready on %s 10 s after floe node attach: %+v", a.Name, adminSeq(t, a, "orders"))
			}
			if s := adminSeq(t, nodes[1], "orders"); s.Attached {
				t.Errorf("%s serves orders, attached on %s only: %+v", nodes[1].Name, a.Name, s)
			}
		}
	}
}

// readmeBlock returns the lines of the first sh code block after the
// heading in the README at path, without their # comments.
func readmeBlock(t *testing.T, path, heading string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	found, in := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !found:
			found = line == heading
		case !in:
			in = line == "```sh"
		case line == "```":
			return lines
		default:
			if i := strings.Index(line, "#"); i >= 0 {
				line = line[:i]
			}
			if line = strings.TrimSpace(line); line != "" {
				lines = append(lines, line)
			}
		}
	}
	t.Fatalf("%s: no sh block after %q (found the heading: %v)", path, heading, found)
	return nil
}

// floedArgs returns the README's floed arguments for the node owner: its
// etcd endpoints replaced by the test's, with the node's name and the
// scenarios' short lease and window.
func floedArgs(t *testing.T, args, eps []string, owner string) []string {
	t.Helper()
	out := []string{"--owner", owner, "--lease-ttl", ttl.String(), "--reserve-window", window.String()}
	for i := 0; i < len(args); i++ {
		if args[i] == "--etcd" && i+1 < len(args) {
			out = append(out, "--etcd", strings.Join(eps, ","))
			i++
			continue
		}
		out = append(out, args[i])
	}
	if len(out) == 6 || !strings.Contains(strings.Join(out, " "), "--etcd "+strings.Join(eps, ",")) {
		t.Fatalf("README: floed %q has no --etcd to point at the test's etcd", args)
	}
	return out
}

// buildFloe builds the floe CLI of the module at root into a temporary
// directory and returns its path.
func buildFloe(t *testing.T, root string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "floe")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/floe")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building floe: %v\n%s", err, b)
	}
	return out
}

// TestScenario_READMESequencer compiles and runs the README's sequencer
// program as written, against a real etcd in place of the README's
// endpoint: it must handle every error (no blank identifier where an
// error goes), print an ID, and leave the sequence destroyed with its
// retired tick.
func TestScenario_READMESequencer(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	src := readmeGoBlock(t, filepath.Join(root, "README.md"), "## Sequencers inside your process (`sequencer`)")
	for _, ignored := range []string{", _ :=", ", _ =", "\t_ =", "\t_ :="} {
		if strings.Contains(src, ignored) {
			t.Errorf("README: the sequencer program ignores a value with %q: handle each error", ignored)
		}
	}
	const readmeEndpoint = `"etcd-0:2379"`
	if !strings.Contains(src, readmeEndpoint) || !strings.Contains(src, "package main") {
		t.Fatalf("README: the sequencer program is not a main package dialling %s:\n%s", readmeEndpoint, src)
	}
	ec := etcdtest.Start(t, 1)
	src = strings.ReplaceAll(src, readmeEndpoint, `"`+ec.Endpoints()[0]+`"`)

	// Inside the cluster module, whose go.mod has the program's modules;
	// testdata keeps it out of ./... while the test runs.
	clusterDir := filepath.Join(root, "cluster")
	testdata := filepath.Join(clusterDir, "scenario", "testdata")
	if err := os.MkdirAll(testdata, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(testdata, "readme-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.RemoveAll(dir)
		os.Remove(testdata) // only if empty
	})
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(clusterDir, dir)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "readme")
	build := exec.Command("go", "build", "-o", exe, "./"+filepath.ToSlash(rel))
	build.Dir = clusterDir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("README: the sequencer program does not build: %v\n%s\n%s", err, out, src)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, exe).CombinedOutput()
	if err != nil {
		t.Fatalf("README: the sequencer program failed: %v\n%s", err, out)
	}
	if _, err := strconv.ParseUint(strings.TrimSpace(string(out)), 10, 64); err != nil {
		t.Errorf("README: the sequencer program printed %q, want one ID", out)
	}
	cli := ec.Client(t)
	resp, err := cli.Get(ctx, "/floe/v1/prod/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, kv := range resp.Kvs {
		keys = append(keys, string(kv.Key))
	}
	if want := []string{"/floe/v1/prod/retired/orders"}; !slices.Equal(keys, want) {
		t.Errorf("etcd keys after the program: %q, want %q (the sequence destroyed, its retired tick kept)", keys, want)
	}
}

// readmeGoBlock returns the first go code block after the heading in the
// README at path.
func readmeGoBlock(t *testing.T, path, heading string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s: no heading %q", path, heading)
	}
	_, block, ok := strings.Cut(after, "\n```go\n")
	if !ok {
		t.Fatalf("%s: no go block after %q", path, heading)
	}
	block, _, ok = strings.Cut(block, "\n```\n")
	if !ok {
		t.Fatalf("%s: an unterminated go block after %q", path, heading)
	}
	return block + "\n"
}
