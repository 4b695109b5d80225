package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestNode(t *testing.T) {
	const attached = "; it serves the sequence once it holds a worker ID (READY in floe seq list)\n"
	tests := []struct {
		name    string
		args    []string // after "node"; ADDR is the node's URL
		path    string   // of the POST request; none is sent when empty
		code    int
		want    string // stdout
		wantErr string // in stderr
		seq     string // a sequence whose state after the command is wantSeq
		wantSeq adminSequence
	}{
		{
			name: "attach the default sequence", args: []string{"attach", "-addr", "ADDR", "default"},
			path: "/v1/admin/sequences/default/attach", want: "default: attached to ADDR" + attached,
			seq: "default", wantSeq: adminSequence{Attached: true, WorkerID: 0, Ready: true},
		},
		{
			name: "attach a named sequence", args: []string{"attach", "-addr", "ADDR", "orders"},
			path: "/v1/admin/sequences/orders/attach", want: "orders: attached to ADDR" + attached,
			seq: "orders", wantSeq: adminSequence{Attached: true, WorkerID: 0, Ready: true},
		},
		{
			name: "flags after the name", args: []string{"attach", "orders", "-addr", "ADDR"},
			path: "/v1/admin/sequences/orders/attach", want: "orders: attached to ADDR" + attached,
			seq: "orders", wantSeq: adminSequence{Attached: true, WorkerID: 0, Ready: true},
		},
		{
			name: "attach again", args: []string{"attach", "-addr", "ADDR", "tenant1"},
			path: "/v1/admin/sequences/tenant1/attach", want: "tenant1: attached to ADDR" + attached,
			seq: "tenant1", wantSeq: adminSequence{Attached: true, WorkerID: 0, Ready: true},
		},
		{
			name: "attach an unknown sequence", args: []string{"attach", "-addr", "ADDR", "nope"},
			path: "/v1/admin/sequences/nope/attach", code: 1, wantErr: "floe node: floe: no such sequence: nope (not_found)\n",
		},
		{
			name: "the name escaped in the path", args: []string{"attach", "-addr", "ADDR", "a b?"},
			path: "/v1/admin/sequences/a%20b%3F/attach", code: 1, wantErr: "floe node: floe: no such sequence: a b? (not_found)\n",
		},
		{
			name: "detach the default sequence", args: []string{"detach", "-addr", "ADDR", "default"},
			path: "/v1/admin/sequences/default/detach", want: "default: detached from ADDR\n",
			seq: "default", wantSeq: adminSequence{Attached: false, WorkerID: -1, Reason: "floe: sequence not ready: default: detached"},
		},
		{
			name: "detach a named sequence", args: []string{"detach", "-addr", "ADDR", "tenant1"},
			path: "/v1/admin/sequences/tenant1/detach", want: "tenant1: detached from ADDR\n",
			seq: "tenant1", wantSeq: adminSequence{Attached: false, WorkerID: -1, Reason: "floe: sequence not ready: tenant1: detached"},
		},
		{
			name: "detach a sequence the node does not have", args: []string{"detach", "-addr", "ADDR", "orders"},
			path: "/v1/admin/sequences/orders/detach", code: 1, wantErr: "floe node: floe: unknown sequence: \"orders\" (not_found)\n",
			seq: "orders", wantSeq: adminSequence{WorkerID: -1},
		},
		{name: "attach without a name", args: []string{"attach", "-addr", "ADDR"}, code: 2, wantErr: "floe node attach: a sequence name is required\nusage: floe node attach [-addr URL] [-token T] NAME\n"},
		{name: "detach without a name", args: []string{"detach", "-addr", "ADDR"}, code: 2, wantErr: "floe node detach: a sequence name is required\n"},
		{
			name: "a path for a name", args: []string{"detach", "-addr", "ADDR", "x/../tenant1"},
			path: "/v1/admin/sequences/x%2F..%2Ftenant1/detach", code: 1, wantErr: "floe node: floe: unknown sequence: \"x/../tenant1\" (not_found)\n",
			seq: "tenant1", wantSeq: adminSequence{Attached: true, WorkerID: 0, Ready: true},
		},
		{name: "empty name", args: []string{"detach", "-addr", "ADDR", ""}, code: 2, wantErr: "floe node detach: a sequence name is required\n"},
		{name: "dot", args: []string{"attach", "-addr", "ADDR", "."}, code: 1, wantErr: `floe node: sequence name ".": not addressable in floed's admin API`},
		{name: "two names", args: []string{"attach", "-addr", "ADDR", "default", "orders"}, code: 2, wantErr: "floe node attach: want one sequence name, not 2: default orders\n"},
		{name: "unknown flag", args: []string{"detach", "-addr", "ADDR", "-all"}, code: 2, wantErr: "flag provided but not defined: -all"},
		{name: "no command", args: nil, code: 2, wantErr: "usage: floe node attach"},
		{name: "unknown command", args: []string{"drain", "default"}, code: 2, wantErr: "floe node: unknown command \"drain\"\nusage: floe node attach"},
		{name: "help", args: []string{"--help"}, code: 0, wantErr: "floe node detach [-addr URL] [-token T] NAME"},
		{name: "attach help", args: []string{"attach", "-h"}, code: 0, wantErr: "usage: floe node attach [-addr URL] [-token T] NAME\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The node serves default and tenant1; orders is only in the
			// catalog.
			f := startAdminNode(t, "")
			f.define(t, "tenant1", "id80", "", true)
			f.define(t, "orders", "id96", "", false)
			code, out, errOut := runAdmin(t, f.url, nil, append([]string{"node"}, tc.args...)...)
			want := strings.ReplaceAll(tc.want, "ADDR", f.url)
			if code != tc.code || out != want || !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, stderr with %q", code, out, errOut, tc.code, want, tc.wantErr)
			}
			var wantReqs []adminRequest
			if tc.path != "" {
				wantReqs = []adminRequest{{Method: http.MethodPost, Path: tc.path}}
			}
			if got := f.requests(); !slices.Equal(got, wantReqs) {
				t.Errorf("requests:\n got  %+v\n want %+v", got, wantReqs)
			}
			if tc.seq == "" {
				return
			}
			// An attached sequence serves once the node has claimed a
			// worker ID, in the background.
			got, _ := f.sequence(tc.seq)
			if tc.wantSeq.Ready {
				got = f.await(t, tc.seq, serving)
			}
			got.Name, got.Spec, got.Gen = "", "", 0
			if got != tc.wantSeq {
				t.Errorf("%s after the command: %+v, want %+v", tc.seq, got, tc.wantSeq)
			}
		})
	}
}

