package main

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSeqCreate(t *testing.T) {
	tests := []struct {
		name           string
		args           []string // after "seq create -addr ADDR"
		wantBody       string   // of the request; none is sent when empty
		format, layout string   // of the spec the reply shows, which stands for SPEC in want
		code           int
		want           string // stdout
		wantErr        string // in stderr
	}{
		{
			name: "id64 by default", args: []string{"orders"},
			wantBody: `{"name":"orders","format":"id64"}`,
			want:     "orders: created (gen 2): id64 twitter\norders: no node serves it until attached: floe node attach orders, on each node (-addr) that is to serve it\n",
		},
		{
			name: "format id80", args: []string{"-format", "id80", "tenant1"},
			wantBody: `{"name":"tenant1","format":"id80"}`,
			want:     "tenant1: created (gen 2): id80\ntenant1: no node serves it until attached: floe node attach tenant1, on each node (-addr) that is to serve it\n",
		},
		{
			name: "format id96", args: []string{"-format", "id96", "tenant2"},
			wantBody: `{"name":"tenant2","format":"id96"}`,
			want:     "tenant2: created (gen 2): id96\ntenant2: no node serves it until attached: floe node attach tenant2, on each node (-addr) that is to serve it\n",
		},
		{
			name: "layout", args: []string{"-layout", "snowcast-128", "orders"},
			wantBody: `{"name":"orders","format":"id64","layout":"snowcast-128"}`,
			want:     "orders: created (gen 2): id64 snowcast-128\norders: no node serves it until attached: floe node attach orders, on each node (-addr) that is to serve it\n",
		},
		{
			name: "flags after the name", args: []string{"orders", "-format", "id64", "-layout", "discord"},
			wantBody: `{"name":"orders","format":"id64","layout":"discord"}`,
			want:     "orders: created (gen 2): id64 discord\norders: no node serves it until attached: floe node attach orders, on each node (-addr) that is to serve it\n",
		},
		{
			name: "exists with the same definition", args: []string{"-layout", "twitter", "default"},
			wantBody: `{"name":"default","format":"id64","layout":"twitter"}`,
			want:     "default: exists (gen 1): id64 twitter\n",
		},
		{
			name: "exists with another definition", args: []string{"-format", "id96", "default"},
			wantBody: `{"name":"default","format":"id96"}`,
			code:     1, wantErr: "floe seq: floe: sequence exists with another definition: default (conflict)\n",
		},
		{
			name: "format id128", args: []string{"-format", "id128", "events"},
			wantBody: `{"name":"events","format":"id128"}`,
			want:     "events: created (gen 2): id128\nevents: no node serves it until attached: floe node attach events, on each node (-addr) that is to serve it\n",
		},
		{
			name: "unknown format", args: []string{"-format", "id65", "x"},
			wantBody: `{"name":"x","format":"id65"}`,
			code:     1, wantErr: `unknown format "id65" (want id64, id80, id96 or id128) (bad_request)`,
		},
		{
			name: "layout for id96", args: []string{"-format", "id96", "-layout", "twitter", "x"},
			wantBody: `{"name":"x","format":"id96","layout":"twitter"}`,
			code:     1, wantErr: "floe seq: a layout is for format id64 only (bad_request)\n",
		},
		{
			name: "unknown layout", args: []string{"-layout", "nope", "x"},
			wantBody: `{"name":"x","format":"id64","layout":"nope"}`,
			code:     1, wantErr: `floe seq: floe: unknown layout: "nope"`,
		},
		{
			name: "invalid name", args: []string{"a/b"},
			wantBody: `{"name":"a/b","format":"id64"}`,
			code:     1, wantErr: `floe seq: floe: invalid sequence name: "a/b" (bad_request)`,
		},
		{name: "no name", args: nil, code: 2, wantErr: "floe seq create: a sequence name is required\nusage: floe seq create"},
		{name: "empty name", args: []string{""}, code: 2, wantErr: "floe seq create: a sequence name is required\n"},
		{name: "two names", args: []string{"a", "-format", "id80", "b"}, code: 2, wantErr: "floe seq create: want one sequence name, not 2: a b\n"},
		{name: "unknown flag", args: []string{"-epoch", "2020-01-01T00:00:00Z", "x"}, code: 2, wantErr: "flag provided but not defined: -epoch"},
		{name: "flag without its value", args: []string{"x", "-format"}, code: 2, wantErr: "flag needs an argument: -format"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := startAdminNode(t, "")
			code, out, errOut := runAdmin(t, f.url, nil, append([]string{"seq", "create", "-addr", "ADDR"}, tc.args...)...)
			want := tc.want
			if tc.format != "" {
				spec, err := specOf(tc.format, tc.layout)
				if err != nil {
					t.Fatal(err)
				}
				want = strings.ReplaceAll(want, "SPEC", spec)
			}
			if code != tc.code || out != want || !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, stderr with %q", code, out, errOut, tc.code, want, tc.wantErr)
			}
			var wantReqs []adminRequest
			if tc.wantBody != "" {
				wantReqs = []adminRequest{{Method: http.MethodPost, Path: "/v1/admin/sequences", ContentType: "application/json", Body: tc.wantBody}}
			}
			if got := f.requests(); !slices.Equal(got, wantReqs) {
				t.Errorf("requests:\n got  %+v\n want %+v", got, wantReqs)
			}
		})
	}
}

