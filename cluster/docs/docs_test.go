package docs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/docs"
	"github.com/floeid/floe/cluster/pgtest"
	"github.com/floeid/floe/internal/skiptest"
)

// root is the repository's root, seen from this package.
const root = "../.."

// sessionTimeout bounds one session: its services' starts and its blocks.
const sessionTimeout = 3 * time.Minute

// markdown returns the Markdown files whose blocks are checked: README.md
// and docs/*.md, relative to root.
func markdown(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"README.md"}
	for _, f := range files {
		names = append(names, filepath.Join("docs", filepath.Base(f)))
	}
	return names
}

// allBlocks parses every file of markdown.
func allBlocks(t *testing.T) []docs.Block {
	t.Helper()
	var all []docs.Block
	for _, name := range markdown(t) {
		bs, err := docs.ParseFile(root, name)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, bs...)
	}
	return all
}

// tools are the programs the sessions need, and the Debian package of each.
var tools = []struct{ name, pkg string }{
	{"unshare", "util-linux"},
	{"ip", "iproute2"},
	{"curl", "curl"},
}

var program = &skiptest.Program{Helper: "docs", Need: "network namespaces to run the documents' commands", Install: "util-linux iproute2 curl"}

// TestDocs_Blocks compiles every Go block of README.md and docs/*.md as
// written and runs every shell and Go block not marked skip, each session
// in network and PID namespaces of its own.
func TestDocs_Blocks(t *testing.T) {
	blocks := allBlocks(t)
	for _, b := range blocks {
		if b.Runnable() && b.Skip == "" && b.Lang != "go" && b.Body == "" {
			t.Errorf("%v: an empty block", b)
		}
	}
	progs := buildGo(t, blocks)
	for _, tool := range tools {
		if _, err := exec.LookPath(tool.name); err != nil {
			program.Missing(t, err, fmt.Sprintf("%s not found: .ci/run installs %s", tool.name, tool.pkg), tool.name+" not found")
		}
	}
	if err := exec.Command("unshare", "--net", "--pid", "--fork", "true").Run(); err != nil {
		program.Missing(t, fmt.Errorf("unshare --net --pid: %v (the tests need root)", err), "unshare --net --pid fails: "+err.Error(), "no namespaces")
	}
	bin := buildBinaries(t)
	sessions, err := sessionsOf(blocks)
	if err != nil {
		t.Fatal(err)
	}
	ran, skipped := 0, 0
	for _, b := range blocks {
		switch {
		case !b.Runnable():
		case b.Skip != "":
			skipped++
		default:
			ran++
		}
	}
	t.Logf("%d blocks in %d files: %d run in %d sessions, %d not run (each with its reason), %d Go blocks compiled",
		len(blocks), len(markdown(t)), ran, len(sessions), skipped, len(progs))
	for _, s := range sessions {
		t.Run(fmt.Sprintf("%s:%d", filepath.Base(s[0].File), s[0].Line), func(t *testing.T) {
			t.Parallel()
			runSession(t, bin, progs, s)
		})
	}
}

// sessionsOf groups the blocks that run into sessions: a block marked
// continue joins the session of the runnable block before it.
func sessionsOf(blocks []docs.Block) ([][]docs.Block, error) {
	var sessions [][]docs.Block
	prev := -1 // the index in blocks of the last runnable block
	for i, b := range blocks {
		if !b.Runnable() {
			continue
		}
		if b.Continue {
			if prev < 0 || blocks[prev].File != b.File || blocks[prev].Skip != "" {
				return nil, fmt.Errorf("%v: continue, but the runnable block before it in its file does not run", b)
			}
			if b.Etcd || b.Redis || b.Floed || b.Repo || b.Postgres {
				return nil, fmt.Errorf("%v: continue takes the services and directory of its session; etcd, redis, floed, postgres and repo belong to the session's first block", b)
			}
			if (b.Lang == "sql") != (blocks[prev].Lang == "sql") {
				return nil, fmt.Errorf("%v: continue joins SQL to SQL and commands to commands", b)
			}
		}
		if b.Skip != "" {
			prev = i
			continue
		}
		if b.Lang == "sql" && !b.Postgres && !b.Continue {
			return nil, fmt.Errorf("%v: an SQL block runs on postgres, or is marked skip with the reason", b)
		}
		if b.Continue {
			sessions[len(sessions)-1] = append(sessions[len(sessions)-1], b)
		} else {
			sessions = append(sessions, []docs.Block{b})
		}
		prev = i
	}
	return sessions, nil
}

// buildBinaries builds floed and floe from the checkout, for the
// sessions' PATH, and returns their directory.
func buildBinaries(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.Command("go", "build", "-o", bin+"/", "./cmd/floed", "./cmd/floe")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building floed and floe: %v\n%s", err, out)
	}
	return bin
}