// TestSeqNode_Lifecycle creates a sequence, attaches the node, detaches it
// and destroys the sequence, listing it between steps.
func TestSeqNode_Lifecycle(t *testing.T) {
	f := startAdminNode(t, "s3cret")
	env := map[string]string{"FLOE_ADMIN_ADDR": f.url, "FLOE_ADMIN_TOKEN": "s3cret"}
	const tenant1 = `{"name":"tenant1","spec":"{\"format\":\"id80\"}","gen":2,`
	steps := []struct {
		args []string
		want string // in stdout; ADDR is the node's URL
	}{
		{[]string{"seq", "create", "-format", "id80", "tenant1"}, "tenant1: created (gen 2): id80\n"},
		{[]string{"seq", "list", "-o", "json"}, tenant1 + `"attached":false,"worker_id":-1,"ready":false,"tokens":0}`},
		{[]string{"node", "attach", "tenant1"}, "tenant1: attached to ADDR; it serves the sequence once it holds a worker ID (READY in floe seq list)\n"},
		{[]string{"seq", "list", "-o", "json"}, tenant1 + `"attached":true,"worker_id":0,"ready":true,"tokens":0}`},
		{[]string{"node", "detach", "tenant1"}, "tenant1: detached from ADDR\n"},
		{[]string{"seq", "list", "-o", "json"}, tenant1 + `"attached":false,"worker_id":-1,"ready":false,"reason":"floe: sequence not ready: tenant1: detached","tokens":0}`},
		{[]string{"seq", "destroy", "-yes", "tenant1"}, "tenant1: destroyed\n"},
		{[]string{"seq", "list"}, "\ndefault  "},
	}
	for _, step := range steps {
		code, out, errOut := runAdmin(t, "", env, step.args...)
		want := strings.ReplaceAll(step.want, "ADDR", f.url)
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("%s: exit %d, stdout:\n%s\nstderr %q; want 0, stdout with:\n%s", strings.Join(step.args, " "), code, out, errOut, want)
		}
		if step.args[1] == "attach" {
			// The node claims a worker ID in the background.
			f.await(t, "tenant1", serving)
		}
	}
	if _, ok := f.sequence("tenant1"); ok {
		t.Error("tenant1 is still in the catalog")
	}
	for _, r := range f.requests() {
		if r.Auth != "Bearer s3cret" {
			t.Errorf("%s %s: Authorization %q, want the token from $FLOE_ADMIN_TOKEN", r.Method, r.Path, r.Auth)
		}
	}
}
