package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/skiptest"
	"github.com/floeid/floe/internal/tlstest"
)

// The programs that the examples in examples/ need.
var (
	nodeJS = &skiptest.Program{Helper: "cmd/floed", Need: "Node.js and npm (examples/node)", Install: "nodejs npm"}
	python = &skiptest.Program{Helper: "cmd/floed", Need: "Python with gRPC (examples/python)",
		Install: "python3-grpcio python3-protobuf protobuf-compiler libprotobuf-dev"}
)

// examplesDir is examples/ of the repository, from cmd/floed.
var examplesDir = filepath.Join("..", "..", "examples")

// grpcExampleOut is what examples/node/ids.js and examples/python/ids.py
// print when every check passes, against sequence orders.
const grpcExampleOut = `next: 100 ids of orders, FORMAT_ID64, increasing
stream: 3 messages of 10 ids, increasing
unknown sequence: NOT_FOUND
bad token: UNAUTHENTICATED
ok
`

// TestE2E_Clients runs the clients of examples/, which no Go code here
// wrote, against floed: the Node.js and Python gRPC clients over TLS and
// over mutual TLS with a client certificate, with a token on a named
// sequence, and the Python client of the binary protocol over TLS and
// over plain TCP. Each must exit 0 having fetched IDs that strictly
// increase and seen each refusal's code.
func TestE2E_Clients(t *testing.T) {
	const token = "client-token"
	ca := tlstest.NewCA(t, "ca")
	pair := ca.Issue(t, "floed")
	client := ca.Issue(t, "client")
	addrs := floetest.FreeAddrs(t, 2)
	tlsArgs := []string{"--tls-cert", pair.CertFile, "--tls-key", pair.KeyFile, "--seq", "orders=id64", "--token", "orders=" + token}
	tf := startFloed(t, append(tlsArgs, "--grpc", addrs[0])...)
	startFloed(t, append(tlsArgs, "--grpc", addrs[1], "--tls-client-ca", ca.CertFile)...)
	plain := startFloed(t, "--seq", "orders=id64", "--token", "orders="+token)
	grpcArgs := func(addr string) []string {
		return []string{"--addr", addr, "--ca", ca.CertFile, "--server-name", "localhost", "--token", token, "--seq", "orders"}
	}
	// Over TLS, and over mutual TLS with a client certificate.
	overs := []struct {
		name string
		args []string
	}{
		{"tls", grpcArgs(addrs[0])},
		{"mtls", append(grpcArgs(addrs[1]), "--cert", client.CertFile, "--key", client.KeyFile)},
	}
	for _, over := range overs {
		t.Run("node-"+over.name, func(t *testing.T) {
			out := runExample(t, "node", append([]string{npmCI(t)}, over.args...))
			if out != grpcExampleOut {
				t.Errorf("examples/node/ids.js printed\n%s\nwant\n%s", out, grpcExampleOut)
			}
		})
		t.Run("python-grpc-"+over.name, func(t *testing.T) {
			py := pythonWithGRPC(t)
			out := runExample(t, py, append([]string{filepath.Join(examplesDir, "python", "ids.py")}, over.args...))
			if out != grpcExampleOut {
				t.Errorf("examples/python/ids.py printed\n%s\nwant\n%s", out, grpcExampleOut)
			}
		})
	}
	noeq := regexp.MustCompile(`^noeq: 300 ids over (TLS|TCP), increasing, last (\d+)\nbad token: connection closed\nok\n$`)
	for _, tc := range []struct {
		name, over string
		args       []string
	}{
		{"python-noeq-tls", "TLS", []string{"--addr", tf.Bin, "--ca", ca.CertFile, "--server-name", "localhost", "--token", token}},
		{"python-noeq-tcp", "TCP", []string{"--addr", plain.Bin, "--token", token}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			py, err := exec.LookPath("python3")
			if err != nil {
				python.Missing(t, err, "python3 not found: .ci/run installs it", "python3 not found")
			}
			out := runExample(t, py, append([]string{filepath.Join(examplesDir, "python", "noeq.py")}, tc.args...))
			m := noeq.FindStringSubmatch(out)
			if m == nil || m[1] != tc.over {
				t.Fatalf("examples/python/noeq.py printed\n%s\nwant it to match %s over %s", out, noeq, tc.over)
			}
			if tc.over == "TCP" {
				// The IDs came from floed's sequence orders: HTTP's next
				// one is above the client's last.
				last, _ := strconv.ParseUint(m[2], 10, 64)
				code, body := plain.mustGet("/v1/ids?seq=orders", "Authorization", "Bearer "+token)
				var reply struct{ IDs []string }
				if err := json.Unmarshal([]byte(body), &reply); code != 200 || err != nil || len(reply.IDs) != 1 {
					t.Fatalf("GET /v1/ids: %d %s", code, body)
				}
				if next, _ := strconv.ParseUint(reply.IDs[0], 10, 64); next <= last {
					t.Errorf("HTTP's ID %d after noeq.py's last %d", next, last)
				}
			}
		})
	}
}