// goEnv returns the go command's settings that the sessions keep though
// their HOME changes: the build and module caches, and no network. GOPATH
// is gopath, a directory of the session's, and GOBIN its bin: a "go
// install" in the documents installs there, never into the user's own
// GOPATH or GOBIN.
func goEnv(t *testing.T, gopath string) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(v) != 2 {
		t.Fatalf("go env: %q", out)
	}
	return []string{"GOCACHE=" + v[0], "GOMODCACHE=" + v[1], "GOPATH=" + gopath, "GOBIN=" + filepath.Join(gopath, "bin"),
		"GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly"}
}

// buildGo compiles and vets every Go block as written, each as a package
// of a module of its own in a temporary directory: a module that requires
// exactly what the cluster module requires, this checkout's floe and
// cluster modules among them, so that a block imports what an application
// beside the cluster module could. Nothing is written into the checkout.
// It returns the program built from each block of package main, by block.
func buildGo(t *testing.T, blocks []docs.Block) map[string]string {
	t.Helper()
	here := t.TempDir()
	if err := blockModule(here); err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]docs.Block{} // by package directory
	var order []string
	for i, b := range blocks {
		if b.Lang != "go" {
			continue
		}
		if !regexp.MustCompile(`(?m)^package \w+`).MatchString(b.Body) {
			t.Errorf("%v: a Go block must be a whole file, starting with its package clause", b)
			continue
		}
		for _, ignored := range []string{", _ :=", ", _ =", "\t_ =", "\t_ :="} {
			if strings.Contains(b.Body, ignored) {
				t.Errorf("%v: a value dropped with %q: a document's program handles every error", b, strings.TrimSpace(ignored))
			}
		}
		pkg := fmt.Sprintf("zzblock%03d", i)
		if err := os.Mkdir(filepath.Join(here, pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(here, pkg, "main.go"), []byte(b.Body), 0o644); err != nil {
			t.Fatal(err)
		}
		pkgs[pkg] = b
		order = append(order, "./"+pkg)
	}
	if len(order) == 0 {
		return nil
	}
	out := t.TempDir()
	for _, args := range [][]string{
		append([]string{"build", "-o", out + "/"}, order...),
		append([]string{"vet"}, order...),
	} {
		cmd := exec.Command("go", args...)
		cmd.Dir = here
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s of the documents' Go blocks: %v\n%s\n(zzblockNNN is the block's package: %s)", args[0], err, b, names(pkgs))
		}
	}
	progs := map[string]string{}
	for pkg, b := range pkgs {
		p := filepath.Join(out, pkg)
		if _, err := os.Stat(p); err == nil {
			progs[b.String()] = p
		}
	}
	return progs
}

// blockModule writes into dir the go.mod and go.sum of a module that
// requires what the cluster module (the current directory's parent)
// requires, and the cluster module itself, each of this checkout's modules
// replaced by its directory.
func blockModule(dir string) error {
	cluster, err := filepath.Abs("..")
	if err != nil {
		return err
	}
	mod, err := os.ReadFile(filepath.Join(cluster, "go.mod"))
	if err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(cluster, "go.sum"))
	if err != nil {
		return err
	}
	text := string(mod)
	first, _, _ := strings.Cut(text, "\n")
	if first != "module github.com/floeid/floe/cluster" {
		return fmt.Errorf("%s/go.mod starts %q, not the cluster module's clause", cluster, first)
	}
	text = strings.Replace(text, first, "module floe.local/doctest", 1)
	const floe = "replace github.com/floeid/floe => ../"
	if !strings.Contains(text, floe) {
		return fmt.Errorf("%s/go.mod has no %q", cluster, floe)
	}
	text = strings.ReplaceAll(text, floe, "replace github.com/floeid/floe => "+filepath.Dir(cluster))
	text += fmt.Sprintf("\nrequire github.com/floeid/floe/cluster v0.0.0-00010101000000-000000000000\n\nreplace github.com/floeid/floe/cluster => %s\n", cluster)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(text), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
}

// names lists the blocks by package, for a compiler's error.
func names(pkgs map[string]docs.Block) string {
	var s []string
	for pkg, b := range pkgs {
		s = append(s, pkg+" is "+b.String())
	}
	slices.Sort(s)
	return strings.Join(s, ", ")
}