func TestSeqList(t *testing.T) {
	// The node serves default and tenant1, waits for a worker ID for
	// tenant2, was detached from old, and never attached orders.
	cluster := func(f *adminNode, t testing.TB) {
		f.define(t, "tenant1", "id80", "", true)
		f.define(t, "orders", "id64", "snowcast-128", false)
		f.defineHeld(t, "tenant2", "id96")
		f.define(t, "old", "id80", "", true)
		f.detach(t, "old")
	}
	// The node serves default and tenant1, and never attached orders.
	ready := func(f *adminNode, t testing.TB) {
		f.define(t, "tenant1", "id80", "", true)
		f.define(t, "orders", "id64", "snowcast-128", false)
	}
	table := `NAME     DEFINITION         GEN  ATTACHED  WORKER  READY
default  id64 twitter       1    yes       0       yes
old      id80               5    no        -       no
orders   id64 snowcast-128  3    no        -       no
tenant1  id80               2    yes       0       yes
tenant2  id96               4    yes       -       no
`

	tests := []struct {
		name    string
		setup   func(*adminNode, testing.TB)
		args    []string // after "seq list -addr ADDR"
		code    int
		want    string // stdout; API stands for the admin API's reply
		wantErr string // in stderr
		request bool   // whether a request is sent
	}{
		{name: "text", setup: cluster, want: table, request: true},
		{name: "json", setup: ready, args: []string{"-o", "json"}, want: "API", request: true},
		{name: "json with reasons", setup: cluster, args: []string{"-o", "json"}, want: "API", request: true},
		{name: "no sequences", setup: (*adminNode).clear, want: "NAME  DEFINITION  GEN  ATTACHED  WORKER  READY\n", request: true},
		{name: "no sequences in json", setup: (*adminNode).clear, args: []string{"-o", "json"}, want: `{"sequences":[]}` + "\n", request: true},
		{name: "unexpected argument", args: []string{"default"}, code: 2, wantErr: "floe seq list: unexpected arguments: default\nusage: floe seq list"},
		{name: "flag after an argument", args: []string{"x", "-o", "json"}, code: 2, wantErr: "unexpected arguments: x -o json"},
		{name: "bad output", args: []string{"-o", "yaml"}, code: 1, wantErr: `floe seq: -o "yaml": want text or json`},
		{name: "unknown flag", args: []string{"-all"}, code: 2, wantErr: "flag provided but not defined: -all"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := startAdminNode(t, "")
			if tc.setup != nil {
				tc.setup(f, t)
			}
			want := tc.want
			if want == "API" {
				want = f.reply(http.MethodGet, "/v1/admin/sequences")
			}
			code, out, errOut := runAdmin(t, f.url, nil, append([]string{"seq", "list", "-addr", "ADDR"}, tc.args...)...)
			if code != tc.code || out != want || !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("exit %d, stdout:\n%s\nstderr %q; want %d, stdout:\n%s\nstderr with %q", code, out, errOut, tc.code, want, tc.wantErr)
			}
			var wantReqs []adminRequest
			if tc.request {
				wantReqs = []adminRequest{{Method: http.MethodGet, Path: "/v1/admin/sequences"}}
			}
			if got := f.requests(); !slices.Equal(got, wantReqs) {
				t.Errorf("requests:\n got  %+v\n want %+v", got, wantReqs)
			}
		})
	}
}