// runExample runs name with args and returns its standard output; it
// fails t unless the program exits 0 within a minute.
func runExample(t *testing.T, name string, args []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// nodeExample is a copy of examples/node with its packages installed, made
// once by npmCI; TestMain removes it.
var nodeExample struct {
	once sync.Once
	dir  string // examples/node of the copy: ids.js and node_modules
	err  error
	out  []byte
}

// npmCI returns the ids.js of a copy of examples/node in a temporary
// directory, whose packages npm ci installed from npm's cache when it has
// them: nothing is written into the checkout. The copy keeps the
// repository's layout (examples/node beside proto/), which ids.js reads
// floe.proto by.
func npmCI(t *testing.T) string {
	t.Helper()
	for _, prog := range []string{"node", "npm"} {
		if _, err := exec.LookPath(prog); err != nil {
			nodeJS.Missing(t, err, prog+" not found: .ci/run installs it", prog+" not found")
		}
	}
	nodeExample.once.Do(func() {
		root := filepath.Join(filepath.Dir(floedBin), "node-example")
		dir := filepath.Join(root, "examples", "node")
		copies := map[string]string{
			filepath.Join(examplesDir, "node", "ids.js"):                   filepath.Join(dir, "ids.js"),
			filepath.Join(examplesDir, "node", "package.json"):             filepath.Join(dir, "package.json"),
			filepath.Join(examplesDir, "node", "package-lock.json"):        filepath.Join(dir, "package-lock.json"),
			filepath.Join("..", "..", "proto", "floe", "v1", "floe.proto"): filepath.Join(root, "proto", "floe", "v1", "floe.proto"),
		}
		for from, to := range copies {
			if nodeExample.err = copyFile(from, to); nodeExample.err != nil {
				return
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--prefer-offline", "--no-audit", "--no-fund")
		cmd.Dir = dir
		nodeExample.out, nodeExample.err = cmd.CombinedOutput()
		nodeExample.dir = dir
	})
	if err := nodeExample.err; err != nil {
		nodeJS.Missing(t, fmt.Errorf("npm ci in a copy of examples/node: %v", err),
			fmt.Sprintf("npm ci in a copy of examples/node: %v\n%s", err, nodeExample.out), "npm ci in examples/node failed")
	}
	return filepath.Join(nodeExample.dir, "ids.js")
}

// copyFile copies the file from to the path to, making to's directory.
func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// pythonWithGRPC returns a Python that imports Debian's grpc and protobuf
// packages, with protoc able to compile floe.proto for it: Debian's own
// /usr/bin/python3 first, since a python3 earlier in PATH (pyenv, a
// virtualenv) may not see Debian's packages.
func pythonWithGRPC(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("protoc"); err != nil {
		python.Missing(t, err, "protoc not found: .ci/run installs protobuf-compiler", "protoc not found")
	}
	out, err := exec.Command("protoc", "-I", filepath.Join("..", "..", "proto"), "--python_out", t.TempDir(), "floe/v1/floe.proto").CombinedOutput()
	if err != nil {
		python.Missing(t, fmt.Errorf("protoc: %v: %s", err, out), "protoc cannot compile floe.proto: .ci/run installs libprotobuf-dev", "protoc cannot compile floe.proto")
	}
	var tried []string
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		out, err := exec.Command(py, "-c", "import grpc, google.protobuf").CombinedOutput()
		if err == nil {
			return py
		}
		tried = append(tried, fmt.Sprintf("%s: %v %s", py, err, strings.TrimSpace(string(out))))
	}
	err = errors.New(strings.Join(tried, "; "))
	python.Missing(t, err, "no python3 imports grpc and google.protobuf: .ci/run installs them: "+err.Error(), "no python3 with grpc")
	return ""
}
