package floev1_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// protocVersion is the comment naming protoc's version, which differs
// between Debian releases without changing the code.
var protocVersion = regexp.MustCompile(`(?m)^// (- )?protoc +v[0-9.]+$`)

// TestGenerated regenerates the Go code of floe.proto with
// scripts/protogen and compares it with the committed files, so that a
// .proto changed without regenerating, or a generated file edited by
// hand, fails. Without protoc it is skipped, except under CI=true.
func TestGenerated(t *testing.T) {
	if _, err := exec.LookPath("protoc"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("protoc not found (apt-get install protobuf-compiler): the generated code cannot be checked")
		}
		t.Skip("protoc not found (apt-get install protobuf-compiler)")
	}
	out := t.TempDir()
	cmd := exec.Command("../../scripts/protogen", "--out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/protogen: %v\n%s", err, b)
	}
	for _, name := range []string{"floe.pb.go", "floe_grpc.pb.go"} {
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		got = protocVersion.ReplaceAll(got, nil)
		want = protocVersion.ReplaceAll(want, nil)
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what scripts/protogen generates from proto/floe/v1/floe.proto: run go generate ./internal/floev1", name)
		}
	}
}
