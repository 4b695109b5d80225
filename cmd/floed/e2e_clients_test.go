package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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
			npmCI(t)
			out := runExample(t, "node", append([]string{filepath.Join(examplesDir, "node", "ids.js")}, over.args...))
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

// npmCI installs examples/node's packages with npm ci, from npm's cache
// when it has them, unless node_modules already holds what
// package-lock.json names: a stamp in node_modules records the lock
// file's hash after each install.
func npmCI(t *testing.T) {
	t.Helper()
	for _, prog := range []string{"node", "npm"} {
		if _, err := exec.LookPath(prog); err != nil {
			nodeJS.Missing(t, err, prog+" not found: .ci/run installs it", prog+" not found")
		}
	}
	dir := filepath.Join(examplesDir, "node")
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(lock)
	want := hex.EncodeToString(sum[:])
	stamp := filepath.Join(dir, "node_modules", ".floe-lock-sha256")
	if got, err := os.ReadFile(stamp); err == nil && string(got) == want {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--prefer-offline", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		nodeJS.Missing(t, fmt.Errorf("npm ci in examples/node: %v", err),
			fmt.Sprintf("npm ci in examples/node: %v\n%s", err, out), "npm ci in examples/node failed")
	}
	if err := os.WriteFile(stamp, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
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