// runSession runs the blocks of one session as one bash script, in
// network and PID namespaces of its own, and checks each block's output.
func runSession(t *testing.T, bin string, progs map[string]string, blocks []docs.Block) {
	if blocks[0].Lang == "sql" {
		runSQL(t, blocks)
		return
	}
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	work := filepath.Join(tmp, "work")
	for _, d := range []string{home, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	first := blocks[0]
	dir := work
	if first.Repo {
		abs, err := filepath.Abs(root)
		if err != nil {
			t.Fatal(err)
		}
		dir = abs
	}
	var sh strings.Builder
	fmt.Fprintf(&sh, "set -euo pipefail\nip link set lo up\ncd %q\n", dir)
	fmt.Fprintf(&sh, "waitfor() { for i in $(seq 600); do if eval \"$2\" >/dev/null 2>&1; then return 0; fi; sleep 0.1; done; echo \"doctest: $1 did not come up within 60 s\" >&2; cat %q/$1.log >&2 || true; exit 97; }\n", tmp)
	if first.Etcd {
		if _, err := exec.LookPath("etcd"); err != nil {
			program.Missing(t, err, "etcd not found: .ci/run installs etcd-server", "etcd not found")
		}
		fmt.Fprintf(&sh, "etcd --data-dir %[1]q/etcd-data --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 >%[1]q/etcd.log 2>&1 &\nwaitfor etcd 'curl -sf http://127.0.0.1:2379/health'\n", tmp)
	}
	if first.Redis {
		fmt.Fprintf(&sh, "mkdir %[1]q/redis && redis-server --port 6379 --bind 127.0.0.1 --dir %[1]q/redis --appendonly yes --appendfsync always --save '' >%[1]q/redis.log 2>&1 &\nwaitfor redis 'redis-cli -p 6379 ping'\n", tmp)
	}
	if first.Floed {
		fmt.Fprintf(&sh, "floed >%[1]q/floed.log 2>&1 &\nwaitfor floed 'curl -sf http://localhost:4445/readyz'\n", tmp)
	}
	for i, b := range blocks {
		body := b.Body
		if b.Lang == "go" {
			body = progs[b.String()]
			if body == "" {
				t.Fatalf("%v: not a program (package main) to run; mark it skip with the reason", b)
			}
		}
		fmt.Fprintf(&sh, "echo %d >%q/current\n", i, tmp)
		if b.Serve != "" {
			before, daemon := b.Daemon()
			fmt.Fprintf(&sh, "{\n%s\n:\n} >%[2]q/out.%[3]d 2>%[2]q/err.%[3]d\n", before, tmp, i)
			fmt.Fprintf(&sh, "{\n%s\n} >>%[2]q/out.%[3]d 2>>%[2]q/err.%[3]d &\nwaitfor out.%[3]d %[4]q\n", daemon, tmp, i, "curl -sf "+b.Serve)
			continue
		}
		fmt.Fprintf(&sh, "{\n%s\n} >%[2]q/out.%[3]d 2>%[2]q/err.%[3]d\n", body, tmp, i)
	}
	fmt.Fprintf(&sh, "echo done >%q/current\n", tmp)

	ctx, cancel := context.WithTimeout(context.Background(), sessionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "--net", "--pid", "--fork", "--kill-child", "bash", "-c", sh.String())
	// What the documents "go install" comes first on PATH, as in a user's
	// shell with $(go env GOPATH)/bin on it, then the test's builds.
	gopath := filepath.Join(tmp, "gopath")
	cmd.Env = append(os.Environ(), goEnv(t, gopath)...)
	path := strings.Join([]string{filepath.Join(gopath, "bin"), bin, os.Getenv("PATH")}, string(os.PathListSeparator))
	cmd.Env = append(cmd.Env, "HOME="+home, "PATH="+path, "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	cur, _ := os.ReadFile(filepath.Join(tmp, "current"))
	at := strings.TrimSpace(string(cur))
	if err != nil || at != "done" {
		what := "the session's services"
		var n int
		if _, e := fmt.Sscan(at, &n); e == nil && n < len(blocks) {
			what = blocks[n].String()
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("still running after %v", sessionTimeout)
		}
		t.Fatalf("%s failed: %v\n%s%s", what, err, out, outputs(tmp, at))
	}
	for i, b := range blocks {
		if b.Want == nil {
			continue
		}
		got, _ := os.ReadFile(filepath.Join(tmp, fmt.Sprintf("out.%d", i)))
		if !b.Want.Match(got) {
			t.Errorf("%v: output\n%s\ndoes not match %q", b, got, b.Want)
		}
	}
}

// runSQL runs a session of SQL blocks with psql on a new PostgreSQL
// server, one block after the other, and checks each one's output.
func runSQL(t *testing.T, blocks []docs.Block) {
	s := pgtest.Start(t)
	for _, b := range blocks {
		got := s.Psql(t, b.Body)
		if b.Want != nil && !b.Want.MatchString(got) {
			t.Errorf("%v: output\n%s\ndoes not match %q", b, got, b.Want)
		}
	}
}

// outputs returns the standard output and error of the block numbered at,
// for a failure.
func outputs(tmp, at string) string {
	var s strings.Builder
	for _, f := range []string{"out." + at, "err." + at} {
		if b, err := os.ReadFile(filepath.Join(tmp, f)); err == nil && len(b) > 0 {
			fmt.Fprintf(&s, "--- %s:\n%s\n", f, b)
		}
	}
	return s.String()
}

// maxWords is the longest sentence the documents may have.
const maxWords = 35

// TestDocs_Sentences keeps the documents' sentences short: none over
// maxWords words, an inline code span counting as one.
func TestDocs_Sentences(t *testing.T) {
	for _, name := range markdown(t) {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range docs.Sentences(string(b)) {
			if s.Words > maxWords {
				t.Errorf("%s:%d: a sentence of %d words, want at most %d: %q", name, s.Line, s.Words, maxWords, s.Text)
			}
		}
	}
}