func TestSeqDestroy(t *testing.T) {
	tests := []struct {
		name    string
		args    []string // after "seq destroy -addr ADDR"
		path    string   // of the DELETE request; none is sent when empty
		code    int
		want    string // stdout
		wantErr string // in stderr
	}{
		{name: "named", args: []string{"-yes", "tenant1"}, path: "/v1/admin/sequences/tenant1", want: "tenant1: destroyed\n"},
		{name: "-yes after the name", args: []string{"tenant1", "-yes"}, path: "/v1/admin/sequences/tenant1", want: "tenant1: destroyed\n"},
		{name: "the default sequence", args: []string{"-yes", "default"}, path: "/v1/admin/sequences/default", code: 1, wantErr: "floe seq: sequence \"default\" is the default sequence, which every node serves from its flags: it cannot be destroyed through the admin API (floe node detach stops one node serving it) (conflict)\n"},
		{name: "unknown", args: []string{"-yes", "nope"}, path: "/v1/admin/sequences/nope", code: 1, wantErr: "floe seq: floe: no such sequence: nope (not_found)\n"},
		{name: "without -yes", args: []string{"tenant1"}, code: 2, wantErr: "every node stops serving tenant1, and its worker IDs and reservations are dropped.\nRun again with -yes to destroy it.\n"},
		{name: "-yes=false", args: []string{"-yes=false", "tenant1"}, code: 2, wantErr: "Run again with -yes"},
		{name: "no name", args: []string{"-yes"}, code: 2, wantErr: "floe seq destroy: a sequence name is required\n"},
		{name: "a path for a name", args: []string{"-yes", "x/../tenant1"}, path: "/v1/admin/sequences/x%2F..%2Ftenant1", code: 1, wantErr: "floe seq: floe: no such sequence: x/../tenant1 (not_found)\n"},
		{name: "empty name", args: []string{"-yes", ""}, code: 2, wantErr: "floe seq destroy: a sequence name is required\n"},
		{name: "dot-dot", args: []string{"-yes", ".."}, code: 1, wantErr: `floe seq: sequence name "..": not addressable in floed's admin API`},
		{name: "two names", args: []string{"-yes", "tenant1", "default"}, code: 2, wantErr: "want one sequence name, not 2: tenant1 default\n"},
		{name: "unknown flag", args: []string{"-force", "tenant1"}, code: 2, wantErr: "flag provided but not defined: -force"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := startAdminNode(t, "")
			f.define(t, "tenant1", "id80", "", true)
			code, out, errOut := runAdmin(t, f.url, nil, append([]string{"seq", "destroy", "-addr", "ADDR"}, tc.args...)...)
			if code != tc.code || out != tc.want || !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, stderr with %q", code, out, errOut, tc.code, tc.want, tc.wantErr)
			}
			var wantReqs []adminRequest
			if tc.path != "" {
				wantReqs = []adminRequest{{Method: http.MethodDelete, Path: tc.path}}
			}
			if got := f.requests(); !slices.Equal(got, wantReqs) {
				t.Errorf("requests:\n got  %+v\n want %+v", got, wantReqs)
			}
			_, kept := f.sequence("tenant1")
			if wantKept := tc.path != "/v1/admin/sequences/tenant1"; kept != wantKept {
				t.Errorf("tenant1 in the catalog: %v, want %v", kept, wantKept)
			}
		})
	}
}

func TestSeq_Usage(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		code    int
		wantErr string // in stderr
	}{
		{"no command", []string{"seq"}, 2, "usage: floe seq create"},
		{"unknown command", []string{"seq", "rename", "a", "b"}, 2, "floe seq: unknown command \"rename\"\nusage: floe seq create"},
		{"help", []string{"seq", "-h"}, 0, "floe seq destroy [-addr URL] [-token T] -yes NAME"},
		{"create help", []string{"seq", "create", "-h"}, 0, "-layout name"},
		{"list help", []string{"seq", "list", "-help"}, 0, "-o output"},
		{"destroy help", []string{"seq", "destroy", "-h"}, 0, "confirm the destruction"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := startAdminNode(t, "")
			code, out, errOut := runAdmin(t, f.url, map[string]string{"FLOE_ADMIN_ADDR": f.url, "FLOE_ADMIN_TOKEN": "do-not-print"}, tc.args...)
			if code != tc.code || out != "" || !strings.Contains(errOut, tc.wantErr) || strings.Contains(errOut, "do-not-print") {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, no stdout, stderr with %q and without the token", code, out, errOut, tc.code, tc.wantErr)
			}
			if got := f.requests(); len(got) != 0 {
				t.Errorf("requests %+v, want none", got)
			}
		})
	}
}

func TestDescribeSpec(t *testing.T) {
	spec := func(format, layout string) string {
		t.Helper()
		s, err := specOf(format, layout)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	custom := `{"format":"id64","layout":{"epoch":"2020-01-01T00:00:00Z","unit":1000000,"time_bits":41,"datacenter_bits":0,"worker_bits":10,"sequence_bits":12,"unsigned":false}}`
	tests := []struct {
		name, spec, want string
	}{
		{"twitter", spec("id64", "twitter"), "id64 twitter"},
		{"snowcast", spec("id64", "snowcast-1024"), "id64 snowcast-1024"},
		{"discord", spec("id64", "discord"), "id64 discord"},
		{"id80", spec("id80", ""), "id80"},
		{"a layout no preset has", custom, "id64 41t/10w/12s 1ms since 2020-01-01T00:00:00Z"},
		{"not a spec", "{\"format\":\"id64\"\n", `"{\"format\":\"id64\"\n"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := describeSpec(tc.spec); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSeqCreate_TokenFile: floe seq create -token-file sends the token's
// SHA-256 (never the token), and a binary client with the token then gets
// the IDs of the sequence from a node that attached it.
func TestSeqCreate_TokenFile(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := file("good", "orders-secret\n")
	hash := "363838865d67245f6045a510d660614ae477cd64df9f55f5c068b20a1536949a" // printf %s orders-secret | sha256sum
	tests := []struct {
		name     string
		path     string
		code     int
		want     string // stdout
		wantErr  string
		wantBody string
	}{
		{name: "a token", path: good, want: "orders: created (gen 2): id64 twitter, 1 token\n", wantBody: `{"name":"orders","format":"id64","token_sha256":["HASH"]}`},
		{name: "crlf", path: file("crlf", "orders-secret\r\n"), want: "orders: created (gen 2): id64 twitter, 1 token\n", wantBody: `{"name":"orders","format":"id64","token_sha256":["HASH"]}`},
		{name: "empty", path: file("empty", "\n"), code: 1, wantErr: "floe seq: -token-file " + dir + "/empty: want a token of 1 to 255 bytes (a trailing newline aside), not 0\n"},
		{name: "too long", path: file("long", strings.Repeat("x", 256)), code: 1, wantErr: "want a token of 1 to 255 bytes (a trailing newline aside), not 256\n"},
		{name: "missing", path: filepath.Join(dir, "nope"), code: 1, wantErr: "floe seq: -token-file: open " + dir + "/nope: no such file or directory\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := startAdminNode(t, "")
			code, out, errOut := runAdmin(t, f.url, nil, "seq", "create", "-addr", "ADDR", "-token-file", tc.path, "orders")
			if code != tc.code || !strings.HasPrefix(out, tc.want) || (tc.want == "") != (out == "") || !strings.Contains(errOut, tc.wantErr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, stdout starting %q, stderr with %q", code, out, errOut, tc.code, tc.want, tc.wantErr)
			}
			if strings.Contains(out+errOut, "orders-secret") {
				t.Errorf("the output shows the token: %q %q", out, errOut)
			}
			var wantReqs []adminRequest
			if tc.wantBody != "" {
				wantReqs = []adminRequest{{Method: http.MethodPost, Path: "/v1/admin/sequences", ContentType: "application/json", Body: strings.ReplaceAll(tc.wantBody, "HASH", hash)}}
			}
			if got := f.requests(); !slices.Equal(got, wantReqs) {
				t.Fatalf("requests:\n got  %+v\n want %+v", got, wantReqs)
			}
			if tc.code != 0 {
				return
			}
			f.attach(t, "orders")
			f.await(t, "orders", serving)
			orders, _ := f.sequence("orders")
			if orders.Tokens != 1 {
				t.Errorf("the admin list gives orders %d tokens, want 1", orders.Tokens)
			}
			// Only orders has tokens: a token that selected no sequence
			// would be refused.
			code, out, errOut = runAdmin(t, f.bin, nil, "get", "-addr", "ADDR", "-token", "orders-secret", "-n", "3")
			if code != 0 || strings.Count(out, "\n") != 3 {
				t.Fatalf("floe get with the token: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			if code, _, errOut := runAdmin(t, f.bin, nil, "get", "-addr", "ADDR", "-token", "orders-secre"); code == 0 {
				t.Errorf("floe get with a wrong token: exit 0, stderr %q", errOut)
			}
		})
	}
}
